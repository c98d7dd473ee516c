// The community in Debian's Chromium, several students in their own browser contexts, against a
// real `npm start` on a fresh DATA_DIR under the app's Content-Security-Policy: a private,
// invite-only group joined by link (also by a visitor who signs up on the way), live chat both
// ways within a second, an outsider who finds nothing, a dropped realtime socket that leaves no gap
// and no duplicate, a removed member losing access; buddies with "not shared" against "nothing yet
// today" and stealth; start alerts end to end (Bo's device subscribes with the server's VAPID key,
// Ada starts focusing, a loopback push service decrypts one push naming her, nothing inside Bo's
// quiet hours, and the service worker shows that push and opens the buddy or group on a click);
// axe on every community screen, light and dark, phone and desktop; and no CSP violation anywhere.
// Then, on the same server with the same students (community-fixture.ts), live presence
// (presence-live.suite.ts). Moderation from the admin console has a file and a server of its own
// (moderation.e2e.test.ts), so the two run side by side.
import type { Browser, Page } from 'playwright-core';
import { startPushReceiver, type PushReceiver, type ReceiverSubscription } from '#gateway/test/push-receiver.ts';
import { inLook, signedInContext, type CspProxy, type CspViolation, type RunningStudyhall } from './app-driver.ts';
import { axeFindings } from './axe.ts';
import { DEVICES } from './browser.ts';
import { asStudent, chatIds, chatShows, dismissRestoreOffer, type Student } from './community-driver.ts';
import { openRoute, shareWhatIStudy, watchedPage } from './community-fixture.ts';
import { expect, studyhallTest } from './fixtures.ts';
import { describePresenceLive } from './presence-live.suite.ts';
import { fakePushSubscriptions } from './push-driver.ts';

const test = studyhallTest({
  // Push to the loopback push service over plain HTTP.
  env: { WEB_PUSH_ALLOW_HTTP: '1' },
});
test.describe.configure({ mode: 'serial' });

let studyhall: RunningStudyhall;
let proxy: CspProxy;
let browser: Browser;
let app: string;
let ada: Student;
let bo: Student;
let cy: Student;
const violations: CspViolation[] = [];
const pages = new Map<string, Page>();
/** Night Shift Anatomy, Ada's private group (its id, once created). */
let groupId = '';

function newPage(context: Parameters<typeof watchedPage>[0]): Promise<Page> {
  return watchedPage(context, violations);
}

/** Bo's browser runs in India (UTC+5:30), so "the browser's timezone" is not the server's. */
const TIMEZONES: Record<string, string> = { bo_park: 'Asia/Kolkata' };

/** One browser per student for the whole file (as a student keeps their tab open). */
async function pageOf(who: Student): Promise<Page> {
  const existing = pages.get(who.handle);
  if (existing) return existing;
  const context = await signedInContext(browser, who.session, {
    ...DEVICES.desktop,
    timezoneId: TIMEZONES[who.handle],
  });
  const page = await newPage(context);
  pages.set(who.handle, page);
  return page;
}

function open(page: Page, route: string): Promise<void> {
  return openRoute(page, app, route);
}

// Playwright reads a hook's fixtures from its destructuring pattern: each is named there.
test.beforeAll(async ({ studyhall: server, cspProxy, browser: chromium, app: address, ada: a, bo: b, cy: c }) => {
  [studyhall, proxy, browser, app, ada, bo, cy] = [server, cspProxy, chromium, address, a, b, c];
});

