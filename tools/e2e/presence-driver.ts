// Shared steps for the live-presence browser test and bench: a private group of two, and a
// browser context whose student has agreed to take part in the community (on the server and in
// what the app remembers on the device), so her focus sessions report presence.
import type { Browser, BrowserContext } from 'playwright-core';
import { signedInContext } from './app-driver.ts';
import { asStudent, enroll, type Student } from './community-driver.ts';

/** `owner` creates a private invite-only group and `member` joins it by invite; its id. */
export async function joinedGroupOfTwo(
  baseUrl: string,
  owner: Student,
  member: Student,
  name: string,
): Promise<string> {
  const [group] = await asStudent<{ id: string }[]>(baseUrl, owner, '/rest/v1/groups?select=id', {
    body: { name, visibility: 'private', join_policy: 'invite', created_by: owner.id },
    prefer: 'return=representation',
  });
  const groupId = group?.id ?? '';
  const token = await asStudent<string>(baseUrl, owner, '/rest/v1/rpc/community_create_invite', {
    body: { p_type: 'group', p_target_id: groupId },
  });
  await asStudent(baseUrl, member, '/rest/v1/rpc/community_redeem_invite', { body: { p_token: token } });
  return groupId;
}

/** A signed-in context for a student who takes part in the community and shares her subject. */
export async function sharingContext(
  browser: Browser,
  baseUrl: string,
  who: Student,
  viewport: { width: number; height: number },
): Promise<BrowserContext> {
  await enroll(baseUrl, who, { shareCurrentSubject: true });
  const context = await signedInContext(browser, who.session, { viewport, reducedMotion: 'reduce' });
  await context.addInitScript(
    (key: string) => localStorage.setItem(key, 'true'),
    `studyhall-community-consent:${who.id}`,
  );
  return context;
}
