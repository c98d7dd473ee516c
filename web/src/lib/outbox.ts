// The outbox: every change that must reach the backend waits here (in IndexedDB) until it has.
// An entry's key is its idempotency key: enqueueing the same key again replaces the waiting entry
// (three edits of one task send one write), and an entry leaves the outbox only after the backend
// confirmed it. A send whose answer was lost is repeated safely: each write is idempotent on the
// backend (task upserts by id; a session is recorded once per client id, backend-writer.ts).
import { ApiError } from './api.ts';
import type { StudySession, Subject, Task, TimerPreferences } from './model.ts';

export type OutboxOp =
  | { kind: 'session'; session: StudySession }
  | { kind: 'task-upsert'; task: Task; subjectName: string | null }
  | { kind: 'task-delete'; taskId: string }
  | { kind: 'subject-upsert'; subject: Subject }
  | { kind: 'subject-delete'; subjectId: string }
  | { kind: 'settings'; dayOffsetHours: number; timezoneOffsetMinutes: number }
  /** The timer lengths and daily goal: their own key, so a day-settings write never carries a device's defaults. */
  | { kind: 'timer-settings'; timer: TimerPreferences };

export interface OutboxEntry {
  key: string;
  op: OutboxOp;
  /** Bumped on every enqueue, so a send never removes a newer version of the same key. */
  revision: number;
  createdAt: number;
  attempts: number;
  lastError: string | null;
  /** The backend refused it for good (bad data): kept and shown, never retried by itself. */
  failed: boolean;
}

export interface OutboxStore {
  all(): Promise<OutboxEntry[]>;
  get(key: string): Promise<OutboxEntry | undefined>;
  put(entry: OutboxEntry): Promise<void>;
  /** Deletes the entry only if it still has this revision. */
  remove(key: string, revision: number): Promise<void>;
}

export interface OutboxSender {
  send(op: OutboxOp): Promise<void>;
}

export function outboxKey(op: OutboxOp): string {
  switch (op.kind) {
    case 'session':
      return `session:${op.session.id}`;
    case 'task-upsert':
    case 'task-delete':
      return `task:${op.kind === 'task-upsert' ? op.task.id : op.taskId}`;
    case 'subject-upsert':
    case 'subject-delete':
      return `subject:${op.kind === 'subject-upsert' ? op.subject.id : op.subjectId}`;
    case 'settings':
      return 'settings';
    case 'timer-settings':
      return 'timer-settings';
  }
}

export interface FlushResult {
  sent: number;
  pending: number;
  failed: number;
  /** Why the flush stopped early: `offline`, `signed_out`, or the code of a server trouble. */
  stoppedBy: string | null;
}

/** Kinds of failure: wait and retry (the network, the server) or give up on this entry (its data). */
export function isTransient(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return (
    error.status === 0 ||
    error.status === 401 ||
    error.status === 403 ||
    error.status === 408 ||
    error.status === 429 ||
    error.status >= 500
  );
}

export type LockRunner = <T>(work: () => Promise<T>) => Promise<T>;

export class Outbox {
  private flushing: Promise<FlushResult> | undefined;
  /** Something was queued while a flush ran: it drains once more before it ends. */
  private queuedDuringFlush = false;
  /** Entries queued in the same millisecond still keep the order they were queued in. */
  private lastStamp = 0;

  constructor(
    private readonly store: OutboxStore,
    private readonly sender: OutboxSender,
    /** Serialises flushes across tabs (Web Locks in the browser). */
    private readonly lock: LockRunner = (work) => work(),
    private readonly clock: () => number = Date.now,
  ) {}

  async enqueue(op: OutboxOp): Promise<OutboxEntry> {
    const key = outboxKey(op);
    const existing = await this.store.get(key);
    const entry: OutboxEntry = {
      key,
      op,
      revision: (existing?.revision ?? 0) + 1,
      createdAt: existing?.createdAt ?? (this.lastStamp = Math.max(this.clock(), this.lastStamp + 1)),
      attempts: 0,
      lastError: null,
      failed: false,
    };
    await this.store.put(entry);
    return entry;
  }

  /** Whether an entry with this key still waits (or was set aside). */
  async holds(key: string): Promise<boolean> {
    return (await this.store.get(key)) !== undefined;
  }

  async entries(): Promise<OutboxEntry[]> {
    return (await this.store.all()).sort((a, b) => a.createdAt - b.createdAt || a.key.localeCompare(b.key));
  }

  /**
   * Sends what waits, oldest first; one flush at a time. A caller arriving during a flush shares
   * it, and that flush drains again before it ends, so what was queued meanwhile is not left behind.
   */
  flush(): Promise<FlushResult> {
    if (this.flushing) {
      this.queuedDuringFlush = true;
      return this.flushing;
    }
    this.flushing = this.lock(async () => {
      let result: FlushResult;
      do {
        this.queuedDuringFlush = false;
        result = await this.drain();
      } while (this.queuedDuringFlush && result.stoppedBy === null);
      return result;
    }).finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Puts a refused entry back in line (the student chose Retry). */
  async retry(key: string): Promise<void> {
    const entry = await this.store.get(key);
    if (entry) await this.store.put({ ...entry, failed: false, attempts: 0, lastError: null });
  }

  async discard(key: string): Promise<void> {
    const entry = await this.store.get(key);
    if (entry) await this.store.remove(key, entry.revision);
  }

  private async drain(): Promise<FlushResult> {
    const entries = await this.entries();
    let sent = 0;
    let failed = entries.filter((entry) => entry.failed).length;
    const waiting = entries.filter((entry) => !entry.failed);
    for (const [index, entry] of waiting.entries()) {
      try {
        await this.sender.send(entry.op);
        await this.store.remove(entry.key, entry.revision);
        sent++;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        const current = await this.store.get(entry.key);
        if (isTransient(error)) {
          if (current?.revision === entry.revision)
            await this.store.put({ ...current, attempts: current.attempts + 1, lastError: message });
          const code = error instanceof ApiError ? (error.status === 401 ? 'signed_out' : error.code) : 'unknown';
          return { sent, pending: waiting.length - index, failed, stoppedBy: code };
        }
        if (current?.revision === entry.revision)
          await this.store.put({ ...current, attempts: current.attempts + 1, lastError: message, failed: true });
        failed++;
      }
    }
    return { sent, pending: 0, failed, stoppedBy: null };
  }
}

/** An in-memory store (tests, and a page without IndexedDB). */
export class MemoryOutboxStore implements OutboxStore {
  readonly map = new Map<string, OutboxEntry>();
  async all() {
    return [...this.map.values()].map((entry) => structuredClone(entry));
  }
  async get(key: string) {
    const entry = this.map.get(key);
    return entry && structuredClone(entry);
  }
  async put(entry: OutboxEntry) {
    this.map.set(entry.key, structuredClone(entry));
  }
  async remove(key: string, revision: number) {
    if (this.map.get(key)?.revision === revision) this.map.delete(key);
  }
}
