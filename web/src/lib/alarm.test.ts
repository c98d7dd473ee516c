// The phase-end alarm's scheduler: which phase ended between the timer as it was and now, what
// follows it, and silence for an end long past (a laptop waking from sleep). Also the settings it
// reads: stored with the others, defaulted in an older backup, refused when foreign.
import { describe, expect, it } from 'vitest';
import { phaseEndBetween, phaseEndMessage, STALE_END_MS } from './alarm.ts';
import { parseBackup } from './backup-import.ts';
import { BACKUP_FORMAT } from './backup-payload.ts';
import { isAlarmSound, SOUND_NOTES, ALARM_SOUNDS } from './chime.ts';
import { defaultSettings } from './model.ts';
import { readStoredAccessToken } from './session-storage.ts';
import { idleTimer, pause, start } from './timer.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 10, 25, 9, 0, 0);
const running = start(idleTimer({ focusMinutes: 25, breakMinutes: 5, cycles: 2 }), T0);

describe('phaseEndBetween', () => {
  it('says nothing before the running phase ends', () => {
    expect(phaseEndBetween(running, T0 + 25 * MIN - 1)).toBeNull();
  });

  it('names the focus phase that ended and the break that follows, at the end and a few seconds later', () => {
    const end = { phase: 'focus', endedAtMs: T0 + 25 * MIN, next: 'break' };
    expect(phaseEndBetween(running, T0 + 25 * MIN)).toEqual(end);
    expect(phaseEndBetween(running, T0 + 25 * MIN + 5000)).toEqual(end);
  });

  it('names the break that ended, and the last focus phase as the end of the session', () => {
    expect(phaseEndBetween(running, T0 + 30 * MIN + 1000)).toEqual({
      phase: 'break',
      endedAtMs: T0 + 30 * MIN,
      next: 'focus',
    });
    expect(phaseEndBetween(running, T0 + 55 * MIN + 1000)).toEqual({
      phase: 'focus',
      endedAtMs: T0 + 55 * MIN,
      next: 'done',
    });
  });

  it('stays silent for an end older than a minute, and for paused, idle or complete timers', () => {
    expect(phaseEndBetween(running, T0 + 25 * MIN + STALE_END_MS + 1)).toBeNull();
    expect(phaseEndBetween(running, T0 + 3 * 60 * MIN)).toBeNull();
    expect(phaseEndBetween(pause(running, T0 + MIN), T0 + 60 * MIN)).toBeNull();
    expect(phaseEndBetween(idleTimer(), T0 + 60 * MIN)).toBeNull();
  });

  it('announces an end exactly once: the timer after the change has nothing left to announce', () => {
    const now = T0 + 25 * MIN + 200;
    const after = { ...running, phase: 'break' as const, completionAtMs: T0 + 30 * MIN };
    expect(phaseEndBetween(running, now)).not.toBeNull();
    expect(phaseEndBetween(after, now)).toBeNull();
  });
});

describe('phaseEndMessage', () => {
  it('says which phase ended and what comes next', () => {
    expect(phaseEndMessage({ phase: 'focus', next: 'break' })).toEqual({
      title: 'Focus phase over',
      body: 'Time for a break.',
    });
    expect(phaseEndMessage({ phase: 'break', next: 'focus' }).title).toBe('Break over');
    expect(phaseEndMessage({ phase: 'focus', next: 'done' }).body).toMatch(/Finish/);
  });
});

describe('alarm settings', () => {
  const backup = (settings: unknown) => ({
    format: BACKUP_FORMAT,
    version: 1,
    exported_at: new Date(T0).toISOString(),
    subjects: [],
    tasks: [],
    sessions: [],
    settings,
  });
  const older = { focusMinutes: 25, breakMinutes: 5, cycles: 4, dayOffsetHours: 0, dailyGoalMinutes: 90 };

  it('defaults to the chime, not muted', () => {
    expect(defaultSettings).toMatchObject({ alarmSound: 'chime', alarmMuted: false });
  });

  it('fills the alarm in for a backup made before it existed, and keeps a chosen one', () => {
    const parsed = parseBackup(backup(older));
    expect(parsed.ok && parsed.payload.settings).toMatchObject({ alarmSound: 'chime', alarmMuted: false });
    const chosen = parseBackup(backup({ ...older, alarmSound: 'bell', alarmMuted: true }));
    expect(chosen.ok && chosen.payload.settings).toMatchObject({ alarmSound: 'bell', alarmMuted: true });
  });

  it('refuses a sound it does not have', () => {
    expect(parseBackup(backup({ ...older, alarmSound: 'siren' })).ok).toBe(false);
    expect(isAlarmSound('siren')).toBe(false);
  });

  it('has notes for every sound, each short', () => {
    for (const sound of ALARM_SOUNDS) {
      expect(isAlarmSound(sound)).toBe(true);
      expect(SOUND_NOTES[sound].length).toBeGreaterThan(0);
      for (const note of SOUND_NOTES[sound]) expect(note.at + note.length).toBeLessThan(3);
    }
  });
});

describe('readStoredAccessToken', () => {
  const storage = (session: unknown) => ({ getItem: () => JSON.stringify(session) });

  it('reads the token supabase-js stored while it is valid', () => {
    expect(readStoredAccessToken(storage({ access_token: 'abc', expires_at: T0 / 1000 + 3600 }), T0)).toBe('abc');
  });

  it('gives none for an expired or missing one', () => {
    expect(readStoredAccessToken(storage({ access_token: 'abc', expires_at: T0 / 1000 - 1 }), T0)).toBeNull();
    expect(readStoredAccessToken(storage(null), T0)).toBeNull();
    expect(readStoredAccessToken({ getItem: () => '{not json' }, T0)).toBeNull();
  });
});
