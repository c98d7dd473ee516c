// On PostgreSQL 15 with real concurrent connections: the app's retries of one finished session (the
// same client id, sent again before the first answer came back) settle it once. Every call answers
// with the same session id, and the student's totals count the session once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startCluster, type Cluster } from '../pg/cluster.ts';
import { createStudent, firstRow } from './act-as.ts';

let cluster: Cluster;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await startCluster();
  pool = new pg.Pool({ connectionString: cluster.url, max: 20 });
  // An idle connection the server ends (57P01, its shutdown racing the pool's own end) is an
  // 'error' on the pool; without a listener it would be thrown out of the run.
  pool.on('error', () => undefined);
});

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

describe('study session retries on PostgreSQL 15', () => {
  it('12 simultaneous calls with one client id store one session and answer with its id', async () => {
    const studentId = await createStudent(pool, 'retrier');
    const clientId = 'b0000000-0000-4000-8000-000000000001';
    const startedAt = new Date(Date.now() - 2 * 60 * 60_000).toISOString();

    // Every call's transaction is open before any of them records, so they truly overlap.
    const clients = await Promise.all(Array.from({ length: 12 }, () => pool.connect()));
    for (const client of clients) {
      await client.query('begin');
      await client.query(
        `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`,
        [JSON.stringify({ sub: studentId, role: 'authenticated' })],
      );
    }
    const outcomes = await Promise.allSettled(
      clients.map(async (client) => {
        try {
          const { rows } = await client.query<{ id: string }>(
            `select public.record_study_session($1, 30, 's1', 'Maths', null, null, 4, 1, 0, $2) as id`,
            [startedAt, clientId],
          );
          await client.query('commit');
          return firstRow(rows).id;
        } catch (error) {
          await client.query('rollback');
          throw error;
        } finally {
          client.release();
        }
      }),
    );

    const refused = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
    expect(refused).toEqual([]);
    const ids = new Set(outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : [])));
    expect(ids.size).toBe(1);
    const { rows } = await pool.query<{ sessions: number; minutes: number; daily: number; correct: number }>(
      `select (select count(*)::int from public.study_sessions where user_id = $1) as sessions,
              s.total_minutes as minutes, s.total_correct as correct,
              (select sum(minutes)::int from public.daily_user_stats where user_id = $1) as daily
       from public.user_stats_summary s where s.user_id = $1`,
      [studentId],
    );
    expect(firstRow(rows)).toEqual({ sessions: 1, minutes: 30, daily: 30, correct: 4 });
  });
});