test.describe('a private, invite-only group', () => {
  let groupUrl = '';
  let inviteUrl = '';

  test('is created by Ada, who makes an invite link', async () => {
    const page = await pageOf(ada);
    await open(page, '/community');
    await page.getByRole('button', { name: 'Create a group' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Create a group' });
    await dialog.getByLabel('Name').fill('Night Shift Anatomy');
    await dialog.getByLabel('Description').fill('Anatomy before the March exam, evenings.');
    await dialog.getByRole('radio', { name: /Private/ }).check();
    await dialog.getByRole('radio', { name: /Invite link only/ }).check();
    await dialog.getByRole('button', { name: 'Create group' }).click();
    await page.waitForURL(/\/groups\/[0-9a-f-]{36}$/);
    groupUrl = page.url();
    groupId = groupUrl.split('/').pop() ?? '';
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Night Shift Anatomy');
    expect(await page.locator('.group-meta').textContent()).toContain('Private');

    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = page.getByRole('textbox', { name: 'Invite link' }).first();
    await expect.poll(() => link.inputValue()).toMatch(/\/invite\/[0-9a-f]{36}$/);
    inviteUrl = await link.inputValue();
    expect(inviteUrl.startsWith(app)).toBe(true);
  });

  test('is previewed and joined by Bo through the link', async () => {
    const page = await pageOf(bo);
    await page.goto(inviteUrl);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Night Shift Anatomy');
    expect(await page.locator('.invite-summary').textContent()).toMatch(/Ada invited you to join.*1 member/);
    await page.getByRole('button', { name: 'Join Night Shift Anatomy' }).click();
    await page.waitForURL(groupUrl);
    const board = page.getByRole('region', { name: 'Studying now' });
    // The group page after the join's navigation reads the board: a page load, not a promise of 1 s.
    await expect.poll(async () => (await board.textContent()) ?? '', { timeout: 5_000 }).toContain('Ada');
    expect(await board.textContent()).toContain('Bo (you)');
  });

  test('carries chat both ways live: each sees the other within a second, without reloading', async () => {
    const adaPage = await pageOf(ada);
    const boPage = await pageOf(bo);
    for (const page of [adaPage, boPage])
      await expect.poll(() => page.locator('.chat-status').textContent(), { timeout: 15_000 }).toContain('Live');

    const rounds: [Page, Page, string][] = [
      [adaPage, boPage, 'Flashcards at 9? Chapter 4, the brachial plexus.'],
      [boPage, adaPage, 'Yes! I will bring the muscle table.'],
    ];
    for (const [from, to, text] of rounds) {
      await from.getByRole('textbox', { name: 'Message' }).fill(text);
      const sentAt = Date.now();
      await from.getByRole('textbox', { name: 'Message' }).press('Enter');
      await chatShows(to, text, 1000);
      expect(Date.now() - sentAt).toBeLessThan(1000);
    }
    // Grouped by sender: Ada's message shows her name, Bo sees his own as "You".
    expect(await boPage.locator('.chat-run').last().locator('.chat-run-head strong').textContent()).toBe('You');
    expect(await boPage.locator('.chat-run').first().locator('.chat-run-head strong').textContent()).toBe('Ada');
  });

  test('stays hidden from Cy, who is not a member: not in search, not by its address', async () => {
    const page = await pageOf(cy);
    await open(page, '/community');
    await page.getByLabel('Find groups').fill('Night Shift');
    await expect.poll(() => page.getByText('No groups match “Night Shift”').isVisible()).toBe(true);
    await page.getByLabel('Find groups').fill('');
    await expect.poll(() => page.locator('main').textContent()).not.toContain('Night Shift Anatomy');
    await open(page, `/groups/${groupId}`);
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This group does not exist or is private');
    expect(await page.locator('main').textContent()).not.toContain('Night Shift Anatomy');
  });

  test('brings a signed-out visitor through sign-up and back to the invite, then in; a used-up link says so plainly', async () => {
    test.setTimeout(90_000);
    const adaPage = await pageOf(ada);
    await adaPage.getByLabel('Can be used').selectOption({ label: 'Once' });
    await adaPage.getByRole('button', { name: 'Create invite link' }).click();
    const fresh = adaPage.locator('.invite-list .is-fresh .invite-link');
    await expect.poll(() => fresh.inputValue()).not.toBe(inviteUrl);
    const onceUrl = await fresh.inputValue();
    expect(await adaPage.locator('.invite-list .is-fresh').textContent()).toContain('0 of 1 used');

    const visitorContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const visitor = await newPage(visitorContext);
    await visitor.goto(onceUrl);
    // A first page load for a new visitor, then the invite's preview read: no promise of 1 s.
    await expect
      .poll(() => visitor.locator('.invite-summary').textContent(), { timeout: 5_000 })
      .toContain('Night Shift Anatomy');
    await visitor.getByLabel('E-mail').fill('dee@example.com');
    await visitor.getByLabel('Password').fill('dee-password-1');
    await visitor.getByRole('button', { name: 'Create my account', exact: true }).click();
    await visitor.getByRole('button', { name: 'Join Night Shift Anatomy' }).click({ timeout: 20_000 });
    await visitor.waitForURL(groupUrl);
    await expect.poll(() => visitor.getByRole('region', { name: 'Studying now' }).textContent()).toContain('(you)');

    const cyPage = await pageOf(cy);
    await cyPage.goto(onceUrl);
    await expect
      .poll(() => cyPage.getByRole('heading', { level: 1 }).textContent())
      .toBe('This invite link does not work');
    expect(await cyPage.locator('main').textContent()).not.toContain('Night Shift');
    await visitorContext.close();
  });

  test('catches up after the realtime socket drops mid-conversation: no gap, no duplicate', async () => {
    test.setTimeout(90_000);
    const adaPage = await pageOf(ada);
    const boPage = await pageOf(bo);
    await expect.poll(() => boPage.locator('.chat-status').textContent()).toContain('Live');
    expect(proxy.dropWebSockets(3000)).toBeGreaterThanOrEqual(2);
    await expect
      .poll(() => boPage.locator('.chat-status').textContent(), { timeout: 10_000 })
      .toContain('Reconnecting');
    const during = ['During the drop, one.', 'During the drop, two.', 'During the drop, three.'];
    for (const text of during) {
      await adaPage.getByRole('textbox', { name: 'Message' }).fill(text);
      await adaPage.getByRole('textbox', { name: 'Message' }).press('Enter');
      await chatShows(adaPage, text, 5000);
    }
    for (const text of during) await chatShows(boPage, text, 20_000);
    await expect.poll(() => boPage.locator('.chat-status').textContent()).toContain('Live');
    await adaPage.getByRole('textbox', { name: 'Message' }).fill('And after it.');
    await adaPage.getByRole('textbox', { name: 'Message' }).press('Enter');
    await chatShows(boPage, 'And after it.', 2000);

    const truth = await asStudent<{ id: string }[]>(studyhall.url, ada, '/rest/v1/rpc/community_get_group_messages', {
      body: { p_group_id: groupId, p_limit: 200 },
    });
    const shown = await chatIds(boPage);
    expect(new Set(shown).size).toBe(shown.length);
    expect(shown).toEqual(truth.map((message) => message.id));
    // What came in while the socket was away is marked as new.
    expect(await boPage.locator('.chat-unread').count()).toBeLessThanOrEqual(1);
  });

  test('shuts Bo out once Ada removes him: his open page says so, and the address shows nothing', async () => {
    const adaPage = await pageOf(ada);
    const boPage = await pageOf(bo);
    await adaPage.getByRole('button', { name: 'Remove Bo from the group' }).click();
    const confirm = adaPage.getByRole('dialog', { name: 'Remove Bo from Night Shift Anatomy?' });
    expect(await confirm.textContent()).toContain('the private group disappears from their list');
    await confirm.getByRole('button', { name: 'Remove Bo' }).click();
    await expect.poll(() => adaPage.getByRole('region', { name: 'Studying now' }).textContent()).not.toContain('Bo');
    await expect
      .poll(() => boPage.getByRole('heading', { level: 1 }).textContent(), { timeout: 25_000 })
      .toBe('You are no longer a member of Night Shift Anatomy');
    await open(boPage, `/groups/${groupId}`);
    expect(await boPage.getByRole('heading', { level: 1 }).textContent()).toBe(
      'This group does not exist or is private',
    );
  });
});

test.describe('buddies', () => {
  const card = (page: Page, name: string) => page.getByRole('listitem', { name });
  const section = (page: Page, name: string, title: string) =>
    card(page, name).locator('.buddy-section', { hasText: title });

  test('are added by handle (an unknown handle is a field error) and accepted', async () => {
    const page = await pageOf(ada);
    await open(page, '/buddies');
    const handle = page.getByLabel('Their handle');
    await handle.fill('nobody_here');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect
      .poll(() => page.locator('#buddy-handle-error').textContent())
      .toContain('No student has the handle “nobody_here”');
    expect(await handle.getAttribute('aria-invalid')).toBe('true');
    await handle.fill('bo_park');
    await page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => page.getByText('Request sent to @bo_park.').isVisible()).toBe(true);
    expect(await page.getByRole('list', { name: 'Your requests' }).textContent()).toContain('Bo');

    const boPage = await pageOf(bo);
    await open(boPage, '/buddies');
    await boPage.getByRole('button', { name: 'Accept Ada' }).click();
    await expect.poll(() => card(boPage, 'Ada').isVisible()).toBe(true);
    await page.reload();
    await expect.poll(() => card(page, 'Bo').isVisible()).toBe(true);
    expect(await page.getByRole('list', { name: 'Your requests' }).count()).toBe(0);
  });

  test('show "not shared" for what Bo keeps private and "nothing yet today" for what he shares but has not done', async () => {
    const boPage = await pageOf(bo);
    await open(boPage, '/settings/privacy');
    for (const name of ["Share today's tasks", 'Share minutes per subject']) {
      await boPage.getByRole('switch', { name }).click();
      await expect.poll(() => boPage.getByRole('switch', { name }).getAttribute('aria-checked')).toBe('true');
    }
    await expect
      .poll(() => boPage.getByRole('status').filter({ hasText: 'Saved: Share minutes per subject on.' }).count())
      .toBe(1);
    const adaPage = await pageOf(ada);
    await adaPage.reload();
    await expect.poll(() => section(adaPage, 'Bo', 'Tasks today').textContent()).toContain('Nothing yet today');
    expect(await section(adaPage, 'Bo', 'Subjects today').textContent()).toContain('Nothing yet today');

    await boPage.getByRole('switch', { name: "Share today's tasks" }).click();
    await expect
      .poll(() => boPage.getByRole('switch', { name: "Share today's tasks" }).getAttribute('aria-checked'))
      .toBe('false');
    expect(await boPage.locator('#shareTasks-statement').textContent()).toBe(
      'Your tasks stay private: buddies see a lock instead.',
    );
    await expect
      .poll(() => boPage.getByRole('status').filter({ hasText: "Saved: Share today's tasks off." }).count())
      .toBe(1);
    await adaPage.reload();
    await expect.poll(() => section(adaPage, 'Bo', 'Tasks today').textContent()).toContain('not shared');
    expect(await section(adaPage, 'Bo', 'Tasks today').locator('.not-shared').count()).toBe(1);
    expect(await section(adaPage, 'Bo', 'Subjects today').textContent()).toContain('Nothing yet today');
    expect(await section(adaPage, 'Bo', 'Subjects today').locator('.not-shared').count()).toBe(0);
  });

  test('show Bo studying while he focuses, and offline once he turns on stealth', async () => {
    const boPage = await pageOf(bo);
    await boPage.getByRole('switch', { name: 'Take part in the community' }).click();
    await expect
      .poll(() => boPage.getByRole('status').filter({ hasText: 'Saved: Community sharing on.' }).count())
      .toBe(1);
    await open(boPage, '/focus');
    await boPage.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await boPage.getByLabel('New subject').fill('Anatomy');
    await boPage.getByRole('button', { name: 'Add', exact: true }).click();
    await boPage.getByRole('button', { name: 'Start' }).click();

    const adaPage = await pageOf(ada);
    await expect
      .poll(
        async () => {
          await adaPage.reload();
          return card(adaPage, 'Bo').locator('.buddy-now').textContent();
        },
        { timeout: 15_000 },
      )
      .toContain('Studying');

    await open(boPage, '/settings/privacy');
    await boPage.getByRole('switch', { name: 'Stealth mode' }).click();
    await expect.poll(() => boPage.getByRole('status').filter({ hasText: 'Saved: Stealth mode on.' }).count()).toBe(1);
    await adaPage.reload();
    await expect.poll(() => card(adaPage, 'Bo').locator('.buddy-now').textContent()).toContain('Offline');
    expect(await card(adaPage, 'Bo').locator('.buddy-now').textContent()).not.toContain('Anatomy');
  });
});

test.describe('start alerts, end to end', () => {
  let receiver: PushReceiver;
  let device: ReceiverSubscription;
  let vapidKey = '';
  let libraryId = '';

  test.beforeAll(async () => {
    const served = await fetch(`${studyhall.url}/api/push/vapid-public-key`);
    expect(served.status).toBe(200);
    vapidKey = ((await served.json()) as { public_key: string }).public_key;
    // The push service Bo's browser would use, on loopback: it checks the VAPID signature against
    // the server's key and decrypts each push with the subscription's private key.
    receiver = await startPushReceiver({ expectedVapidKey: vapidKey });
    device = receiver.subscribe();
  });

  test.afterAll(async () => {
    await receiver?.close();
  });

  /** "HH:MM" on Bo's clock (his browser is in UTC+5:30), `hours` from now. */
  const boClock = (hours: number) =>
    new Date(Date.now() + 330 * 60_000 + hours * 3_600_000).toISOString().slice(11, 16);

  async function saveQuietHours(page: Page, from: string, until: string): Promise<void> {
    await page.getByLabel('Quiet from').fill(from);
    await page.getByLabel('until').fill(until);
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await expect.poll(() => page.getByText(`Quiet from ${from} until ${until}.`).isVisible()).toBe(true);
  }

  const pushesToBo = () => receiver.received.filter((push) => push.subscriptionId === device.id);

  test("subscribes Bo's device with the server's VAPID key and stores the subscription as a device token", async () => {
    const page = await pageOf(bo);
    const context = page.context();
    await context.grantPermissions(['notifications'], { origin: app });
    // A test can replace the subscription later (test-push-token), as a browser may do on its own.
    await fakePushSubscriptions(context, device.token);
    await open(page, '/buddies');
    await page.getByRole('button', { name: 'Allow notifications on this device' }).click();
    await expect.poll(() => page.getByText('This device receives start alerts.').isVisible()).toBe(true);
    const usedKey = JSON.parse((await page.evaluate(() => localStorage.getItem('test-push-key'))) ?? '[]') as number[];
    expect(Buffer.from(usedKey).toString('base64url')).toBe(vapidKey);
    const tokens = await asStudent<{ token: string }[]>(
      studyhall.url,
      bo,
      '/rest/v1/community_device_tokens?select=token',
    );
    expect(tokens.map((row) => JSON.parse(row.token) as unknown)).toEqual([JSON.parse(device.token)]);
  });

  test("rings the bell on Ada's card, with quiet hours in the browser's timezone", async () => {
    const page = await pageOf(bo);
    const [from, until] = [boClock(2), boClock(3)];
    await saveQuietHours(page, from, until);
    const bell = page.getByRole('button', { name: 'Alert me when Ada starts studying' });
    expect(await bell.getAttribute('aria-pressed')).toBe('false');
    await bell.click();
    await expect.poll(() => bell.getAttribute('aria-pressed')).toBe('true');
    const alerts = await asStudent<Record<string, unknown>[]>(
      studyhall.url,
      bo,
      '/rest/v1/community_start_alerts?select=target_type,target_id,enabled,quiet_start,quiet_end,timezone_offset_minutes',
    );
    expect(alerts).toEqual([
      {
        target_type: 'buddy',
        target_id: ada.id,
        enabled: true,
        quiet_start: `${from}:00`,
        quiet_end: `${until}:00`,
        timezone_offset_minutes: 330,
      },
    ]);
  });

  test("delivers one push naming Ada to Bo's device within 5 s of Ada starting to focus", async () => {
    const page = await pageOf(ada);
    await open(page, '/settings/privacy');
    await shareWhatIStudy(page);
    await open(page, '/focus');
    await page.getByLabel('Subject').selectOption({ label: 'New subject…' });
    await page.getByLabel('New subject').fill('Anatomy');
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    expect(pushesToBo()).toEqual([]);
    const startedAt = Date.now();
    await page.getByRole('button', { name: 'Start' }).click();
    const [push] = await receiver.waitForReceived(1, 5000, device.id);
    expect(push!.receivedAt - startedAt).toBeLessThan(5000);
    expect(push!.payload).toEqual({
      type: 'start_alert',
      actor: { id: ada.id, handle: 'ada' },
      target_type: 'buddy',
      target_id: ada.id,
      started_at: expect.any(String),
      subject: 'Anatomy',
      url: '/buddies',
    });
    // One, not one per heartbeat.
    await page.waitForTimeout(2000);
    expect(pushesToBo()).toHaveLength(1);
    expect(receiver.rejected).toEqual([]);
  });

  test('sends nothing inside the quiet hours Bo set in his browser, and again once they are over', async () => {
    const boPage = await pageOf(bo);
    const adaPage = await pageOf(ada);
    await saveQuietHours(boPage, boClock(-1), boClock(1));
    await adaPage.getByRole('button', { name: 'Pause' }).click();
    await adaPage.getByRole('button', { name: 'Resume' }).click();
    await adaPage.waitForTimeout(3000);
    expect(pushesToBo()).toHaveLength(1);
    expect(receiver.attempts.get(device.id)).toBe(1);

    // The same step outside the quiet hours does alert: the silence above was the quiet hours.
    await saveQuietHours(boPage, boClock(2), boClock(3));
    await adaPage.getByRole('button', { name: 'Pause' }).click();
    await adaPage.getByRole('button', { name: 'Resume' }).click();
    await receiver.waitForReceived(2, 5000, device.id);
    await adaPage.getByRole('button', { name: 'Finish' }).click();
  });

  test('shows the pushed start alert from the service worker, and a click opens the buddy or the group', async () => {
    const page = await pageOf(bo);
    const context = page.context();
    const created = await asStudent<{ id: string }[]>(studyhall.url, bo, '/rest/v1/groups?select=id', {
      body: { name: 'Quiet Library', visibility: 'public', join_policy: 'open', created_by: bo.id },
      prefer: 'return=representation',
    });
    libraryId = created[0]?.id ?? '';
    await open(page, '/focus');
    await page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller)
        await new Promise((resolve) =>
          navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }),
        );
    });
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = [];
    cdp.on('ServiceWorker.workerRegistrationUpdated', (event) => registrations.push(...event.registrations));
    await cdp.send('ServiceWorker.enable');
    await expect
      .poll(() => registrations.some((registration) => !registration.isDeleted && registration.scopeURL === `${app}/`))
      .toBe(true);
    const registrationId =
      registrations.find((registration) => !registration.isDeleted && registration.scopeURL === `${app}/`)
        ?.registrationId ?? '';
    const push = (payload: unknown) =>
      cdp.send('ServiceWorker.deliverPushMessage', {
        origin: `${app}/`,
        registrationId,
        data: JSON.stringify(payload),
      });
    const shown = () =>
      page.evaluate(async () =>
        (await (await navigator.serviceWorker.ready).getNotifications()).map((item) => ({
          title: item.title,
          url: (item.data as { url: string }).url,
        })),
      );

    // Exactly what the push service delivered to Bo's device when Ada started.
    await push(pushesToBo()[0]?.payload);
    await expect.poll(shown).toEqual([{ title: 'ada started studying Anatomy', url: '/buddies' }]);
    await push({
      type: 'start_alert',
      actor: { id: ada.id, handle: 'ada' },
      target_type: 'group',
      target_id: libraryId,
      started_at: new Date().toISOString(),
      subject: null,
      url: `/groups/${libraryId}`,
    });
    await expect.poll(async () => (await shown()).length).toBe(2);
    expect((await shown())[1]).toEqual({ title: 'ada started studying', url: `/groups/${libraryId}` });

    const worker = context.serviceWorkers().find((candidate) => candidate.url().startsWith(app));
    if (!worker) throw new Error('no service worker for the app');
    // A click on the notification, as the browser dispatches it in the worker.
    const click = (url: string) =>
      worker.evaluate(async (wanted) => {
        interface WorkerScope extends EventTarget {
          registration: ServiceWorkerRegistration;
          NotificationEvent: new (type: string, init: { notification: Notification }) => Event;
        }
        const scope = self as unknown as WorkerScope;
        const notification = (await scope.registration.getNotifications()).find(
          (item: Notification) => (item.data as { url: string }).url === wanted,
        );
        if (!notification) throw new Error(`no notification for ${wanted}`);
        scope.dispatchEvent(new scope.NotificationEvent('notificationclick', { notification }));
      }, url);
    await click(`/groups/${libraryId}`);
    await page.waitForURL(`${app}/groups/${libraryId}`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Quiet Library');
    await click('/buddies');
    await page.waitForURL(`${app}/buddies`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Buddies');
    await expect.poll(async () => (await shown()).length).toBe(0);
  });

  test('registers a subscription the browser replaced, and drops the old one', async () => {
    const page = await pageOf(bo);
    const replacement = receiver.subscribe();
    await page.evaluate((token) => localStorage.setItem('test-push-token', token), replacement.token);
    await open(page, '/buddies');
    await expect.poll(() => page.getByText('This device receives start alerts.').isVisible()).toBe(true);
    await expect
      .poll(async () =>
        (await asStudent<{ token: string }[]>(studyhall.url, bo, '/rest/v1/community_device_tokens?select=token')).map(
          (row) => JSON.parse(row.token) as unknown,
        ),
      )
      .toEqual([JSON.parse(replacement.token)]);
  });
});

