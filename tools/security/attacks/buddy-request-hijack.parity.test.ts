// Item: a student set her handle to another student's e-mail with a direct PATCH of user_profiles,
// and a buddy request sent "to that e-mail" then reached her. Replayed through the gateway's
// backend proxy: the handle is refused, profile_data cannot smuggle it in either, and a request to
// an e-mail reaches the account that signs in with it.
import { beforeAll, describe, expect, it } from 'vitest';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const stack = fileFixture(startAttackStack);
let victim: Student;
let mallory: Student;
let sender: Student;

beforeAll(async () => {
  victim = await stack.signUp('hijack-victim');
  mallory = await stack.signUp('hijack-mallory');
  sender = await stack.signUp('hijack-sender');
}, 120_000);

async function connectionsOf(student: Student): Promise<Array<{ user_id: string; friend_id: string; status: string }>> {
  const response = await stack.backend(student, 'GET', '/rest/v1/community_friends?select=user_id,friend_id,status');
  expect(response.statusCode, response.body).toBe(200);
  return response.json();
}

describe("attack: a handle set to another student's e-mail to receive her buddy requests", () => {
  it('refuses the reported PATCH of the handle with invalid_handle', async () => {
    const patch = await stack.backend(mallory, 'PATCH', `/rest/v1/user_profiles?user_id=eq.${mallory.id}`, {
      handle: victim.email,
    });
    expect(patch.statusCode).toBe(400);
    expect(patch.json()).toMatchObject({ code: 'P0010', message: 'invalid_handle' });
    const [row] = await stack.owner<{ handle: string | null }>(
      'select handle from public.user_profiles where user_id = $1',
      [mallory.id],
    );
    expect(row?.handle).not.toBe(victim.email);
  });

  it('keeps the e-mail out of profile_data.community_handle too', async () => {
    const patch = await stack.backend(
      mallory,
      'PATCH',
      `/rest/v1/user_profiles?user_id=eq.${mallory.id}`,
      { profile_data: { community_handle: victim.email } },
      { prefer: 'return=representation' },
    );
    expect(patch.statusCode, patch.body).toBe(200);
    expect(patch.json()[0].profile_data.community_handle).not.toBe(victim.email);
  });

  it("delivers a request sent to the victim's e-mail to the victim, never to the attacker", async () => {
    const request = await stack.backend(sender, 'POST', '/rest/v1/rpc/community_request_buddy', {
      p_handle: victim.email,
    });
    expect(request.statusCode, request.body).toBe(200);
    expect(await connectionsOf(victim)).toEqual([{ user_id: sender.id, friend_id: victim.id, status: 'pending' }]);
    expect(await connectionsOf(mallory)).toEqual([]);
  });

  it('still lets the attacker set a real handle, which finds her and only her', async () => {
    const patch = await stack.backend(mallory, 'PATCH', `/rest/v1/user_profiles?user_id=eq.${mallory.id}`, {
      handle: 'mallory_h',
    });
    expect(patch.statusCode, patch.body).toBe(204);
    const request = await stack.backend(sender, 'POST', '/rest/v1/rpc/community_request_buddy', {
      p_handle: 'mallory_h',
    });
    expect(request.statusCode, request.body).toBe(200);
    expect(await connectionsOf(mallory)).toEqual([{ user_id: sender.id, friend_id: mallory.id, status: 'pending' }]);
  });
});
