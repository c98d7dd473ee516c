// What the storage page shows: every object with its owner and, when prunable, why; totals per
// user and bucket. A user is the object's owner (the uploader) or, failing that, its folder.
import type { BackendClient } from '../../backend/backend-client.ts';
import { listAccounts } from '../backend-users.ts';
import { prunableObjects, readShownAvatars } from './prunable.ts';
import { listStoredObjects, type StoredObject } from './stored-objects.ts';

export interface ReportedObject extends StoredObject {
  user: string;
  /** Why it is prunable, or null. */
  prunable: string | null;
}

export interface StorageReport {
  objects: ReportedObject[];
  per_user: Array<{
    user: string;
    email: string | null;
    bucket: string;
    objects: number;
    bytes: number;
    prunable_objects: number;
    prunable_bytes: number;
  }>;
  totals: { objects: number; bytes: number; prunable_objects: number; prunable_bytes: number };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function readStorageReport(backend: BackendClient): Promise<StorageReport> {
  const [objects, avatars, accounts] = await Promise.all([
    listStoredObjects(backend),
    readShownAvatars(backend),
    listAccounts(backend),
  ]);
  const prunable = prunableObjects(objects, avatars);
  const emails = new Map(accounts.map((account) => [account.id, account.email]));
  const reported = objects.map((object) => {
    const folder = object.name.split('/')[0] ?? '';
    return {
      ...object,
      user: object.owner ?? (UUID.test(folder) ? folder : 'unowned'),
      prunable: prunable.get(object.id) ?? null,
    };
  });
  const rows = new Map<string, StorageReport['per_user'][number]>();
  for (const object of reported) {
    const key = `${object.user}\n${object.bucket}`;
    const row = rows.get(key) ?? {
      user: object.user,
      email: emails.get(object.user) ?? null,
      bucket: object.bucket,
      objects: 0,
      bytes: 0,
      prunable_objects: 0,
      prunable_bytes: 0,
    };
    row.objects += 1;
    row.bytes += object.bytes;
    if (object.prunable) {
      row.prunable_objects += 1;
      row.prunable_bytes += object.bytes;
    }
    rows.set(key, row);
  }
  const perUser = [...rows.values()].sort(
    (a, b) => (a.email ?? a.user).localeCompare(b.email ?? b.user) || a.bucket.localeCompare(b.bucket),
  );
  const sum = (pick: (row: StorageReport['per_user'][number]) => number) =>
    perUser.reduce((total, row) => total + pick(row), 0);
  return {
    objects: reported,
    per_user: perUser,
    totals: {
      objects: sum((row) => row.objects),
      bytes: sum((row) => row.bytes),
      prunable_objects: sum((row) => row.prunable_objects),
      prunable_bytes: sum((row) => row.prunable_bytes),
    },
  };
}