test.describe('accessibility', () => {
  const looks = [
    { colorScheme: 'light', viewport: { width: 1280, height: 800 } },
    { colorScheme: 'dark', viewport: { width: 1280, height: 800 } },
    { colorScheme: 'light', viewport: { width: 390, height: 844 } },
    { colorScheme: 'dark', viewport: { width: 390, height: 844 } },
  ] as const;

  test('has no serious or critical axe violation on any community screen, light or dark, phone or desktop', async () => {
    test.setTimeout(240_000);
    expect(groupId).not.toBe('');
    const token = await asStudent<string>(studyhall.url, ada, '/rest/v1/rpc/community_create_invite', {
      body: { p_type: 'group', p_target_id: groupId },
    });
    const buddyToken = await asStudent<string>(studyhall.url, ada, '/rest/v1/rpc/community_create_invite', {
      body: { p_type: 'buddy', p_target_id: ada.id },
    });
    // Who looks at what: Ada owns the group (so its page shows every owner tool), Cy is outside it.
    const screens: {
      who: Student;
      route: string;
      ready: (page: Page) => Promise<unknown>;
      open?: (page: Page) => Promise<unknown>;
    }[] = [
      { who: ada, route: '/community', ready: (page) => page.locator('.group-row-title, .empty').first().waitFor() },
      {
        who: ada,
        route: '/community',
        ready: (page) => page.locator('main h1').waitFor(),
        open: (page) =>
          page
            .getByRole('button', { name: 'Create a group' })
            .first()
            .click()
            .then(() => page.getByRole('dialog', { name: 'Create a group' }).waitFor()),
      },
      {
        who: ada,
        route: `/groups/${groupId}`,
        ready: (page) => page.locator('.chat-message').first().waitFor(),
        open: (page) => page.locator('details.disclosure summary').first().click(),
      },
      {
        who: cy,
        route: `/groups/${groupId}`,
        ready: (page) => page.getByRole('heading', { name: 'This group does not exist or is private' }).waitFor(),
      },
      {
        who: cy,
        route: `/invite/${token}`,
        ready: (page) => page.getByRole('button', { name: 'Join Night Shift Anatomy' }).waitFor(),
      },
      { who: cy, route: `/invite/${buddyToken}`, ready: (page) => page.locator('.invite-summary').waitFor() },
      {
        who: cy,
        route: '/invite/00000000-0000-4000-8000-000000000000',
        ready: (page) => page.getByRole('heading', { name: 'This invite link does not work' }).waitFor(),
      },
      { who: ada, route: '/buddies', ready: (page) => page.getByRole('listitem', { name: 'Bo' }).waitFor() },
      {
        who: bo,
        route: '/settings/privacy',
        ready: (page) => page.getByRole('switch', { name: 'Stealth mode' }).waitFor(),
      },
    ];
    const found: string[] = [];
    // One browser per student for every look, each screen opened once and switched through the four
    // looks (the app's themes and layouts are CSS media queries, which a page switched to a look
    // follows, as a phone turned or a system switched to dark does): a page load per screen, not per
    // look, and no new browser each settling a first visit.
    const opened = new Map<string, Page>();
    const [firstLook] = looks;
    for (const { who, route, ready, open: reveal } of screens) {
      let page = opened.get(who.handle);
      const firstVisit = !page;
      if (!page) {
        const context = await signedInContext(browser, who.session, {
          colorScheme: firstLook.colorScheme,
          viewport: firstLook.viewport,
          reducedMotion: 'reduce',
        });
        page = await newPage(context);
        opened.set(who.handle, page);
      }
      await inLook(page, firstLook.colorScheme, firstLook.viewport);
      await open(page, route);
      await ready(page);
      // A student with a backup (Ada, since she finished a session) is offered it in every new
      // browser once the app has asked the server, which can be after the page has drawn; once
      // declined, that browser is not offered it again.
      if (firstVisit) await page.waitForLoadState('networkidle').catch(() => undefined);
      await dismissRestoreOffer(page);
      if (reveal) await reveal(page);
      for (const { colorScheme, viewport } of looks) {
        await inLook(page, colorScheme, viewport);
        found.push(
          ...(await axeFindings(
            page,
            `${route}${reveal ? ' (opened)' : ''} as ${who.handle}, ${colorScheme} ${viewport.width}`,
          )),
        );
      }
    }
    for (const page of opened.values()) await page.context().close();
    // A signed-out visitor on an invite sees the preview and the sign-up form together.
    const visitorContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const visitor = await newPage(visitorContext);
    await visitor.goto(`${app}/invite/${token}`);
    await visitor.locator('.invite-summary').waitFor();
    found.push(...(await axeFindings(visitor, `/invite signed out`)));
    await visitorContext.close();
    expect(found).toEqual([]);
  });

  test('loads every community screen without a Content-Security-Policy violation', () => {
    expect(violations).toEqual([]);
  });
});

describePresenceLive(test);
