// The SQL bundles this server serves (supabase/bundles, committed) and the expected catalog beside
// them, read from disk on each use so what the console shows is what a download gives.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundlesDir } from '#db/paths.ts';
import { BUNDLES } from '#db/bundles/build.ts';
import { readExpectedCatalog, type ExpectedCatalog } from '#db/bundles/expected-catalog.ts';
import { GatewayError } from '../../http-errors.ts';

/** The bundles apply-sql may run by name (app-complete.sql is for fresh installs: download it). */
export const APPLICABLE_BUNDLES = ['community-patch-v6', 'leaderboard-rls-fix'] as const;
export type ApplicableBundle = (typeof APPLICABLE_BUNDLES)[number];

export interface ServedBundle {
  file: string;
  purpose: string;
  version: string;
  sql: string;
  bytes: number;
  sha256: string;
  migrations: string[];
  applicable: boolean;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export async function readServedBundleText(file: string): Promise<string> {
  if (!BUNDLES.some((bundle) => bundle.file === file))
    throw new GatewayError(404, 'bundle_not_found', `There is no bundle named ${file}.`);
  try {
    return await readFile(path.join(bundlesDir, file), 'utf8');
  } catch {
    throw new GatewayError(404, 'bundle_not_found', `${file} is missing from supabase/bundles; run npm run db:bundle.`);
  }
}

export async function readExpected(): Promise<ExpectedCatalog> {
  try {
    return await readExpectedCatalog();
  } catch (error) {
    throw new GatewayError(
      500,
      'expected_catalog_unreadable',
      `supabase/bundles/expected-catalog.json cannot be read (${(error as Error).message.slice(0, 200)}); run npm run db:bundle.`,
    );
  }
}

export async function readServedBundles(expected: ExpectedCatalog): Promise<ServedBundle[]> {
  return Promise.all(
    expected.bundles.map(async (entry) => {
      const sql = await readServedBundleText(entry.file);
      return {
        file: entry.file,
        purpose: BUNDLES.find((bundle) => bundle.file === entry.file)?.purpose ?? '',
        version: entry.version,
        sql,
        bytes: Buffer.byteLength(sql),
        sha256: sha256(sql),
        migrations: entry.migrations,
        applicable: (APPLICABLE_BUNDLES as readonly string[]).includes(entry.file.replace(/\.sql$/, '')),
      };
    }),
  );
}
