// Which stored objects are prunable, by one rule the storage page states in full:
// - avatars: every file in a user's folder except the one their profile shows and the newest;
// - backups: snapshot files beyond the newest KEEP_SNAPSHOT_FILES of each user (every snapshot is
//   also stored as a backup row, which stays);
// - group icons and study material: never (they are what groups and students chose to keep).
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import type { StoredObject } from './stored-objects.ts';

export const KEEP_SNAPSHOT_FILES = 5;

export const PRUNE_RULE =
  `Avatars: every file in a user's avatars folder except the one their profile shows and the newest one. ` +
  `Backups: snapshot files beyond the newest ${KEEP_SNAPSHOT_FILES} of each user (each snapshot is also stored as a backup row, which stays). ` +
  'Group icons and study material are never pruned.';

const folderOf = (name: string) => name.split('/')[0] ?? '';
const byNewest = (a: StoredObject, b: StoredObject) =>
  Date.parse(b.created_at) - Date.parse(a.created_at) || b.name.localeCompare(a.name);

/** The object name an avatar URL points to (`.../object/public/avatars/<name>`), if it is one of ours. */
export function avatarObjectName(avatarUrl: string | null): string | undefined {
  if (!avatarUrl) return undefined;
  const marker = '/object/public/avatars/';
  const at = avatarUrl.indexOf(marker);
  if (at === -1) return undefined;
  try {
    return avatarUrl
      .slice(at + marker.length)
      .split('?')[0]
      ?.split('/')
      .map(decodeURIComponent)
      .join('/');
  } catch {
    return undefined;
  }
}

/** object id -> why it is prunable. */
export function prunableObjects(
  objects: StoredObject[],
  avatarByUser: Map<string, string | undefined>,
): Map<string, string> {
  const prunable = new Map<string, string>();
  const groups = new Map<string, StoredObject[]>();
  for (const object of objects) {
    const key = `${object.bucket}\n${folderOf(object.name)}`;
    groups.set(key, [...(groups.get(key) ?? []), object]);
  }
  for (const [key, members] of groups) {
    const [bucket, folder] = key.split('\n') as [string, string];
    const sorted = [...members].sort(byNewest);
    if (bucket === 'avatars') {
      const shown = avatarByUser.get(folder);
      for (const object of sorted.slice(1)) {
        if (object.name !== shown) prunable.set(object.id, 'an older avatar, not the one the profile shows');
      }
    } else if (bucket === 'backups') {
      const snapshots = sorted.filter((object) => object.name.startsWith(`${folder}/snapshots/`));
      for (const object of snapshots.slice(KEEP_SNAPSHOT_FILES)) {
        prunable.set(object.id, `a snapshot file older than the newest ${KEEP_SNAPSHOT_FILES}`);
      }
    }
  }
  return prunable;
}

const profileRow = z.object({ user_id: z.string(), avatar_url: z.string().nullable() });

/** user id -> the avatar object their profile shows. */
export async function readShownAvatars(backend: BackendClient): Promise<Map<string, string | undefined>> {
  const shown = new Map<string, string | undefined>();
  for (let offset = 0; ; offset += 1000) {
    const rows = z.array(profileRow).parse(
      await backend.select(`user_profiles?select=user_id,avatar_url&order=user_id.asc&limit=1000&offset=${offset}`, {
        serviceRole: true,
      }),
    );
    for (const row of rows) shown.set(row.user_id, avatarObjectName(row.avatar_url));
    if (rows.length < 1000) return shown;
  }
}
