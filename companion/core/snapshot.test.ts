// What the remote reads from a snapshot: whether a session runs, waits for Finish, or can be finished.
import { describe, expect, it } from 'vitest';
import { canFinish, isSessionComplete, isSessionRunning } from './snapshot.ts';
import { idleSnapshot, runningSnapshot } from './test-snapshots.ts';

describe('a snapshot as the remote reads it', () => {
  it('has nothing to finish before any page reported, nor on an idle page', () => {
    expect(canFinish(undefined)).toBe(false);
    expect(canFinish(idleSnapshot())).toBe(false);
    expect(canFinish(idleSnapshot({ updatedAt: 1 }))).toBe(false);
  });

  it('finishes a running or paused session', () => {
    expect(canFinish(runningSnapshot(2_000_000))).toBe(true);
    expect(canFinish(runningSnapshot(2_000_000, { running: false, completionAtMs: null }))).toBe(true);
  });

  it('finishes a complete session, which runs no longer', () => {
    const complete = idleSnapshot({ complete: true, updatedAt: 1 });
    expect(isSessionComplete(complete)).toBe(true);
    expect(isSessionRunning(complete)).toBe(false);
    expect(canFinish(complete)).toBe(true);
  });

  it('reads a page that does not send `complete` (older than the key) as not complete, and trusts no unreported one', () => {
    expect(isSessionComplete(idleSnapshot({ updatedAt: 1 }))).toBe(false);
    expect(canFinish(idleSnapshot({ complete: true }))).toBe(false);
  });
});
