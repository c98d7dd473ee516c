// Item: `PATCH /__backend/rest/v1/users?id=eq.<me>` with `{"username": "victim@..."}` answered 200,
// and the victim's sign-up then failed with 409 email_taken. Replayed through the gateway: the
// rename is refused, the victim signs up, and sign-up metadata cannot take her address either.
import { beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);
let mallory: Student;

beforeAll(async () => {
  mallory = await stack.signUp('block-mallory');
}, 120_000);

async function usernameOf(student: Student): Promise<string> {
  const response = await stack.backend(student, 'GET', `/rest/v1/users?select=username&id=eq.${student.id}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json()[0].username;
}

describe("attack: taking another person's e-mail as username to block her sign-up", () => {
  it('refuses the reported PATCH of public.users with 403 and changes nothing', async () => {
    const patch = await stack.backend(mallory, 'PATCH', `/rest/v1/users?id=eq.${mallory.id}`, {
      username: 'block-victim@example.com',
    });
    expect(patch.statusCode).toBe(403);
    expect(patch.json()).toMatchObject({ code: '42501' });
    expect(await usernameOf(mallory)).toBe(mallory.email);
  });

  it('refuses any other write to the account row', async () => {
    const patch = await stack.backend(mallory, 'PATCH', `/rest/v1/users?id=eq.${mallory.id}`, {
      created_at: '2001-01-01T00:00:00Z',
    });
    expect(patch.statusCode).toBe(403);
  });

  it('lets the victim sign up with her own e-mail', async () => {
    const victim = await stack.signUp('block-victim');
    expect(await usernameOf(victim)).toBe(victim.email);
  });

  it('ignores an address chosen as username in sign-up metadata, so its owner still signs up', async () => {
    const direct = await stack.backend(null, 'POST', '/auth/v1/signup', {
      email: 'block-squatter@example.com',
      password: 'squatter-password-1',
      data: { username: 'block-late@example.com' },
    });
    expect(direct.statusCode, direct.body).toBe(200);
    const [squatter] = await stack.owner<{ username: string }>(
      `select u.username from public.users u join auth.users a on a.id = u.id where a.email = 'block-squatter@example.com'`,
    );
    expect(squatter?.username).toBe('block-squatter@example.com');
    const late = await stack.signUp('block-late');
    expect(await usernameOf(late)).toBe(late.email);
  });
});
