// Benchmark: a signed-URL download beside a public download of the same object from localbase,
// for a 10 KiB and a 1 MiB object, on PGlite (the calls alternate in rounds within one run, so
// both see the same machine). A signed download verifies its token (HS256) and reads the row as the
// owner; a public one reads the bucket and the row as the owner. Prints downloads per second, p50
// and p99 of each, and the signed/public ratio of the medians (target: within 1.2x). Not a test:
// it never fails on a time.
//   node --import tsx tools/bench/storage-signed.bench.ts [--calls 300] [--concurrency 4] [--rounds 3]
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@supabase/supabase-js';
import ws from 'ws';
import { z } from 'zod';
import { startLocalbase } from '#localbase';
import { openParityDatabase } from '../testing/parity-database.ts';

const options = z
  .object({
    calls: z.coerce.number().int().min(10).max(100_000),
    concurrency: z.coerce.number().int().min(1).max(100),
    rounds: z.coerce.number().int().min(1).max(20),
  })
  .parse(
    parseArgs({
      options: {
        calls: { type: 'string', default: '300' },
        concurrency: { type: 'string', default: '4' },
        rounds: { type: 'string', default: '3' },
      },
    }).values,
  );

interface Stats {
  perSecond: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

/** `calls` downloads over `concurrency` workers, each read to its last byte; latencies in ms. */
async function measure(url: string, size: number): Promise<Stats> {
  const latencies: number[] = [];
  let remaining = options.calls;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (remaining > 0) {
        remaining -= 1;
        const t0 = performance.now();
        const response = await fetch(url);
        const body = await response.arrayBuffer();
        if (response.status !== 200 || body.byteLength !== size) throw new Error(`bad download: ${response.status}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: options.calls / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const dataDir = await mkdtemp(path.join(os.tmpdir(), 'storage-signed-bench-'));
const database = await openParityDatabase();
const localbase = await startLocalbase({ dataDir, database, port: 0, logger: false });
try {
  const service = createClient(localbase.url, localbase.serviceRoleKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: ws as never },
  });
  const bucket = service.storage.from('avatars');
  console.log(
    `storage-signed: ${options.calls} downloads per row, concurrency ${options.concurrency}, ${options.rounds} alternating rounds, ${database.kind}`,
  );
  console.log('| object | download | downloads/s | p50 ms | p99 ms |');
  console.log('|---|---|---:|---:|---:|');
  for (const [label, size] of [
    ['10 KiB', 10 * 1024],
    ['1 MiB', 1024 * 1024],
  ] as const) {
    const name = `bench/${size}.png`;
    const bytes = new Uint8Array(size).map((_, index) => index % 251);
    const uploaded = await bucket.upload(name, new Blob([bytes], { type: 'image/png' }), { upsert: true });
    if (uploaded.error) throw uploaded.error;
    const signed = await bucket.createSignedUrl(name, 3600);
    if (signed.error) throw signed.error;
    const urls = { signed: signed.data.signedUrl, public: bucket.getPublicUrl(name).data.publicUrl };
    for (const url of Object.values(urls)) await measure(url, size); // warm-up: JIT, caches, the file cache
    const rounds: Record<'signed' | 'public', Stats[]> = { signed: [], public: [] };
    for (let round = 0; round < options.rounds; round++) {
      rounds.public.push(await measure(urls.public, size));
      rounds.signed.push(await measure(urls.signed, size));
    }
    const summary = (kind: 'signed' | 'public'): Stats => ({
      perSecond: median(rounds[kind].map((stats) => stats.perSecond)),
      p50: median(rounds[kind].map((stats) => stats.p50)),
      p99: median(rounds[kind].map((stats) => stats.p99)),
    });
    for (const kind of ['public', 'signed'] as const) {
      const stats = summary(kind);
      console.log(
        `| ${label} | ${kind} | ${stats.perSecond.toFixed(0)} | ${stats.p50.toFixed(3)} | ${stats.p99.toFixed(3)} |`,
      );
    }
    const ratio = summary('signed').p50 / summary('public').p50;
    const throughput = summary('public').perSecond / summary('signed').perSecond;
    console.log(
      `| ${label} | signed/public | p50 ${ratio.toFixed(2)}x | time per download ${throughput.toFixed(2)}x | |`,
    );
  }
} finally {
  await localbase.close();
  await database.close();
  await rm(dataDir, { recursive: true, force: true });
}
