// Presence from the focus timer: what the app tells community_heartbeat while a session is open
// (studying, on a break, or paused as idle), every 30 s and at once on every change, and
// `offline` when the session ends. The database decides who sees what of it; this file only
// decides what to say and when. Free of supabase-js: the shell runs it and loads the sender lazily.
import type { TimerSnapshot } from '../../state/focus.ts';

export type LiveState = 'studying' | 'break' | 'idle';

export interface PresenceReport {
  state: LiveState;
  subjectId: string | null;
  subjectName: string | null;
  taskId: string | null;
  taskTitle: string | null;
  /** When the session started (ISO), so buddies can see for how long, if the student shares it. */
  sessionStartedAt: string | null;
}

/** The arguments of community_heartbeat. */
export interface HeartbeatBody {
  p_state: LiveState | 'offline';
  p_subject_id: string | null;
  p_subject_name: string | null;
  p_task_id: string | null;
  p_task_title: string | null;
  p_session_started_at: string | null;
}

export const HEARTBEAT_MS = 30_000;

/** What to report for a timer snapshot; null when no session is open (the student is offline). */
export function presenceReport(snapshot: TimerSnapshot, startedAtMs: number | null): PresenceReport | null {
  if (startedAtMs === null) return null;
  const state: LiveState =
    snapshot.running && snapshot.phase === 'focus'
      ? 'studying'
      : snapshot.running && snapshot.phase === 'break'
        ? 'break'
        : 'idle';
  return {
    state,
    subjectId: snapshot.subject?.id ?? null,
    subjectName: snapshot.subject?.name ?? null,
    taskId: snapshot.task?.id ?? null,
    taskTitle: snapshot.task?.title ?? null,
    sessionStartedAt: new Date(startedAtMs).toISOString(),
  };
}

export function heartbeatBody(report: PresenceReport | null): HeartbeatBody {
  if (!report)
    return {
      p_state: 'offline',
      p_subject_id: null,
      p_subject_name: null,
      p_task_id: null,
      p_task_title: null,
      p_session_started_at: null,
    };
  return {
    p_state: report.state,
    p_subject_id: report.subjectId,
    p_subject_name: report.subjectName,
    p_task_id: report.taskId,
    p_task_title: report.taskTitle,
    p_session_started_at: report.sessionStartedAt,
  };
}

/**
 * Sends heartbeats for the latest report: at once when it changes, then every HEARTBEAT_MS while a
 * session is open, and one `offline` when it closes. A failed heartbeat is retried by the next.
 */
export class PresenceReporter {
  private current: PresenceReport | null = null;
  private lastSentKey: string | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly send: (body: HeartbeatBody) => Promise<void>,
    private readonly intervalMs = HEARTBEAT_MS,
  ) {}

  /** Whether the backend was last told the student is live (so an `offline` is owed). */
  get live(): boolean {
    return this.lastSentKey !== null && this.lastSentKey !== 'offline';
  }

  update(report: PresenceReport | null): Promise<void> {
    this.current = report;
    const key = report ? JSON.stringify(heartbeatBody(report)) : 'offline';
    if (!report) {
      clearInterval(this.timer);
      this.timer = undefined;
      if (!this.live) return Promise.resolve();
    } else {
      this.timer ??= setInterval(() => void this.beat(), this.intervalMs);
      if (key === this.lastSentKey) return Promise.resolve();
    }
    return this.beat();
  }

  /** Says the current report now (the interval's tick, or a page shown again from the cache). */
  beat(): Promise<void> {
    const report = this.current;
    const key = report ? JSON.stringify(heartbeatBody(report)) : 'offline';
    this.lastSentKey = key;
    return this.send(heartbeatBody(report)).catch(() => {
      // Unsent: the next change or tick tries again (the key is forgotten so a change resends).
      if (this.lastSentKey === key && !report) this.lastSentKey = 'unsent-offline';
    });
  }

  /** The page is going away: nothing more will be sent from here. */
  forget(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.lastSentKey = 'offline';
  }
}

/**
 * `offline` for a page that is going away (pagehide): a keepalive request outlives the page, which
 * an ordinary call through supabase-js would not. Reads the key and token synchronously.
 */
export function sendOfflineBeacon(options: { anonKey: string; accessToken: string; backendUrl: string }): boolean {
  try {
    void fetch(`${options.backendUrl.replace(/\/$/, '')}/rest/v1/rpc/community_heartbeat`, {
      method: 'POST',
      keepalive: true,
      headers: {
        'content-type': 'application/json',
        apikey: options.anonKey,
        authorization: `Bearer ${options.accessToken}`,
      },
      body: JSON.stringify(heartbeatBody(null)),
    }).catch(() => undefined);
    return true;
  } catch {
    return false;
  }
}
