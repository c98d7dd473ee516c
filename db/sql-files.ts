// Reading the ordered SQL sources: platform stand-in files and Supabase-CLI-named migrations.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir, platformDir } from './paths.ts';

export interface SqlFile {
  name: string;
  path: string;
  sql: string;
}

/** Supabase CLI naming: `<yyyymmddhhmmss>_<name>.sql`. */
export const MIGRATION_NAME = /^(\d{14})_([a-z0-9_]+)\.sql$/;

async function readSqlDir(dir: string, accept: (name: string) => boolean): Promise<SqlFile[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.sql') && accept(name)).sort();
  return Promise.all(
    names.map(async (name) => ({
      name,
      path: path.join(dir, name),
      sql: await readFile(path.join(dir, name), 'utf8'),
    })),
  );
}

export function readPlatformFiles(): Promise<SqlFile[]> {
  return readSqlDir(platformDir, () => true);
}

export async function readMigrationFiles(): Promise<SqlFile[]> {
  const all = await readSqlDir(migrationsDir, () => true);
  const misnamed = all.filter((file) => !MIGRATION_NAME.test(file.name));
  if (misnamed.length > 0) {
    throw new Error(
      `migration files must be named <yyyymmddhhmmss>_<name>.sql: ${misnamed.map((f) => f.name).join(', ')}`,
    );
  }
  return all;
}
