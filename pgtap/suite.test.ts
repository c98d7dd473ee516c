// The suite's layout is what `supabase test db` needs: every pgTAP file under supabase/tests (one
// copy, nowhere else), listed in pg_prove's order, with the helpers' setup first and their
// teardown last. (That pg_prove itself lists them in this order is checked in test:pg.)
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, supabaseTestsDir } from '#db/paths.ts';
import { listSuiteFiles, readSuite, SETUP_FILE, TEARDOWN_FILE } from './suite.ts';

const scratchDirs: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-suite-'));
  scratchDirs.push(dir);
  for (const [name, sql] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), sql);
  }
  return dir;
}

afterEach(async () => {
  while (scratchDirs.length > 0) await rm(scratchDirs.pop() as string, { recursive: true, force: true });
});

const SKIPPED_DIRS = new Set(['node_modules', '.git', '.tmp', '.data', 'dist']);

/** Every .sql file in the repository that declares a pgTAP plan. */
async function pgtapFilesInRepo(dir = repoRoot): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) found.push(...(await pgtapFilesInRepo(full)));
    else if (
      entry.isFile() &&
      entry.name.endsWith('.sql') &&
      /\bselect\s+plan\s*\(/i.test(await readFile(full, 'utf8'))
    ) {
      found.push(path.relative(repoRoot, full).split(path.sep).join('/'));
    }
  }
  return found;
}

describe('the pgTAP suite layout', () => {
  it('lists .sql and .pg files at any depth, in byte order of their paths, as pg_prove -r does', async () => {
    const dir = await tree({
      'zzz.sql': '',
      'database/01-a.test.sql': '',
      'database/1.pg': '',
      'database/readme.txt': '',
      'B/x.sql': '',
      'a/y.sql': '',
      '000-x.sql': '',
      'Z.sql': '',
      'notes.md': '',
    });
    expect(listSuiteFiles(dir)).toEqual([
      '000-x.sql',
      'B/x.sql',
      'Z.sql',
      'a/y.sql',
      'database/01-a.test.sql',
      'database/1.pg',
      'zzz.sql',
    ]);
  });

  it('has the setup first, the teardown last and the tests under database/ in between', () => {
    const suite = readSuite();
    expect(suite.setup.name).toBe(SETUP_FILE);
    expect(suite.teardown.name).toBe(TEARDOWN_FILE);
    expect(suite.tests.length).toBeGreaterThan(0);
    expect(suite.tests.every((file) => file.name.startsWith('database/'))).toBe(true);
  });

  it('refuses a folder where another file would run before the setup or after the teardown', async () => {
    const before = await tree({ [SETUP_FILE]: '', [TEARDOWN_FILE]: '', '00-early.sql': '' });
    expect(() => readSuite(before)).toThrow(/must be the first file/);
    const after = await tree({ [SETUP_FILE]: '', [TEARDOWN_FILE]: '', 'zzzz-late.sql': '' });
    expect(() => readSuite(after)).toThrow(/must be the last file/);
  });

  it('commits the helpers: the setup file creates them before its own transaction begins', () => {
    const { setup } = readSuite();
    const begin = setup.sql.search(/^begin;/m);
    expect(begin).toBeGreaterThan(setup.sql.indexOf('create schema if not exists tests'));
    expect(setup.sql.slice(0, begin)).toMatch(/create or replace function tests\.authenticate_as\(/);
    expect(setup.sql.slice(begin)).toMatch(/select plan\(\d+\);[\s\S]*select \* from finish\(\);\s*rollback;\s*$/);
  });

  it("wraps every test file in its own begin ... rollback, so no file sees another's data", () => {
    for (const file of readSuite().tests) {
      expect(file.sql, file.name).toMatch(/^begin;$/m);
      expect(file.sql.trimEnd(), file.name).toMatch(/\nrollback;$/);
      expect(file.sql, file.name).not.toMatch(/^\s*commit\s*;/im);
    }
  });

  it("keeps one copy of each pgTAP file: none outside supabase/tests but the runner's own fixtures", async () => {
    const outside = (await pgtapFilesInRepo()).filter(
      (file) =>
        !file.startsWith(`${path.relative(repoRoot, supabaseTestsDir)}/`) && !file.startsWith('pgtap/fixtures/'),
    );
    expect(outside).toEqual([]);
  });
});
