// Warm open of the embedded database with the platform stand-in skipped (its files unchanged, the
// default) against re-applied (the recorded digest made stale first, as before the skip existed),
// interleaved run by run on one DATA_DIR. Prints wall and CPU time of openDatabase() for each.
//   node --import tsx tools/bench/platform-skip.bench.ts [--runs 6]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '#db/database.ts';
import { MIGRATIONS_SCHEMA, PLATFORM_TABLE } from '#db/migrate.ts';

const runsIndex = process.argv.indexOf('--runs');
const runs = runsIndex > 0 ? Number(process.argv[runsIndex + 1]) : 6;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timedOpen(dataDir: string, stale: boolean): Promise<{ wallMs: number; cpuMs: number }> {
  if (stale) {
    const database = await openDatabase({ dataDir });
    await database.pool.query(`update ${MIGRATIONS_SCHEMA}.${PLATFORM_TABLE} set digest = 'stale'`);
    await database.close();
  }
  const cpu = process.cpuUsage();
  const started = performance.now();
  const database = await openDatabase({ dataDir });
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (database.migrations.platformApplied !== stale) throw new Error('the platform was not applied as intended');
  await database.close();
  return { wallMs, cpuMs: (used.user + used.system) / 1000 };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'platform-skip-'));
try {
  await (await openDatabase({ dataDir })).close(); // cold: initdb and every migration
  const skipped: Array<{ wallMs: number; cpuMs: number }> = [];
  const applied: Array<{ wallMs: number; cpuMs: number }> = [];
  for (let run = 0; run < runs; run++) {
    applied.push(await timedOpen(dataDir, true));
    skipped.push(await timedOpen(dataDir, false));
  }
  const line = (name: string, samples: typeof skipped) =>
    `${name.padEnd(9)} warm open: wall median ${median(samples.map((s) => s.wallMs)).toFixed(0)} ms, CPU median ${median(samples.map((s) => s.cpuMs)).toFixed(0)} ms (${runs} runs)`;
  console.log(line('applied', applied));
  console.log(line('skipped', skipped));
  console.log(
    `skipped/applied: wall ${(median(skipped.map((s) => s.wallMs)) / median(applied.map((s) => s.wallMs))).toFixed(2)}, CPU ${(median(skipped.map((s) => s.cpuMs)) / median(applied.map((s) => s.cpuMs))).toFixed(2)}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
