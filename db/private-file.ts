// Files in the data directory that hold secrets (signing keys, VAPID keys).
import { chmod, rename, writeFile } from 'node:fs/promises';

/** Writes a file only its owner can read, through a temp file so a reader never sees half of it. */
export async function writePrivateFile(file: string, content: string): Promise<void> {
  const partial = `${file}.${process.pid}.partial`;
  await writeFile(partial, content, { mode: 0o600 });
  await chmod(partial, 0o600);
  await rename(partial, file);
}
