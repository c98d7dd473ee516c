// One student's request must not freeze the server for everyone. The attack: store a backup whose
// payload holds a long string, then filter on it with a regular expression that backtracks
// (`^(.*)\1$`), which keeps the database busy for seconds. The server's own routes keep answering
// while it runs, so do other students' reads on PostgreSQL (on PGlite, one session, they wait for the
// statement: PGlite is for one student or a demo, docs/localbase.md), and the statement ends at the role's statement timeout with Postgres's 57014, as on a hosted project. Through the real stack: the gateway, localbase, and the database as the
// product opens it (in `npm test` both: PostgreSQL 15, and PGlite in its worker thread in the
// fallback's suite).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import type { Localbase } from '#localbase';
import type { RequestContext } from '#localbase/src/request-context.ts';
import { withRequestTransaction } from '#localbase/src/request-transaction.ts';
import { overrideStatementTimeoutsForTests, STATEMENT_TIMEOUTS_MS } from '#localbase/src/statement-timeouts.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { openProductParityDatabase, parityEngine } from '../../testing/parity-database.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';

/** Shorter than the production 8 s so that the test does not wait for it; the cut is the same. */
const TEST_AUTHENTICATED_TIMEOUT_MS = 1_500;
/** The cut while another student reads (PostgreSQL only). */
const READS_DURING_ATTACK_TIMEOUT_MS = 3_000;
/** Long enough that the regular expression runs for far longer than the timeout on either engine. */
const LONG_STRING_LENGTH = 60_000;
const OWN_BACKUPS = '/__backend/rest/v1/user_backups?select=user_id';
const BACKTRACKING_FILTER = `payload->>s=match.${encodeURIComponent('^(.*)\\1$')}`;

let database: Database;
let localbase: Localbase;
let gateway: TestGateway;
let student: { token: string; userId: string };
let classmate: { token: string; userId: string };
let restoreTimeouts: () => void;

async function signUp(name: string) {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/signup',
    payload: { username: `${name}@example.com`, password: `${name}-password-1` },
  });
  expect(response.statusCode, response.body).toBe(201);
  return { token: response.json().session.access_token as string, userId: response.json().user.id as string };
}

function asStudent(url: string) {
  return gateway.app.inject({ url, headers: { authorization: `Bearer ${student.token}` } });
}

beforeAll(async () => {
  database = await openProductParityDatabase();
  localbase = await startLocalbaseStack({ database });
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    ...RELAXED_DEADLINES,
  });
  student = await signUp('backtracker');
  classmate = await signUp('classmate');
  const stored = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/backup',
    payload: { payload: { s: `${'a'.repeat(LONG_STRING_LENGTH - 1)}b` } },
    headers: { authorization: `Bearer ${student.token}` },
  });
  expect(stored.statusCode, stored.body).toBeLessThan(300);
  // The read the student makes after the attack, made once before it too: localbase prepares it on
  // the connection, which the cut replaces; the new connection must prepare it again.
  const before = await asStudent(OWN_BACKUPS);
  expect(before.json()).toEqual([{ user_id: student.userId }]);
  const theirs = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/backup',
    payload: { payload: { notes: 'mine' } },
    headers: { authorization: `Bearer ${classmate.token}` },
  });
  expect(theirs.statusCode, theirs.body).toBeLessThan(300);
  restoreTimeouts = overrideStatementTimeoutsForTests({ authenticated: TEST_AUTHENTICATED_TIMEOUT_MS });
}, 180_000);

afterAll(async () => {
  restoreTimeouts?.();
  await gateway?.close();
  await localbase?.close();
  await database?.close();
});

