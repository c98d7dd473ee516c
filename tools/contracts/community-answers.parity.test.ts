// Every answer the web app parses from the community's database functions and tables, called the
// way the app calls it (supabase-js, a student's own token, localbase's Data API) on a seeded
// database, is exactly the contract's shape (contracts/community-answers.ts, community-rows.ts,
// account-export.ts): parsed strictly, so a key the database adds, drops or retypes fails here
// until the contract says so. Each shape's variants are reached (a buddy who shares everything and
// one who shares nothing, a pending request, each kind of invite). The last block plants a changed
// answer and proves the check fails. On PostgreSQL 15 in `npm test`.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import ws from 'ws';
import { z } from 'zod';
import { myDataExport } from '#contracts/account-export.ts';
import {
  analyticsDay,
  boardMember,
  discoveredGroup,
  invitePreview,
  joinAnswer,
  joinRequest,
  leaderboardRow,
  overviewEntry,
  redeemAnswer,
  startAlertJson,
  type OverviewEntry,
} from '#contracts/community-answers.ts';
import {
  CHAT_MESSAGE_COLUMNS,
  chatMessage,
  ENROLLMENT_COLUMNS,
  enrollment,
  GROUP_COLUMNS,
  GROUP_INVITE_COLUMNS,
  groupInvite,
  groupRow,
  START_ALERT_COLUMNS,
  startAlertRow,
  uuid,
} from '#contracts/community-rows.ts';
import { actAs, student } from '../security/acting.ts';
import { seedWorld } from '../security/world.ts';
import { startLocalbaseStack } from '../testing/localbase-stack.ts';
import { mismatches } from './strict-shape.ts';

const localbase = await startLocalbaseStack();
afterAll(() => localbase.close());

// The attack matrix's world (tools/security/world.ts), and what it lacks for every variant of an
// answer: alice shares everything, carol nothing (the defaults); carol is a member of alice's
// public group; bob has a profile and a buddy request waiting for carol.
const owner = await localbase.database.pool.connect();
const world = await seedWorld(owner);
const groupId = async (name: string) =>
  (await owner.query<{ id: string }>(`select id from public.groups where name = $1`, [name])).rows[0]?.id as string;
const privateCircle = await groupId('Alice Private Circle');
const publicHall = await groupId('Alice Public Hall');
const requestRoom = await groupId('Carol Request Room');
await actAs(owner, student(world.bob), `select public.community_bootstrap_profile('bob_matrix')`);
await actAs(
  owner,
  student(world.alice),
  `update public.community_enrollments set privacy = privacy || '{"shareTasks": true, "shareExactTime": true,
     "shareSubjectBreakdown": true, "shareQuestionCounts": true, "shareCurrentSubject": true}'`,
);
await actAs(owner, student(world.carol), `select public.community_join_group($1)`, [publicHall]);
await actAs(owner, student(world.bob), `select public.community_request_buddy('carol_matrix')`);
owner.release();

