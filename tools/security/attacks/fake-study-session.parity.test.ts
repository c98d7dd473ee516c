// Item: one request to record_study_session starting now, with 1440 minutes and a million correct
// answers, was accepted (the session "ended" tomorrow) and put its sender first in the group ranking
// with 24 h and 1000000 correct; moving the device's clock forward before Finish did the same.
// Replayed through the gateway's /__backend with the cheater's own token: each variant is refused
// with its own code, stores nothing, and the leaderboards read exactly as before.
import { beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);
let honest: Student;
let cheater: Student;
let groupId: string;

const SHARING = {
  stealthMode: false,
  shareTasks: false,
  shareSubjectBreakdown: false,
  shareQuestionCounts: true,
  shareExactTime: true,
  shareCurrentSubject: false,
};
const MINUTE = 60_000;

async function ok(response: { statusCode: number; body: string }, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
}

function record(student: Student, startedAt: number, minutes: number, correct = 0) {
  return stack.backend(student, 'POST', '/rest/v1/rpc/record_study_session', {
    p_started_at: new Date(startedAt).toISOString(),
    p_minutes: minutes,
    p_correct: correct,
  });
}

/** What every student sees: /__leaderboard (all time) and the group leaderboard. */
async function boards(viewer: Student) {
  const all = await stack.route(viewer, 'POST', '/__leaderboard', { period: 'all' });
  await ok(all);
  const group = await stack.backend(viewer, 'POST', '/rest/v1/rpc/get_group_leaderboard', { p_group_id: groupId });
  await ok(group);
  return { all: all.json(), group: group.json() };
}

beforeAll(async () => {
  [honest, cheater] = [await stack.signUp('fake-honest'), await stack.signUp('fake-cheater')];
  for (const student of [honest, cheater]) {
    await ok(
      await stack.backend(student, 'PATCH', `/rest/v1/community_enrollments?user_id=eq.${student.id}`, {
        privacy: SHARING,
      }),
      204,
    );
  }
  await ok(await record(honest, Date.now() - 90 * MINUTE, 45, 30));
  const created = await stack.backend(
    honest,
    'POST',
    '/rest/v1/groups',
    { name: 'Honest Hall', visibility: 'public', join_policy: 'open', created_by: honest.id },
    { prefer: 'return=representation' },
  );
  await ok(created, 201);
  groupId = created.json()[0].id;
  await ok(await stack.backend(cheater, 'POST', '/rest/v1/rpc/community_join_group', { p_group_id: groupId }));
}, 120_000);

describe('attack: faking a day of study and a million answers with one request', () => {
  it('refuses every variant with a 4xx and its own code, and the boards read as before', async () => {
    const before = await boards(honest);
    expect(before.all.entries.map((entry: { user_id: string }) => entry.user_id)).toEqual([honest.id]);
    const now = Date.now();
    const variants: Array<[string, Promise<{ statusCode: number; body: string; json(): { message?: string } }>]> = [
      // The report's request: starts now, ends tomorrow.
      ['session_in_future', record(cheater, now, 1440, 1_000_000)],
      // The device clock two hours ahead: a three-hour session "finished" at the fake now.
      ['session_in_future', record(cheater, now + 120 * MINUTE - 180 * MINUTE, 180, 100)],
      // A plausible time, implausible answers.
      ['too_many_answers', record(cheater, now - 60 * MINUTE, 30, 1_000_000)],
    ];
    for (const [code, pending] of variants) {
      const response = await pending;
      expect(response.statusCode, response.body).toBeGreaterThanOrEqual(400);
      expect(response.statusCode, response.body).toBeLessThan(500);
      expect(response.json().message).toBe(code);
    }
    expect(
      await stack.owner('select count(*)::int as n from public.study_sessions where user_id = $1', [cheater.id]),
    ).toEqual([{ n: 0 }]);
    expect(await boards(honest)).toEqual(before);
    expect((await boards(cheater)).group).toEqual(before.group);
  });

  it('refuses stacking overlapping sessions, while the honest one of the same hour counts', async () => {
    const start = Date.now() - 180 * MINUTE;
    await ok(await record(cheater, start, 60, 20));
    const again = await record(cheater, start + 30 * MINUTE, 60, 20);
    expect(again.statusCode, again.body).toBe(400);
    expect(again.json().message).toBe('session_overlaps');
    await ok(await record(cheater, start + 60 * MINUTE, 30, 10));
    const { all } = await boards(honest);
    expect(all.entries).toEqual(
      expect.arrayContaining([expect.objectContaining({ user_id: cheater.id, points: 90 + 30 })]),
    );
  });
});
