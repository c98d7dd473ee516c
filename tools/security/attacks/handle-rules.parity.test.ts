// Item: a direct `PATCH user_profiles` stored `<img src=x onerror=alert(1)>` and a 5,000-character
// handle, which community_bootstrap_profile refuses. Replayed through the gateway's backend proxy,
// by update and by insert: the database refuses them with the RPC's own code (a 4xx), and a valid
// handle still goes through both ways.
import { beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);
let student: Student;
let other: Student;

beforeAll(async () => {
  student = await stack.signUp('rules-student');
  other = await stack.signUp('rules-other');
}, 120_000);

async function storedHandle(of: Student): Promise<string | null> {
  const [row] = await stack.owner<{ handle: string | null }>(
    'select handle from public.user_profiles where user_id = $1',
    [of.id],
  );
  return row?.handle ?? null;
}

const patchHandle = (handle: string) =>
  stack.backend(student, 'PATCH', `/rest/v1/user_profiles?user_id=eq.${student.id}`, { handle });

describe('attack: handles written around community_bootstrap_profile', () => {
  it('refuses markup with 400 invalid_handle (P0010) and keeps the handle', async () => {
    const before = await storedHandle(student);
    const response = await patchHandle('<img src=x onerror=alert(1)>');
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'P0010', message: 'invalid_handle' });
    expect(await storedHandle(student)).toBe(before);
  });

  it('refuses a 5,000-character handle the same way', async () => {
    const response = await patchHandle('a'.repeat(5_000));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'P0010', message: 'invalid_handle' });
  });

  it("refuses another student's handle with handle_taken (P0011)", async () => {
    const response = await patchHandle(((await storedHandle(other)) as string).toUpperCase());
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'P0011', message: 'handle_taken' });
  });

  it('refuses the same values on the insert path (an upsert of the own row)', async () => {
    const upsert = (handle: string) =>
      stack.backend(
        student,
        'POST',
        '/rest/v1/user_profiles',
        { user_id: student.id, handle },
        { prefer: 'resolution=merge-duplicates' },
      );
    await stack.owner('delete from public.user_profiles where user_id = $1', [student.id]);
    for (const handle of ['<img src=x onerror=alert(1)>', 'a'.repeat(5_000), other.email]) {
      const response = await upsert(handle);
      expect(response.statusCode, handle.slice(0, 40)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'P0010', message: 'invalid_handle' });
    }
    const accepted = await upsert('rules_student');
    expect(accepted.statusCode, accepted.body).toBe(201);
    expect(await storedHandle(student)).toBe('rules_student');
  });

  it('accepts a valid handle through a direct PATCH, with its mirror in profile_data', async () => {
    const response = await stack.backend(
      student,
      'PATCH',
      `/rest/v1/user_profiles?user_id=eq.${student.id}`,
      { handle: 'Rules.Student_2' },
      { prefer: 'return=representation' },
    );
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()[0]).toMatchObject({
      handle: 'Rules.Student_2',
      profile_data: { community_handle: 'Rules.Student_2' },
    });
  });
});