/** supabase-js as the app builds it, signed in as the student (a token the Data API verifies). */
async function clientOf(userId: string | null): Promise<SupabaseClient> {
  const token = userId
    ? await new SignJWT({ sub: userId, role: 'authenticated', aud: 'authenticated' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt()
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(localbase.jwtSecret))
    : localbase.anonKey;
  return createClient(localbase.url, localbase.anonKey, {
    global: { headers: { Authorization: `Bearer ${token}` } },
    auth: { persistSession: false, autoRefreshToken: false },
    realtime: { transport: ws as never },
  });
}

const alice = await clientOf(world.alice);
const bob = await clientOf(world.bob);
const carol = await clientOf(world.carol);
const anon = await clientOf(null);

async function answerOf(client: SupabaseClient, fn: string, args: Record<string, unknown> = {}): Promise<unknown> {
  const { data, error } = await client.rpc(fn, args);
  if (error) throw new Error(`${fn} failed: ${error.code} ${error.message}`);
  return data;
}

async function rowsOf(query: PromiseLike<{ data: unknown; error: { message: string } | null }>): Promise<unknown> {
  const { data, error } = await query;
  if (error) throw new Error(`the read failed: ${error.message}`);
  return data;
}

/** An answer that is exactly the shape, and holds at least one row when it is a list. */
function expectExactly(shape: z.ZodType, answer: unknown): void {
  expect(mismatches(shape, answer)).toEqual([]);
  if (Array.isArray(answer)) expect(answer.length).toBeGreaterThan(0);
}

describe("the database functions' answers", () => {
  it('community_discover_groups: the groups a student may see, hers and others', async () => {
    const asBob = await answerOf(bob, 'community_discover_groups', { p_search: null, p_limit: 21, p_offset: 0 });
    expectExactly(z.array(discoveredGroup), asBob);
    const asAlice = z
      .array(discoveredGroup)
      .parse(await answerOf(alice, 'community_discover_groups', { p_search: null, p_limit: 21, p_offset: 0 }));
    expect(asAlice.some((group) => group.is_member)).toBe(true);
  });

  it('community_get_group_board: each member, with what each shares', async () => {
    const board = await answerOf(carol, 'community_get_group_board', { p_group_id: publicHall });
    expectExactly(z.array(boardMember), board);
    expect((board as unknown[]).length).toBe(2);
  });

  it('community_get_overview: a buddy who shares everything, one who shares nothing, requests both ways', async () => {
    const entries: OverviewEntry[] = [];
    for (const client of [alice, bob, carol]) {
      const overview = await answerOf(client, 'community_get_overview');
      expectExactly(z.array(overviewEntry), overview);
      entries.push(...z.array(overviewEntry).parse(overview));
    }
    const sharing = entries.find((entry) => entry.userId === world.alice);
    expect(sharing?.subjects).not.toBeNull();
    expect(sharing?.tasks).not.toBeNull();
    expect(entries.some((entry) => entry.userId === world.carol && entry.tasks === null)).toBe(true);
    const pending = entries.filter((entry) => entry.status === 'pending').map((entry) => entry.outgoing);
    expect(pending.sort()).toEqual([false, true]);
  });

  it('get_group_leaderboard and get_group_analytics_from_snapshots', async () => {
    expectExactly(
      z.array(leaderboardRow),
      await answerOf(alice, 'get_group_leaderboard', { p_group_id: publicHall, p_limit: 50, p_days: 7 }),
    );
    const days = await answerOf(alice, 'get_group_analytics_from_snapshots', { p_group_id: publicHall, p_days: 7 });
    expectExactly(z.array(analyticsDay), days);
    expect((days as unknown[]).length).toBe(7);
  });

  it('community_get_join_requests: the requests waiting for an owner', async () => {
    expectExactly(
      z.array(joinRequest),
      await answerOf(carol, 'community_get_join_requests', { p_group_id: requestRoom }),
    );
  });

  it('community_join_group: in at once, or a request', async () => {
    expect(await answerOf(bob, 'community_join_group', { p_group_id: publicHall })).toBe('member');
    const requested = await answerOf(bob, 'community_join_group', { p_group_id: requestRoom });
    expectExactly(joinAnswer, requested);
    expect(requested).toBe('pending');
  });

  it('community_preview_invite and community_redeem_invite: a group invite, a buddy invite, a dead link', async () => {
    const groupToken = z
      .string()
      .parse(await answerOf(alice, 'community_create_invite', { p_type: 'group', p_target_id: privateCircle }));
    const buddyToken = z
      .string()
      .parse(await answerOf(alice, 'community_create_invite', { p_type: 'buddy', p_target_id: null }));
    const previews = [];
    for (const token of [groupToken, buddyToken, 'no-such-invite']) {
      const preview = await answerOf(anon, 'community_preview_invite', { p_token: token });
      expectExactly(invitePreview, preview);
      previews.push(preview);
    }
    expect(previews).toMatchObject([{ valid: true, type: 'group' }, { valid: true, type: 'buddy' }, { valid: false }]);

    const redeemed = [];
    for (const token of [groupToken, buddyToken]) {
      const answer = await answerOf(bob, 'community_redeem_invite', { p_token: token });
      expectExactly(redeemAnswer, answer);
      redeemed.push(answer);
    }
    expect(redeemed).toMatchObject([{ type: 'group', already_member: false }, { type: 'buddy' }]);
  });

  it('community_set_start_alert', async () => {
    expectExactly(
      startAlertJson,
      await answerOf(alice, 'community_set_start_alert', {
        p_target_type: 'group',
        p_target_id: publicHall,
        p_quiet_start: '22:00',
        p_quiet_end: '07:00',
        p_timezone_offset_minutes: 60,
        p_enabled: true,
      }),
    );
  });

  it('community_get_group_messages and community_send_group_message: rows of the chat table', async () => {
    // Whole rows: what the app reads, and the one column it leaves alone.
    const wholeRow = chatMessage.extend({ deleted_by: uuid.nullable() });
    const sent = await answerOf(alice, 'community_send_group_message', {
      p_group_id: privateCircle,
      p_content: 'for the contract',
    });
    expectExactly(wholeRow, sent);
    const history = await answerOf(alice, 'community_get_group_messages', {
      p_group_id: privateCircle,
      p_limit: 50,
      p_before: null,
    });
    expectExactly(z.array(wholeRow), history);
  });

  it('export_my_data: each section of the download', async () => {
    expectExactly(myDataExport, await answerOf(alice, 'export_my_data'));
  });
});

describe('the rows the app reads, with its own column lists', () => {
  it('groups, group_invites, community_enrollments, community_start_alerts and group_chat_messages', async () => {
    const reads: [z.ZodType, unknown][] = [
      [groupRow, await rowsOf(alice.from('groups').select(GROUP_COLUMNS))],
      [groupInvite, await rowsOf(alice.from('group_invites').select(GROUP_INVITE_COLUMNS))],
      [enrollment, await rowsOf(alice.from('community_enrollments').select(ENROLLMENT_COLUMNS))],
      [startAlertRow, await rowsOf(alice.from('community_start_alerts').select(START_ALERT_COLUMNS))],
      [chatMessage, await rowsOf(alice.from('group_chat_messages').select(CHAT_MESSAGE_COLUMNS))],
    ];
    for (const [shape, rows] of reads) expectExactly(z.array(shape), rows);
  });
});

describe('the check fails on a changed answer', () => {
  it('on a key renamed, dropped or retyped in an answer', async () => {
    const [entry] = z.array(z.record(z.string(), z.unknown())).parse(await answerOf(alice, 'community_get_overview'));
    const { questionsToday, ...dropped } = entry ?? {};
    expect(mismatches(overviewEntry, { ...dropped, questionCount: questionsToday })).toEqual([
      'questionsToday: Invalid input: expected number, received undefined',
      '(the answer): Unrecognized key: "questionCount"',
    ]);
    expect(mismatches(overviewEntry, { ...entry, minutesToday: '25' })).toEqual([
      'minutesToday: Invalid input: expected number, received string',
    ]);
  });

  it('on a function a migration changed', async () => {
    // As a migration would: the preview of a dead link now says why.
    await localbase.database.pool.query(`
      create or replace function public.community_preview_invite(p_token text) returns jsonb
      language sql stable security definer set search_path = ''
      as $$ select jsonb_build_object('valid', false, 'reason', 'expired') $$`);
    const preview = await answerOf(anon, 'community_preview_invite', { p_token: 'no-such-invite' });
    expect(preview).toEqual({ valid: false, reason: 'expired' });
    expect(mismatches(invitePreview, preview)).toEqual(['(the answer): Unrecognized key: "reason"']);
  });
});
