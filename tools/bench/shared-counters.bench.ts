// Shared counters benchmark (not a test; it prints figures): what counting a request in the database
// costs a server of a district, against @fastify/rate-limit's own in-memory store.
//   1. one rate-limit hit (gateway_hit_rate_window), p50/p99 of sequential calls, one server;
//   2. the same with two servers on one database, both counting at once (8 calls in flight each),
//      half of the hits on keys both servers share;
//   3. one password attempt begun and settled (gateway_begin/settle_password_attempt), one server;
//   4. a hit through the in-memory store, for comparison.
// Every call goes through the gateway's own SharedState over localbase's pool, as a request does.
// Run: node --import tsx tools/bench/shared-counters.bench.ts [--quick]
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { sharedKey, type SharedState } from '#gateway/src/district/shared-state.ts';
import { startDistrict } from '../testing/district-servers.ts';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 500 : 3_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

function summary(label: string, samples: number[]): void {
  const sorted = [...samples].sort((left, right) => left - right);
  const format = (ms: number) => `${ms.toFixed(3)} ms`;
  console.log(
    `${label.padEnd(58)} n=${String(sorted.length).padStart(5)}  p50 ${format(percentile(sorted, 50))}  p99 ${format(percentile(sorted, 99))}`,
  );
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** calls sequential hits, or `inFlight` concurrent lanes of them; one address in 50 repeats. */
async function hits(state: SharedState, prefix: string, calls: number, inFlight = 1): Promise<number[]> {
  const samples: number[] = [];
  let next = 0;
  const lane = async () => {
    while (next < calls) {
      const index = next;
      next += 1;
      const key = sharedKey('rate-limit', `credentials:${prefix}-${index % 50}`);
      samples.push(await timed(() => state.call('gateway_hit_rate_window', { p_key: key, p_window_ms: 60_000 })));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  return samples;
}

async function passwordAttempts(state: SharedState, calls: number): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < calls; index += 1) {
    const account = sharedKey('account-login', `student-${index % 50}@example.com`);
    samples.push(
      await timed(async () => {
        const begun = (await state.call('gateway_begin_password_attempt', {
          p_account: account,
          p_max: 1_000,
          p_window_ms: 900_000,
          p_attempt_ms: 60_000,
        })) as { generation?: number };
        await state.call('gateway_settle_password_attempt', {
          p_account: account,
          p_generation: begun.generation ?? 1,
          p_wrong_password: false,
          p_window_ms: 900_000,
        });
      }),
    );
  }
  return samples;
}

async function inMemoryHits(calls: number): Promise<number[]> {
  const app = Fastify();
  await app.register(rateLimit, { global: false });
  const limiter = app.createRateLimit({ max: 1_000_000, timeWindow: 60_000, keyGenerator: () => 'one' });
  await app.ready();
  const samples: number[] = [];
  for (let index = 0; index < calls; index += 1)
    samples.push(await timed(() => limiter({ ip: `10.0.0.${index % 50}`, routeOptions: { config: {} } } as never)));
  await app.close();
  return samples;
}

const district = await startDistrict({ servers: 2 });
try {
  const [a, b] = district.servers;
  if (!a || !b) throw new Error('the district did not start two servers');
  // Warm both pools and the plans.
  await hits(a.sharedState, 'warm-a', 200);
  await hits(b.sharedState, 'warm-b', 200);

  console.log(`shared counters: ${CALLS} calls per figure, PostgreSQL ${district.databaseUrl.split('@')[1]}`);
  summary('in-memory store (@fastify/rate-limit), one hit', await inMemoryHits(CALLS));
  summary('shared rate-limit hit, one server, sequential', await hits(a.sharedState, 'one', CALLS));
  summary('shared rate-limit hit, one server, 8 in flight', await hits(a.sharedState, 'one-8', CALLS, 8));
  const [onA, onB] = await Promise.all([hits(a.sharedState, 'both', CALLS, 8), hits(b.sharedState, 'both', CALLS, 8)]);
  summary('shared rate-limit hit, two servers at once, 8 in flight each', [...onA, ...onB]);
  summary('password attempt begun and settled, one server', await passwordAttempts(a.sharedState, CALLS));
} finally {
  await district.close();
}
