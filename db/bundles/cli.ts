// `npm run db:bundle` writes supabase/bundles/*.sql and the expected catalog beside them
// (expected-catalog.json, which the admin console's verify page compares a project with);
// `npm run db:bundle -- --check` only reports drift.
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { bundlesDir } from '../paths.ts';
import { buildBundles } from './build.ts';
import { EXPECTED_CATALOG_FILE, renderExpectedCatalog } from './expected-catalog.ts';
import { generateExpectedCatalog } from './generate-expected-catalog.ts';

async function main(): Promise<void> {
  const checkOnly = process.argv.includes('--check');
  const bundles = await buildBundles();
  const outputs = new Map(bundles);
  outputs.set(EXPECTED_CATALOG_FILE, renderExpectedCatalog(await generateExpectedCatalog(bundles)));
  const existing = (await readdir(bundlesDir)).filter((name) => name.endsWith('.sql'));
  const drifted: string[] = [];
  for (const [file, content] of outputs) {
    const target = path.join(bundlesDir, file);
    const current = await readFile(target, 'utf8').catch(() => null);
    if (current === content) continue;
    drifted.push(file);
    if (!checkOnly) await writeFile(target, content);
  }
  for (const stale of existing.filter((name) => !bundles.has(name))) {
    drifted.push(stale);
    if (!checkOnly) await rm(path.join(bundlesDir, stale));
  }
  if (checkOnly && drifted.length > 0) {
    console.error(`db:bundle: out of date: ${drifted.join(', ')} (run npm run db:bundle)`);
    process.exit(1);
  }
  console.log(drifted.length === 0 ? 'db:bundle: bundles are up to date' : `db:bundle: wrote ${drifted.join(', ')}`);
}

await main();
