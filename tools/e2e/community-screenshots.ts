// Screenshots of every community screen at 390x844 and 1280x800, light and dark, empty and with
// data, from a fresh `npm start` this script runs itself (for looking at, not a test). Usage:
//   node --import tsx tools/e2e/community-screenshots.ts <out dir>
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { signedInContext, startCspProxy, startStudyhall, VIEWPORTS } from './app-driver.ts';
import { launchChromium } from './browser.ts';
import { asStudent, dismissRestoreOffer, enroll, student, type Student } from './community-driver.ts';

const [outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: community-screenshots.ts <out dir>');
  process.exit(2);
}
await mkdir(outDir, { recursive: true });
const temp = await makeTempDir('community-screens');
const studyhall = await startStudyhall({ dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') });
const proxy = await startCspProxy(studyhall.url);
const app = proxy.url;
const browser = await launchChromium();

async function shoot(
  browserInstance: Browser,
  who: Student | null,
  routes: { route: string; name: string; before?: (page: Page) => Promise<void> }[],
): Promise<void> {
  for (const [size, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      const context = who
        ? await signedInContext(browserInstance, who.session, { viewport, colorScheme, reducedMotion: 'reduce' })
        : await browserInstance.newContext({ viewport, colorScheme, reducedMotion: 'reduce' });
      const page = await context.newPage();
      for (const { route, name, before } of routes) {
        await page.goto(`${app}${route}`);
        await page.waitForLoadState('networkidle').catch(() => undefined);
        await dismissRestoreOffer(page);
        await page.waitForTimeout(700);
        if (before) await before(page);
        await page.screenshot({
          path: path.join(outDir as string, `${name}-${size}-${colorScheme}.png`),
          fullPage: true,
        });
        // What the student sees first, without scrolling.
        await page.screenshot({ path: path.join(outDir as string, `${name}-${size}-${colorScheme}-first-screen.png`) });
      }
      await context.close();
    }
  }
}

const rpc = (who: Student, name: string, body: object) =>
  asStudent(studyhall.url, who, `/rest/v1/rpc/${name}`, { body });

try {
  // Empty: a student on a server with nothing in it yet.
  const eve = await student(studyhall.url, 'Eve', 'eve_new');
  await shoot(browser, eve, [
    { route: '/community', name: 'community-empty' },
    { route: '/buddies', name: 'buddies-empty' },
    { route: '/settings/privacy', name: 'privacy-default' },
  ]);

  // Data: a group with people studying, a chat, a week of sessions, buddies with different switches.
  const ada = await student(studyhall.url, 'Ada Lovelace', 'ada');
  const bo = await student(studyhall.url, 'Bo Park', 'bo_park');
  const cy = await student(studyhall.url, 'Cy Nakamura', 'cy_n');
  const dee = await student(studyhall.url, 'Dee Okafor', 'dee_o');
  const [group] = await asStudent<{ id: string }[]>(studyhall.url, ada, '/rest/v1/groups?select=id', {
    body: {
      name: 'Night Shift Anatomy',
      description:
        'Anatomy before the March exam. We study evenings, 25-minute rounds, and quiz each other on Fridays.',
      visibility: 'private',
      join_policy: 'invite',
      created_by: ada.id,
    },
    prefer: 'return=representation',
  });
  const groupId = group?.id ?? '';
  for (const name of ['Calculus Study Hall', 'Organic Chemistry 2', 'History essays, quietly']) {
    await asStudent(studyhall.url, dee, '/rest/v1/groups', {
      body: {
        name,
        description: `A public group about ${name.toLowerCase()}.`,
        visibility: 'public',
        join_policy: name.startsWith('Calc') ? 'open' : 'request',
        created_by: dee.id,
      },
    });
  }
  for (const member of [bo, cy, dee]) {
    const token = await rpc(ada, 'community_create_invite', { p_type: 'group', p_target_id: groupId });
    await rpc(member, 'community_redeem_invite', { p_token: token });
  }
  await rpc(ada, 'community_create_invite', { p_type: 'group', p_target_id: groupId, p_days: 30, p_max_uses: 10 });
  const [publicGroup] = await asStudent<{ id: string }[]>(
    studyhall.url,
    dee,
    '/rest/v1/groups?select=id&name=eq.Organic%20Chemistry%202',
  );
  await rpc(eve, 'community_join_group', { p_group_id: publicGroup?.id });
  for (const [who, days] of [
    [ada, [0, 1, 2, 4]],
    [bo, [0, 1, 3]],
    [cy, [1, 2, 3, 5, 6]],
    [dee, [2]],
  ] as const) {
    for (const day of days) {
      const started = new Date(Date.now() - day * 86_400_000 - 3 * 3_600_000);
      await rpc(who, 'record_study_session', {
        p_started_at: started.toISOString(),
        p_minutes: 25 + ((day * 17 + who.handle.length * 11) % 70),
        p_subject_name: 'Anatomy',
        p_correct: (day * 3) % 12,
      });
    }
  }
  await rpc(bo, 'community_heartbeat', {
    p_state: 'studying',
    p_subject_name: 'Anatomy',
    p_task_title: 'Brachial plexus flashcards',
    p_session_started_at: new Date(Date.now() - 38 * 60_000).toISOString(),
  });
  await rpc(cy, 'community_heartbeat', {
    p_state: 'break',
    p_subject_name: 'Physiology',
    p_session_started_at: new Date(Date.now() - 70 * 60_000).toISOString(),
  });
  await enroll(studyhall.url, bo, {
    shareTasks: true,
    shareSubjectBreakdown: true,
    shareQuestionCounts: true,
    shareCurrentSubject: true,
  });
  await enroll(studyhall.url, cy, { shareSubjectBreakdown: true });
  const lines: [Student, string][] = [
    [ada, 'Evening all! Plan for tonight: upper limb, then a quick quiz at 21:30.'],
    [bo, 'In. Doing the brachial plexus flashcards first.'],
    [bo, 'Anyone have a good mnemonic for the branches?'],
    [cy, 'Randy Travis Drinks Cold Beer: roots, trunks, divisions, cords, branches.'],
    [ada, 'Ha, that one sticks. Break at 21:00?'],
    [dee, 'Joining late today, save me a spot on the quiz.'],
  ];
  for (const [who, text] of lines)
    await rpc(who, 'community_send_group_message', { p_group_id: groupId, p_content: text });
  await rpc(ada, 'community_request_buddy', { p_handle: 'bo_park' });
  await rpc(ada, 'community_request_buddy', { p_handle: 'cy_n' });
  await rpc(dee, 'community_request_buddy', { p_handle: 'ada' });
  for (const who of [bo, cy]) {
    const [request] = await asStudent<{ id: string }[]>(
      studyhall.url,
      who,
      `/rest/v1/community_friends?select=id&friend_id=eq.${who.id}`,
    );
    await rpc(who, 'community_respond_buddy', { p_connection_id: request?.id, p_accept: true });
  }
  await asStudent(studyhall.url, bo, '/rest/v1/user_tasks', {
    body: [
      {
        id: crypto.randomUUID(),
        user_id: bo.id,
        title: 'Brachial plexus flashcards',
        task_day: new Date().toISOString().slice(0, 10),
        done: false,
      },
      {
        id: crypto.randomUUID(),
        user_id: bo.id,
        title: 'Upper limb muscle table',
        task_day: new Date().toISOString().slice(0, 10),
        done: true,
      },
    ],
  });
  const inviteToken = (await rpc(ada, 'community_create_invite', {
    p_type: 'group',
    p_target_id: groupId,
    p_days: 7,
  })) as string;
  await shoot(browser, ada, [
    { route: '/community', name: 'community' },
    { route: `/groups/${groupId}`, name: 'group-owner' },
    { route: '/buddies', name: 'buddies' },
    { route: '/settings/privacy', name: 'privacy' },
    { route: `/invite/${inviteToken}`, name: 'invite-member' },
  ]);
  await shoot(browser, bo, [{ route: `/groups/${groupId}`, name: 'group-member' }]);
  await shoot(browser, eve, [
    { route: `/groups/${groupId}`, name: 'group-unavailable' },
    { route: `/groups/${publicGroup?.id}`, name: 'group-outside' },
    { route: `/invite/${inviteToken}`, name: 'invite' },
    { route: '/invite/0000notavalidtoken', name: 'invite-invalid' },
  ]);
  await shoot(browser, null, [{ route: `/invite/${inviteToken}`, name: 'invite-signed-out' }]);
} finally {
  await browser.close();
  await proxy.close();
  await studyhall.stop();
  await temp.remove();
}
console.log(`screenshots in ${outDir}`);
