// The device's copy of a student's data: one IndexedDB database per account, so two students on
// one browser never see each other's records, and signing out keeps a student's data for later.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { AppSettings, Profile, StudySession, Subject, Task } from './model.ts';
import type { OutboxEntry, OutboxStore } from './outbox.ts';
import type { TimerState } from './timer.ts';

export interface KvValues {
  timer: TimerState;
  settings: AppSettings;
  profile: Profile;
  /** When the last cloud snapshot was stored (ms epoch). */
  lastSnapshotAt: number;
  /** The student chose not to restore the offered backup. */
  restoreDeclined: boolean;
  /**
   * When the timer settings on this device last changed (ms epoch): by the student here, or to the
   * server's values (its timer_updated_at). Unset: never chosen here, the server's win.
   */
  timerUpdatedAt: number;
  /** The subjects this device held before subjects reached the server were sent up once. */
  subjectsUploaded: boolean;
}

interface StudyhallDb extends DBSchema {
  subjects: { key: string; value: Subject };
  tasks: { key: string; value: Task };
  sessions: { key: string; value: StudySession; indexes: { byStart: number } };
  outbox: { key: string; value: OutboxEntry };
  kv: { key: string; value: unknown };
}

export type Db = IDBPDatabase<StudyhallDb>;

export function openStudentDb(userId: string): Promise<Db> {
  return openDB<StudyhallDb>(`studyhall-${userId}`, 1, {
    upgrade(db) {
      db.createObjectStore('subjects', { keyPath: 'id' });
      db.createObjectStore('tasks', { keyPath: 'id' });
      db.createObjectStore('sessions', { keyPath: 'id' }).createIndex('byStart', 'startedAt');
      db.createObjectStore('outbox', { keyPath: 'key' });
      db.createObjectStore('kv');
    },
  });
}

export async function readKv<K extends keyof KvValues>(db: Db, key: K): Promise<KvValues[K] | undefined> {
  return (await db.get('kv', key)) as KvValues[K] | undefined;
}

export async function writeKv<K extends keyof KvValues>(db: Db, key: K, value: KvValues[K]): Promise<void> {
  await db.put('kv', value, key);
}

export class IdbOutboxStore implements OutboxStore {
  constructor(private readonly db: Db) {}
  all() {
    return this.db.getAll('outbox');
  }
  get(key: string) {
    return this.db.get('outbox', key);
  }
  async put(entry: OutboxEntry) {
    await this.db.put('outbox', entry);
  }
  async remove(key: string, revision: number) {
    const tx = this.db.transaction('outbox', 'readwrite');
    const current = await tx.store.get(key);
    if (current?.revision === revision) await tx.store.delete(key);
    await tx.done;
  }
}