describe('attack: a backtracking regular expression on a 60,000-character backup', () => {
  it('leaves the server answering while it runs, and ends with 57014 at the statement timeout', async () => {
    const started = Date.now();
    const attack = asStudent(`/__backend/rest/v1/user_backups?select=id&${BACKTRACKING_FILTER}`).then((response) => ({
      response,
      tookMs: Date.now() - started,
    }));
    // Let the statement start, then ask the server for its ping meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pingTimes: number[] = [];
    for (let index = 0; index < 10; index++) {
      const pingStarted = performance.now();
      const ping = await gateway.app.inject({ url: '/__app/ping' });
      pingTimes.push(performance.now() - pingStarted);
      expect(ping.statusCode).toBe(200);
      // The pings are spread over the statement's run on the real clock.
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const pingsDoneMs = Date.now() - started;
    const { response, tookMs } = await attack;
    // The pings were answered while the statement still ran, each at once.
    expect(pingsDoneMs).toBeLessThan(tookMs);
    expect(Math.max(...pingTimes)).toBeLessThan(250);
    // PostgREST answers a statement cut by its timeout with 500 and the SQLSTATE.
    expect(response.statusCode, response.body).toBe(500);
    expect(response.json()).toMatchObject({ code: '57014', message: 'canceling statement due to statement timeout' });
    expect(tookMs).toBeGreaterThanOrEqual(TEST_AUTHENTICATED_TIMEOUT_MS - 100);
    expect(tookMs).toBeLessThan(TEST_AUTHENTICATED_TIMEOUT_MS + 8_000);
  });

  // PGlite runs one statement at a time: there the classmate's reads wait for the cut.
  it.skipIf(parityEngine() === 'pglite')(
    "answers another student's reads while it runs, with what was committed before it",
    async () => {
      // A longer cut than the first test's, so that five reads fit before it on a busy machine; not
      // the production 8 s, which the regular expression would spend whole on the CPU the other
      // test files share. The classmate's reads must not wait for the cut.
      restoreTimeouts();
      restoreTimeouts = overrideStatementTimeoutsForTests({ authenticated: READS_DURING_ATTACK_TIMEOUT_MS });
      try {
        const started = Date.now();
        const attack = asStudent(`/__backend/rest/v1/user_backups?select=id&${BACKTRACKING_FILTER}`).then(
          () => Date.now() - started,
        );
        // Time for the statement to start running: the request sends nothing before its answer.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const answers: number[] = [];
        for (let index = 0; index < 5; index++) {
          const read = await gateway.app.inject({
            url: OWN_BACKUPS,
            headers: { authorization: `Bearer ${classmate.token}` },
          });
          expect(read.statusCode, read.body).toBe(200);
          expect(read.json()).toEqual([{ user_id: classmate.userId }]);
          answers.push(Date.now() - started);
        }
        const attackMs = await attack;
        expect(Math.max(...answers)).toBeLessThan(attackMs);
      } finally {
        restoreTimeouts();
        restoreTimeouts = overrideStatementTimeoutsForTests({ authenticated: TEST_AUTHENTICATED_TIMEOUT_MS });
      }
    },
    60_000,
  );

  it('keeps what was committed: after the cut the student reads the backup as before', async () => {
    const read = await asStudent(OWN_BACKUPS);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toEqual([{ user_id: student.userId }]);
    if (parityEngine() === 'pglite') expect(database.engine?.restarts).toBeGreaterThanOrEqual(1);
  });

  it('configures the production timeouts of a hosted project: anon 3 s, authenticated 8 s, service_role none', async () => {
    expect(STATEMENT_TIMEOUTS_MS).toEqual({ anon: 3_000, authenticated: 8_000, service_role: null });
    restoreTimeouts();
    try {
      const setting = (role: RequestContext['role']) =>
        withRequestTransaction(
          database.pool,
          { role, claims: { role }, method: 'GET', path: '/rest/v1/x', headers: {}, readOnly: true },
          async (client) =>
            (await client.query<{ timeout: string }>("select current_setting('statement_timeout') as timeout")).rows[0]
              ?.timeout,
        );
      expect(await setting('anon')).toBe('3s');
      expect(await setting('authenticated')).toBe('8s');
      expect(await setting('service_role')).toBe('0');
    } finally {
      restoreTimeouts = overrideStatementTimeoutsForTests({ authenticated: TEST_AUTHENTICATED_TIMEOUT_MS });
    }
  });
});
