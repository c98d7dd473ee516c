// The committed bundles and the expected catalog beside them must be exactly what the builder
// produces from the migrations.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlesDir } from '../paths.ts';
import { buildBundles } from './build.ts';
import {
  EXPECTED_CATALOG_FILE,
  expectedCatalogPath,
  readExpectedCatalog,
  renderExpectedCatalog,
} from './expected-catalog.ts';
import { generateExpectedCatalog } from './generate-expected-catalog.ts';

describe('committed SQL bundles', async () => {
  const built = await buildBundles();

  it('exist for every bundle that has content, and nothing else is there', async () => {
    const committed = (await readdir(bundlesDir)).filter((name) => name.endsWith('.sql')).sort();
    expect(committed).toEqual([...built.keys()].sort());
  });

  for (const [file, sql] of built) {
    it(`${file} matches the migrations (run npm run db:bundle after changing one)`, async () => {
      const committed = await readFile(path.join(bundlesDir, file), 'utf8');
      expect(committed === sql, `${file} has drifted from supabase/migrations`).toBe(true);
    });
  }

  it(`${EXPECTED_CATALOG_FILE} matches the catalog the migrations produce (run npm run db:bundle)`, async () => {
    const committed = await readFile(expectedCatalogPath, 'utf8');
    const generated = renderExpectedCatalog(await generateExpectedCatalog(built));
    expect(committed === generated, `${EXPECTED_CATALOG_FILE} has drifted from supabase/migrations`).toBe(true);
    // And it reads back as a valid expected catalog.
    await expect(readExpectedCatalog()).resolves.toMatchObject({ patch: { bundle: 'community-patch-v6.sql' } });
  }, 180_000);
});
