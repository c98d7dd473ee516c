// What the app tells community_heartbeat, and when: the state for each timer situation, a beat at
// once on every change and every 30 s while a session is open, one `offline` when it closes and
// none for a student who never went live.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TimerSnapshot } from '../../state/focus.ts';
import { HEARTBEAT_MS, PresenceReporter, presenceReport, type HeartbeatBody } from './presence.ts';

const snapshot = (overrides: Partial<TimerSnapshot>): TimerSnapshot => ({
  phase: 'focus',
  running: true,
  remainingMs: 1000,
  completionAtMs: 1000,
  subject: { id: 's1', name: 'Anatomy' },
  task: { id: 't1', title: 'Chapter 4' },
  attempts: { correct: 0, incorrect: 0, skipped: 0 },
  target: null,
  ...overrides,
});
const started = Date.parse('2026-11-23T10:00:00Z');

describe('presenceReport', () => {
  it('is studying in a running focus phase, on a break in a running break, idle when paused or complete', () => {
    expect(presenceReport(snapshot({}), started)).toMatchObject({
      state: 'studying',
      subjectName: 'Anatomy',
      taskTitle: 'Chapter 4',
      sessionStartedAt: '2026-11-23T10:00:00.000Z',
    });
    expect(presenceReport(snapshot({ phase: 'break' }), started)?.state).toBe('break');
    expect(presenceReport(snapshot({ running: false }), started)?.state).toBe('idle');
    expect(presenceReport(snapshot({ phase: 'idle', running: false }), started)?.state).toBe('idle');
  });

  it('is nothing without an open session', () => {
    expect(presenceReport(snapshot({ phase: 'idle', running: false }), null)).toBeNull();
  });
});

describe('PresenceReporter', () => {
  let sent: HeartbeatBody[];
  let reporter: PresenceReporter;
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    reporter = new PresenceReporter(async (body) => void sent.push(body));
  });
  afterEach(() => {
    void reporter.update(null);
    vi.useRealTimers();
  });

  it('beats at once, again on a change, and every 30 s while the session is open', async () => {
    const studying = presenceReport(snapshot({}), started);
    await reporter.update(studying);
    await reporter.update(studying); // the same report again (a counter changed): nothing new to say
    expect(sent.map((body) => body.p_state)).toEqual(['studying']);
    await reporter.update(presenceReport(snapshot({ phase: 'break' }), started));
    expect(sent.map((body) => body.p_state)).toEqual(['studying', 'break']);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 2);
    expect(sent.map((body) => body.p_state)).toEqual(['studying', 'break', 'break', 'break']);
  });

  it('says offline once when the session ends, then stays quiet', async () => {
    await reporter.update(presenceReport(snapshot({}), started));
    await reporter.update(null);
    await reporter.update(null);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 3);
    expect(sent.map((body) => body.p_state)).toEqual(['studying', 'offline']);
    expect(sent[1]).toEqual({
      p_state: 'offline',
      p_subject_id: null,
      p_subject_name: null,
      p_task_id: null,
      p_task_title: null,
      p_session_started_at: null,
    });
    expect(reporter.live).toBe(false);
  });

  it('never says anything for a student who was never live', async () => {
    await reporter.update(null);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS * 2);
    expect(sent).toEqual([]);
  });

  it('tries the offline again on the next change when it could not be sent', async () => {
    let fail = false;
    const bodies: string[] = [];
    const flaky = new PresenceReporter(async (body) => {
      bodies.push(body.p_state);
      if (fail) throw new Error('offline');
    });
    await flaky.update(presenceReport(snapshot({}), started));
    fail = true;
    await flaky.update(null);
    fail = false;
    await flaky.update(null);
    expect(bodies).toEqual(['studying', 'offline', 'offline']);
  });
});
