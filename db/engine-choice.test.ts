// Which engine a DATA_DIR runs on: PostgreSQL by default, PGlite when asked, and PGlite kept for a
// DATA_DIR that holds a PGlite database and no cluster yet (never a start on an empty database).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clusterDir } from './embedded-postgres.ts';
import { chooseEngine, pgliteDir } from './engine-choice.ts';

let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'studyhall-choice-'));
});

afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

async function markCluster(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'PG_VERSION'), '15\n');
}

describe('the engine of a DATA_DIR', () => {
  it('is PostgreSQL for a new DATA_DIR, and PGlite when LOCALBASE_ENGINE says so', () => {
    expect(chooseEngine(dataDir, undefined)).toEqual({ engine: 'postgres' });
    expect(chooseEngine(dataDir, 'postgres')).toEqual({ engine: 'postgres' });
    expect(chooseEngine(dataDir, 'pglite')).toEqual({ engine: 'pglite' });
  });

  it('keeps PGlite for a DATA_DIR holding a PGlite database and no cluster, saying how to move it', async () => {
    await markCluster(pgliteDir(dataDir));
    for (const setting of [undefined, 'postgres'] as const) {
      const choice = chooseEngine(dataDir, setting);
      expect(choice).toMatchObject({ engine: 'pglite', legacyData: true });
      expect(choice.engine === 'pglite' && choice.notice).toContain('npm run db:move-to-postgres');
    }
  });

  it('prefers the cluster once it exists, though the PGlite files are still there', async () => {
    await markCluster(pgliteDir(dataDir));
    await markCluster(clusterDir(dataDir));
    expect(chooseEngine(dataDir, undefined)).toEqual({ engine: 'postgres' });
  });
});
