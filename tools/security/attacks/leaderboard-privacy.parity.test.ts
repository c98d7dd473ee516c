// Item: with stealth mode on and every share switch off, any signed-in student read her minutes and
// answer counts for today from daily_user_stats and user_stats_summary through the leaderboard read
// policies. Replayed through the gateway: the direct reads, /__leaderboard and the group
// leaderboard show her to nobody, while a student who shares stays on all three.
import { beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);
let hidden: Student;
let sharer: Student;
let spy: Student;
let groupId: string;

const PRIVATE = {
  stealthMode: true,
  shareTasks: false,
  shareSubjectBreakdown: false,
  shareQuestionCounts: false,
  shareExactTime: false,
  shareCurrentSubject: false,
};
const SHARING = {
  stealthMode: false,
  shareTasks: false,
  shareSubjectBreakdown: false,
  shareQuestionCounts: true,
  shareExactTime: true,
  shareCurrentSubject: false,
};

async function ok(response: { statusCode: number; body: string }, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
}

async function settle(student: Student, privacy: Record<string, boolean>, minutes: number, correct: number) {
  await ok(
    await stack.backend(student, 'PATCH', `/rest/v1/community_enrollments?user_id=eq.${student.id}`, { privacy }),
    204,
  );
  await ok(
    await stack.backend(student, 'POST', '/rest/v1/rpc/record_study_session', {
      p_started_at: new Date(Date.now() - 3_600_000).toISOString(),
      p_minutes: minutes,
      p_correct: correct,
    }),
  );
}

beforeAll(async () => {
  [hidden, sharer, spy] = [
    await stack.signUp('lb-hidden'),
    await stack.signUp('lb-sharer'),
    await stack.signUp('lb-spy'),
  ];
  await settle(hidden, PRIVATE, 50, 9);
  await settle(sharer, SHARING, 30, 4);
  const created = await stack.backend(
    spy,
    'POST',
    '/rest/v1/groups',
    { name: 'Leaderboard Hall', visibility: 'public', join_policy: 'open', created_by: spy.id },
    { prefer: 'return=representation' },
  );
  await ok(created, 201);
  groupId = created.json()[0].id;
  for (const member of [hidden, sharer])
    await ok(await stack.backend(member, 'POST', '/rest/v1/rpc/community_join_group', { p_group_id: groupId }));
}, 120_000);

async function rows(student: Student, url: string): Promise<Array<Record<string, unknown>>> {
  const response = await stack.backend(student, 'GET', url);
  await ok(response);
  return response.json();
}

describe("attack: reading a hidden student's study time through the leaderboard read policies", () => {
  it('gives the reported direct reads nothing of hers', async () => {
    expect(await rows(spy, `/rest/v1/daily_user_stats?select=minutes,correct&user_id=eq.${hidden.id}`)).toEqual([]);
    expect(
      await rows(spy, `/rest/v1/user_stats_summary?select=total_minutes,total_correct&user_id=eq.${hidden.id}`),
    ).toEqual([]);
  });

  it('keeps her off /__leaderboard and the group leaderboard', async () => {
    const board = await stack.route(spy, 'POST', '/__leaderboard', { period: 'all' });
    await ok(board);
    expect(board.json().entries.map((entry: { user_id: string }) => entry.user_id)).toEqual([sharer.id]);
    const group = await stack.backend(spy, 'POST', '/rest/v1/rpc/get_group_leaderboard', { p_group_id: groupId });
    await ok(group);
    expect(group.json().map((entry: { user_id: string }) => entry.user_id)).toEqual([sharer.id, spy.id]);
  });

  it('still shows a student who shares time and question counts, everywhere', async () => {
    expect(await rows(spy, `/rest/v1/daily_user_stats?select=minutes,correct&user_id=eq.${sharer.id}`)).toEqual([
      { minutes: 30, correct: 4 },
    ]);
    expect(await rows(spy, `/rest/v1/user_stats_summary?select=total_minutes&user_id=eq.${sharer.id}`)).toEqual([
      { total_minutes: 30 },
    ]);
    const board = await stack.route(spy, 'POST', '/__leaderboard', { period: 'all' });
    expect(board.json().entries).toEqual([expect.objectContaining({ user_id: sharer.id, points: 34, is_me: false })]);
  });

  it('still shows the hidden student her own numbers', async () => {
    expect(await rows(hidden, `/rest/v1/daily_user_stats?select=minutes,correct&user_id=eq.${hidden.id}`)).toEqual([
      { minutes: 50, correct: 9 },
    ]);
    const board = await stack.route(hidden, 'POST', '/__leaderboard', { period: 'all' });
    expect(board.json().me).toMatchObject({ user_id: hidden.id, rank: 1, points: 59 });
  });
});
