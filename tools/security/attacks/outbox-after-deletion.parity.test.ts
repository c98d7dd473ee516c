// attack: read a deleted student's mail. Without SMTP, localbase keeps auth mail in its outbox
// for 7 days, and the admin console lists it (/__admin/outbox) with its links. A student asks for
// a password reset (or an e-mail change), then deletes her account; her address and the mail's
// link used to stay there for the rest of the week. Deleting an account now deletes the mail to
// it, whichever way the account goes: delete_my_account, the auth admin API, the console.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithSecret, startAdminGateway } from '#gateway/test/admin-helpers.ts';
import type { TestGateway } from '#gateway/test/helpers.ts';
import { nextMail, outboxFor } from '#localbase/test/outbox.ts';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const SECRET = 'outbox-deletion-attack-secret';
const stack = fileFixture(startAttackStack);
let console_: TestGateway;
let cookie: string;

beforeAll(async () => {
  const { localbase } = stack;
  console_ = await startAdminGateway(
    localbase,
    { secret: SECRET },
    {
      backend: {
        url: localbase.url,
        anonKey: localbase.anonKey,
        serviceRoleKey: localbase.serviceRoleKey,
        managementToken: localbase.accessToken,
      },
    },
  );
  cookie = await signInWithSecret(console_.app, SECRET);
}, 120_000);

afterAll(async () => {
  await console_?.close();
});

/** "Forgot password?", as the app sends it; the mail is written after the answer. */
async function askForReset(student: Student): Promise<void> {
  const asked = await stack.backend(null, 'POST', '/auth/v1/recover', { email: student.email });
  expect(asked.statusCode, asked.body).toBe(200);
  expect((await nextMail(stack.localbase, student.email)).subject).toBe('Reset Your Password');
}

/** Recipients the console's Outbox page lists. */
async function consoleOutbox(): Promise<string[]> {
  const response = await console_.app.inject({ url: '/__admin/outbox', headers: { cookie } });
  expect(response.statusCode, response.body).toBe(200);
  return (response.json().messages as { to: string }[]).map((message) => message.to);
}

async function deleteOwnAccount(student: Student): Promise<void> {
  const [profile] = await stack.owner<{ handle: string | null }>(
    `select handle from public.user_profiles where user_id = $1`,
    [student.id],
  );
  const deleted = await stack.backend(student, 'POST', '/rest/v1/rpc/delete_my_account', {
    p_confirm: profile?.handle ?? 'delete',
  });
  expect(deleted.statusCode, deleted.body).toBe(200);
}

describe('the outbox after an account is deleted', () => {
  it('delete_my_account deletes her reset mail and the mail to the address she was moving to', async () => {
    const leaver = await stack.signUp('outbox_leaver');
    const stayer = await stack.signUp('outbox_stayer');
    await askForReset(leaver);
    await askForReset(stayer);
    const newAddress = 'outbox_leaver_new@example.com';
    const moving = await stack.backend(leaver, 'PUT', '/auth/v1/user', { email: newAddress });
    expect(moving.statusCode, moving.body).toBe(200);
    expect((await nextMail(stack.localbase, newAddress)).subject).toBe('Confirm Email Change');

    await deleteOwnAccount(leaver);

    expect(await outboxFor(stack.localbase, leaver.email)).toEqual([]);
    expect(await outboxFor(stack.localbase, newAddress)).toEqual([]);
    const listed = await consoleOutbox();
    expect(listed).not.toContain(leaver.email);
    expect(listed).not.toContain(newAddress);
    // Everyone else's mail stays.
    expect(listed).toContain(stayer.email);
  });

  it('the auth admin API deletes it too', async () => {
    const removed = await stack.signUp('outbox_admin_removed');
    await askForReset(removed);
    const response = await fetch(`${stack.localbase.url}/auth/v1/admin/users/${removed.id}`, {
      method: 'DELETE',
      headers: { apikey: stack.localbase.serviceRoleKey, authorization: `Bearer ${stack.localbase.serviceRoleKey}` },
    });
    expect(response.status, await response.text()).toBe(200);
    expect(await outboxFor(stack.localbase, removed.email)).toEqual([]);
    expect(await consoleOutbox()).not.toContain(removed.email);
  });

  it('and so does the console', async () => {
    const removed = await stack.signUp('outbox_console_removed');
    await askForReset(removed);
    const response = await console_.app.inject({
      method: 'POST',
      url: `/__admin/users/${removed.id}/delete`,
      headers: { cookie },
      payload: { confirm_account: removed.email },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await outboxFor(stack.localbase, removed.email)).toEqual([]);
    expect(await consoleOutbox()).not.toContain(removed.email);
  });
});
