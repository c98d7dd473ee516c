// Benchmark (not a test; it prints figures measured side by side in one run): what one student's
// runaway statement costs everybody else. A student keeps a backtracking regular expression
// (`payload->>s=match.^(.*)\1$` on a 60,000-character backup) running for 20 s through the gateway,
// sending it again each time it is cut at the statement timeout (authenticated: 8 s). Meanwhile, at
// a steady pace, `GET /__app/ping` and another student's `/rest/v1` read go through the same
// gateway, 100 each, every request timed on its own (sent on schedule, never waiting for the one
// before, so a stall shows in every request it delays). The same before the attack, as the
// baseline. On the embedded PostgreSQL 15 (the default engine, db/embedded-postgres.ts), on PGlite
// in its worker thread, and on request on Debian's PostgreSQL 15 (`debian`, needs PG_BINDIR); see
// README-statement-timeout.md.
// Run: node --import tsx tools/bench/statement-timeout.bench.ts [--seconds 20] [--requests 100]
//        [--engines embedded,pglite,debian]
import os from 'node:os';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { buildGateway } from '#gateway/src/app.ts';
import { makeFixtureRepo, makeTempDir, testConfig } from '#gateway/test/helpers.ts';
import { EMBEDDED_POOL_SIZE, MEMORY, openDatabase, type Database } from '#db/database.ts';
import { STATEMENT_TIMEOUTS_MS } from '#localbase';
import { startCluster } from '../pg/cluster.ts';
import { startLocalbaseStack } from '../testing/localbase-stack.ts';
import { testDatabaseSnapshot } from '../testing/test-database.ts';

const options = z
  .object({
    seconds: z.coerce.number().min(1).max(300),
    requests: z.coerce.number().int().min(10).max(10_000),
    engines: z
      .string()
      .transform((list) => list.split(','))
      .pipe(z.array(z.enum(['embedded', 'pglite', 'debian'])).min(1)),
  })
  .parse(
    parseArgs({
      options: {
        seconds: { type: 'string', default: '20' },
        requests: { type: 'string', default: '100' },
        engines: { type: 'string', default: 'embedded,pglite' },
      },
    }).values,
  );

const LONG_STRING_LENGTH = 60_000;
const ATTACK_PATH = `/__backend/rest/v1/user_backups?select=id&payload->>s=match.${encodeURIComponent('^(.*)\\1$')}`;
const READ_PATH = '/__backend/rest/v1/user_backups?select=id,richness';

interface Timed {
  ms: number;
  status: number;
  /** The SQLSTATE of an error answer (`code` of PostgREST's body), e.g. 57014. */
  code?: string;
}

/** The nearest-rank percentile: the smallest value at or above `fraction` of the values (p99 of 100: the 99th). */
function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.max(0, Math.ceil(sorted.length * fraction) - 1)] ?? Number.NaN;
}

async function timed(url: string, token?: string): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, token ? { headers: { authorization: `Bearer ${token}` } } : {}).catch(
    () => undefined,
  );
  const body = (await response?.text()) ?? '';
  const ms = performance.now() - started;
  const status = response?.status ?? 0;
  if (status < 400) return { ms, status };
  const code = /"code"\s*:\s*"([^"]+)"/.exec(body)?.[1];
  return { ms, status, ...(code ? { code } : {}) };
}

/** `count` requests sent evenly over `spanMs`, each on its schedule whatever the others do. */
async function paced(count: number, spanMs: number, send: () => Promise<Timed>): Promise<Timed[]> {
  const interval = spanMs / count;
  return Promise.all(
    Array.from(
      { length: count },
      (_, index) => new Promise<Timed>((resolve) => setTimeout(() => resolve(send()), index * interval)),
    ),
  );
}

function summary(label: string, results: Timed[]): string {
  const sorted = results.map((result) => result.ms).sort((a, b) => a - b);
  const statuses = new Map<number, number>();
  for (const { status } of results) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  const statusText = [...statuses].map(([status, count]) => `${count}x${status}`).join(' ');
  const over = sorted.filter((ms) => ms >= 100).length;
  return `${label.padEnd(34)} p50 ${percentile(sorted, 0.5).toFixed(1).padStart(8)} ms  p90 ${percentile(sorted, 0.9).toFixed(1).padStart(8)} ms  p99 ${percentile(sorted, 0.99).toFixed(1).padStart(8)} ms  max ${(sorted.at(-1) ?? 0).toFixed(1).padStart(8)} ms  ${over} at 100 ms or more  ${statusText}`;
}

