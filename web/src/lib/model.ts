// The records a student's device keeps (IndexedDB) and backs up. Ids are generated on the device,
// so a record has its final id before it ever reaches the backend.
import { randomUuid } from '#contracts/random-id.ts';
import type { AlarmSound } from './chime.ts';

export interface Subject {
  id: string;
  name: string;
  createdAt: number;
}

export interface Task {
  id: string;
  title: string;
  subjectId: string | null;
  /** The study day it is planned for (YYYY-MM-DD), or null for the backlog. */
  day: string | null;
  done: boolean;
  completedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface StudySession {
  id: string;
  startedAt: number;
  endedAt: number;
  minutes: number;
  subjectId: string | null;
  subjectName: string | null;
  taskId: string | null;
  taskTitle: string | null;
  correct: number;
  incorrect: number;
  skipped: number;
  /** The study day it counts for (the day offset applied), YYYY-MM-DD. */
  studyDay: string;
  /** Recorded by the backend (record_study_session). */
  synced: boolean;
  /** Set aside by the backend (study_sessions.voided_at, ms epoch): shown, never counted. */
  voidedAt?: number | null;
  voidReason?: string | null;
}

export interface AppSettings {
  focusMinutes: number;
  breakMinutes: number;
  cycles: number;
  /** A study day starts this many hours after local midnight (mirrors user_settings). */
  dayOffsetHours: number;
  /** Minutes a day the student aims for (the Stats goal line). */
  dailyGoalMinutes: number;
  /** The sound played when a focus or break phase ends. */
  alarmSound: AlarmSound;
  /** No sound at phase ends (notifications still come). */
  alarmMuted: boolean;
}

/** The settings that follow the student to every device (user_settings' timer columns). */
export type TimerPreferences = Pick<AppSettings, 'focusMinutes' | 'breakMinutes' | 'cycles' | 'dailyGoalMinutes'>;

export function timerPreferencesOf(settings: AppSettings): TimerPreferences {
  return {
    focusMinutes: settings.focusMinutes,
    breakMinutes: settings.breakMinutes,
    cycles: settings.cycles,
    dailyGoalMinutes: settings.dailyGoalMinutes,
  };
}

export const defaultSettings: AppSettings = {
  focusMinutes: 25,
  breakMinutes: 5,
  cycles: 4,
  dayOffsetHours: 0,
  dailyGoalMinutes: 120,
  alarmSound: 'chime',
  alarmMuted: false,
};

export interface Profile {
  handle: string | null;
  displayName: string | null;
  avatarUrl: string | null;
}

/** A record's id: a UUID made on the device, on any page (plain-HTTP ones too: contracts/random-id.ts). */
export function newId(): string {
  return randomUuid();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id the backend knows a session by (study_sessions.client_id): its local id, made on the
 * device by newId(). A session from an older backup whose id is not a uuid has none; it is
 * matched by its start instant instead.
 */
export function sessionClientId(session: Pick<StudySession, 'id'>): string | null {
  return UUID.test(session.id) ? session.id.toLowerCase() : null;
}

/** A record id the backend can key by (a uuid); an older backup's other ids stay on devices. */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}
