// On PostgreSQL 15 with real concurrent connections: redeem never passes max_uses,
// member_count stays equal to the membership rows under simultaneous joins, and two owners
// deleting their accounts at once do not leave their group without an owner.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { startCluster, type Cluster } from '../pg/cluster.ts';
import { asStudent, createStudent, firstRow } from './act-as.ts';

let cluster: Cluster;
let pool: pg.Pool;

beforeAll(async () => {
  cluster = await startCluster();
  pool = new pg.Pool({ connectionString: cluster.url, max: 60 });
  // An idle connection the server ends (57P01, its shutdown racing the pool's own end) is an
  // 'error' on the pool; without a listener it would be thrown out of the run.
  pool.on('error', () => undefined);
});

afterAll(async () => {
  await pool?.end();
  await cluster?.stop();
});

async function createGroup(ownerId: string, joinPolicy: string): Promise<string> {
  return asStudent(pool, ownerId, async (client) => {
    const { rows } = await client.query<{ id: string }>(
      `insert into public.groups (name, join_policy, created_by) values ($1, $2, $3) returning id`,
      [`Group ${joinPolicy} ${Math.random()}`, joinPolicy, ownerId],
    );
    return firstRow(rows).id;
  });
}

describe('community concurrency on PostgreSQL 15', () => {
  it('20 simultaneous redeems of an invite with max_uses 3 make exactly 3 members', async () => {
    const ownerId = await createStudent(pool, 'redeem-owner');
    const groupId = await createGroup(ownerId, 'invite');
    const token = await asStudent(
      pool,
      ownerId,
      async (client) =>
        firstRow(
          (
            await client.query<{ token: string }>(`select public.community_create_invite('group', $1, 7) as token`, [
              groupId,
            ])
          ).rows,
        ).token,
    );
    await pool.query('update public.group_invites set max_uses = 3 where token = $1', [token]);
    const guests = await Promise.all(Array.from({ length: 20 }, (_, i) => createStudent(pool, `redeemer${i}`)));

    const outcomes = await Promise.allSettled(
      guests.map((guestId) =>
        asStudent(pool, guestId, (client) => client.query('select public.community_redeem_invite($1)', [token])),
      ),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    const { rows } = await pool.query<{ uses: number; joined: number; member_count: number }>(
      `select i.uses_count as uses,
              (select count(*)::int from public.group_members m where m.group_id = $2 and m.user_id <> $3) as joined,
              g.member_count
       from public.group_invites i join public.groups g on g.id = i.group_id where i.token = $1`,
      [token, groupId, ownerId],
    );
    expect(firstRow(rows)).toEqual({ uses: 3, joined: 3, member_count: 4 });
  });

  it('50 simultaneous joins of an open group leave member_count equal to the rows', async () => {
    const ownerId = await createStudent(pool, 'join-owner');
    const groupId = await createGroup(ownerId, 'open');
    const joiners = await Promise.all(Array.from({ length: 50 }, (_, i) => createStudent(pool, `joiner${i}`)));

    await Promise.all(
      joiners.map((joinerId) =>
        asStudent(pool, joinerId, (client) => client.query('select public.community_join_group($1)', [groupId])),
      ),
    );

    const { rows } = await pool.query<{ member_count: number; rows: number }>(
      `select g.member_count, (select count(*)::int from public.group_members m where m.group_id = g.id) as rows
       from public.groups g where g.id = $1`,
      [groupId],
    );
    expect(firstRow(rows)).toEqual({ member_count: 51, rows: 51 });
  });

  it('two owners deleting their accounts at once still leave their group an owner', async () => {
    const firstOwner = await createStudent(pool, 'leaving-owner-a');
    const secondOwner = await createStudent(pool, 'leaving-owner-b');
    const stayer = await createStudent(pool, 'staying-member');
    const groupId = await createGroup(firstOwner, 'open');
    await pool.query(
      `insert into public.group_members (group_id, user_id, role) values ($1, $2, 'owner'), ($1, $3, 'member')`,
      [groupId, secondOwner, stayer],
    );

    await Promise.all(
      [firstOwner, secondOwner].map((ownerId) =>
        asStudent(pool, ownerId, (client) => client.query(`select public.delete_my_account('delete')`)),
      ),
    );

    const { rows } = await pool.query<{ user_id: string; role: string }>(
      `select user_id, role from public.group_members where group_id = $1`,
      [groupId],
    );
    expect(rows).toEqual([{ user_id: stayer, role: 'owner' }]);
  });
});