async function signUp(gatewayUrl: string, name: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/__auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: `${name}-${process.pid}@example.com`, password: `${name}-password-1` }),
  });
  if (response.status !== 201) throw new Error(`signup: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { session: { access_token: string } }).session.access_token;
}

async function storeBackup(gatewayUrl: string, token: string, payload: object): Promise<void> {
  const response = await fetch(`${gatewayUrl}/__auth/backup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ payload }),
  });
  if (response.status >= 300) throw new Error(`backup: ${response.status} ${await response.text()}`);
}

async function runEngine(engine: string, database: Database): Promise<void> {
  const temp = await makeTempDir('bench-timeout');
  const localbase = await startLocalbaseStack({ database });
  const { app } = await buildGateway({
    config: testConfig(`${temp.dir}/logs`),
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    repoDir: await makeFixtureRepo(`${temp.dir}/repo`),
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
  });
  try {
    const gatewayUrl = await app.listen({ host: '127.0.0.1', port: 0 });
    const attacker = await signUp(gatewayUrl, 'attacker');
    const reader = await signUp(gatewayUrl, 'reader');
    await storeBackup(gatewayUrl, attacker, { s: `${'a'.repeat(LONG_STRING_LENGTH - 1)}b` });
    await storeBackup(gatewayUrl, reader, { subjects: [{ id: 's1' }], sessions: [{ id: 1 }] });
    const spanMs = options.seconds * 1000;
    for (let index = 0; index < 20; index++) await timed(`${gatewayUrl}${READ_PATH}`, reader); // warm-up

    const [basePing, baseRead] = await Promise.all([
      paced(options.requests, spanMs - 200, () => timed(`${gatewayUrl}/__app/ping`)),
      paced(options.requests, spanMs - 200, () => timed(`${gatewayUrl}${READ_PATH}`, reader)),
    ]);

    // The attack: the statement again each time it ends, until the span is over.
    const attackEnds = performance.now() + spanMs;
    const attacks: Timed[] = [];
    const attacking = (async () => {
      while (performance.now() < attackEnds) attacks.push(await timed(`${gatewayUrl}${ATTACK_PATH}`, attacker));
    })();
    await new Promise((resolve) => setTimeout(resolve, 200)); // let the first statement start
    const [attackPing, attackRead] = await Promise.all([
      paced(options.requests, spanMs - 200, () => timed(`${gatewayUrl}/__app/ping`)),
      paced(options.requests, spanMs - 200, () => timed(`${gatewayUrl}${READ_PATH}`, reader)),
    ]);
    await attacking;

    console.log(`\n${engine}`);
    console.log(summary('ping, idle', basePing));
    console.log(summary('read (other student), idle', baseRead));
    console.log(summary('ping, during the attack', attackPing));
    console.log(summary('read (other student), during', attackRead));
    console.log(
      `load average ${os
        .loadavg()
        .map((value) => value.toFixed(1))
        .join(' ')} on ${os.cpus().length} cores`,
    );
    console.log(
      `the attack: ${attacks.map((attack) => `${(attack.ms / 1000).toFixed(2)} s -> ${attack.status}${attack.code ? ` ${attack.code}` : ''}`).join(', ')}`,
    );
    if (database.engine) console.log(`engine reopened ${database.engine.restarts} time(s)`);
  } finally {
    await app.close();
    await localbase.close();
    await temp.remove();
  }
}

async function main(): Promise<void> {
  console.log(
    `statement-timeout benchmark: a ${options.seconds} s attack, ${options.requests} pings and reads each ` +
      `(timeouts: anon ${STATEMENT_TIMEOUTS_MS.anon} ms, authenticated ${STATEMENT_TIMEOUTS_MS.authenticated} ms)`,
  );
  for (const engine of options.engines) {
    if (engine === 'embedded') {
      const dataDir = await makeTempDir('bench-timeout-data');
      const embedded = await openDatabase({ dataDir: dataDir.dir });
      try {
        await runEngine(`${embedded.engineName} (pool of ${EMBEDDED_POOL_SIZE})`, embedded);
      } finally {
        await embedded.close();
        await dataDir.remove();
      }
    } else if (engine === 'pglite') {
      const pglite = await openDatabase({
        dataDir: MEMORY,
        migrate: false,
        pglite: { loadDataDir: await testDatabaseSnapshot() },
      });
      try {
        await runEngine(`${pglite.engineName} (worker thread)`, pglite);
      } finally {
        await pglite.close();
      }
    } else {
      const cluster = await startCluster();
      const postgres = await openDatabase({ databaseUrl: cluster.url, maxConnections: 10 });
      try {
        await runEngine("Debian's PostgreSQL 15 (pool of 10)", postgres);
      } finally {
        await postgres.close();
        await cluster.stop();
      }
    }
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
