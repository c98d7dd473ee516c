// A copy of a live Postgres data directory that Postgres can open, taken without stopping it: what a
// machine would find on its disk after a power cut, so that crash recovery on the copy restores
// every transaction committed before the copy began.
//
// Why the order below makes it safe, as a base backup is: Postgres writes a page to its data file
// only after the WAL describing the change is written (WAL before data), and with full_page_writes
// the first change to any page after a checkpoint puts the whole page in the WAL. So:
//   1. pg_control first: it names the checkpoint that recovery replays from, one no later than any
//      page copied after it.
//   2. The data files, while Postgres may still be writing them: a page copied half-written is
//      replaced by its full image when recovery replays the WAL.
//   3. The WAL last: it holds every record that any copied page depends on, and a commit record
//      for every transaction that had committed before step 1.
// A torn record at the WAL's end (one being written during the copy) ends recovery there: it is
// from a transaction that had not committed. The one case this cannot cover is a checkpoint that
// completes and removes old WAL during the copy; then recovery refuses to open the copy, which the
// caller must treat as "no copy" (snapshot-reads.ts does).
import { copyFile, cp, mkdir } from 'node:fs/promises';
import path from 'node:path';

export async function copyCrashImage(pgdata: string, target: string): Promise<void> {
  const control = path.join(pgdata, 'global', 'pg_control');
  const wal = path.join(pgdata, 'pg_wal');
  await mkdir(path.join(target, 'global'), { recursive: true });
  await copyFile(control, path.join(target, 'global', 'pg_control'));
  await cp(pgdata, target, {
    recursive: true,
    filter: (source) => source !== control && source !== wal && !source.startsWith(wal + path.sep),
  });
  await cp(wal, path.join(target, 'pg_wal'), { recursive: true });
}
