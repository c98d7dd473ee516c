// The admin console on `npm start` with the embedded localbase, in Debian's Chromium: unlock with
// the secret from the keyboard, run the browser proof (service worker, IndexedDB, login round trip)
// and see its report recorded; `npm run verify` exits 0, then 1 once a leaderboard policy is
// dropped; the verify page links to the patch, a wrong token is refused by the Management API,
// the right one repairs it through the page's form, and neither token is written under DATA_DIR
// or LOG_DIR. Screenshots of every page at 1280x800 and 390x844, light and dark, go to
// .tmp/screenshots/admin/ for a person to look at.
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { repoRoot } from '#db/paths.ts';
import type { RunningStudyhall } from '#tools/e2e/app-driver.ts';
import { expect, studyhallTest } from '#tools/e2e/fixtures.ts';

const SECRET = 'e2e-admin-secret-of-good-length';
const SCREENSHOTS = path.join(repoRoot, '.tmp', 'screenshots', 'admin');
const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

function run(
  command: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, command, {
      cwd: repoRoot,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const verifyCli = (args: string[], secret = SECRET) =>
  run(['--import', 'tsx', path.join(repoRoot, 'tools', 'verify', 'cli.ts'), ...args], { ADMIN_SECRET: secret });

const test = studyhallTest({
  env: {
    // Everything the server says, at its most talkative, is kept under LOG_DIR (see the token check).
    LOG_LEVEL: 'trace',
    ENABLE_ADMIN_MODE: 'true',
    ADMIN_SECRET: SECRET,
  },
});
test.describe.configure({ mode: 'serial' });

let server: RunningStudyhall;
let dataDir: string;
let logDir: string;
let appUrl: string;
let localbaseUrl: string;
let accessToken: string;
let context: BrowserContext;
let page: Page;

async function managementQuery(query: string, token = accessToken): Promise<Response> {
  return fetch(`${localbaseUrl}/v1/projects/local/database/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
}

async function screenshots(name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize(viewport);
      await page.emulateMedia({ colorScheme });
      await page.screenshot({
        path: path.join(SCREENSHOTS, `${name}-${viewport.width}x${viewport.height}-${colorScheme}.png`),
        fullPage: false,
      });
    }
  }
  await page.setViewportSize(VIEWPORTS[0] ?? { width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
}

async function filesContaining(dirs: string[], needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      if ((await readFile(file)).includes(Buffer.from(needle))) found.push(path.relative(dir, file));
    }
  }
  return found;
}

test.beforeAll(async ({ studyhall, browser }) => {
  server = studyhall;
  dataDir = studyhall.dataDir;
  logDir = studyhall.logDir;
  await mkdir(logDir, { recursive: true });
  await mkdir(SCREENSHOTS, { recursive: true });
  appUrl = `http://localhost:${new URL(studyhall.url).port}`;
  localbaseUrl = studyhall.localbaseUrl;
  accessToken = (await studyhall.keys()).accessToken;
  context = await browser.newContext({ baseURL: appUrl, viewport: VIEWPORTS[0] });
  page = await context.newPage();
});

test.afterAll(async () => {
  await context?.close();
});

test.describe('the admin console in Chromium', () => {
  test('unlocks with the secret from the keyboard and lands on an all-green verify page', async () => {
    test.setTimeout(90_000);
    await page.goto('/__admin/verify');
    expect(new URL(page.url()).pathname).toBe('/__admin/login');
    await screenshots('login');
    // The secret field has the focus; typing and Enter is the whole unlock.
    await page.keyboard.type(SECRET);
    await page.keyboard.press('Enter');
    await page.waitForURL('**/__admin/verify', { timeout: 60_000 });
    await expect.poll(() => page.textContent('main .banner')).toMatch(/^All \d+ checks pass\.$/);
    await screenshots('verify-green');
  });

  test('runs the browser proof and records its report: service worker, IndexedDB and login round trip all pass', async () => {
    test.setTimeout(120_000);
    await page.goto('/__admin/browser-proof');
    await page.waitForFunction(() => document.body.dataset.proof !== undefined, undefined, { timeout: 60_000 });
    const rows = await page.$$eval('tr[data-check]', (items) =>
      items.map((row) => [row.getAttribute('data-check'), row.querySelector('.state')?.textContent]),
    );
    expect(rows).toEqual([
      ['service_worker', '✓ pass'],
      ['indexeddb', '✓ pass'],
      ['login', '✓ pass'],
    ]);
    expect(await page.evaluate(() => document.body.dataset.proof)).toBe('passed');
    const recorded = await page.evaluate(async () =>
      (await fetch('/__admin/browser-proof', { headers: { accept: 'application/json' } })).json(),
    );
    expect(recorded.last_reports[0]).toMatchObject({ ok: true });
    expect(recorded.last_reports[0].checks.map((item: { name: string; ok: boolean }) => [item.name, item.ok])).toEqual([
      ['service_worker', true],
      ['indexeddb', true],
      ['login', true],
    ]);
    // Viewing it again shows that run, with a button to run it again.
    await page.reload();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/^Last run .* passed/);
    await screenshots('browser-proof');
    // The temporary accounts are gone again.
    const left = await (
      await managementQuery(`select count(*)::int as count from auth.users where email like 'browser-proof-%'`)
    ).json();
    expect(left).toEqual([{ count: 0 }]);
  });

  test('gets `npm run verify -- --base-url` to exit 0 on a healthy server', async () => {
    test.setTimeout(120_000);
    const plain = await verifyCli(['--base-url', appUrl]);
    expect(plain.code, plain.stdout + plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(/verify: all \d+ checks pass/);
    expect(plain.stdout).toMatch(/browser proof: last report .*, passed \(not counted\)/);
    const json = await verifyCli(['--base-url', appUrl, '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, counts: { failed: 0 } });
    const wrongSecret = await verifyCli(['--base-url', appUrl], 'not-the-secret-at-all');
    expect(wrongSecret.code).toBe(1);
    expect(wrongSecret.stderr).toContain('sign-in refused: 401 invalid_admin_secret');
  });

  test('goes red when a leaderboard policy is dropped, and the page repairs it with the right token only', async () => {
    test.setTimeout(240_000);
    const dropped = await managementQuery(
      'drop policy "authenticated read all summaries for leaderboards" on public.user_stats_summary',
    );
    expect(dropped.status).toBe(201);
    const red = await verifyCli(['--base-url', appUrl]);
    expect(red.code).toBe(1);
    expect(red.stdout).toContain(
      '✗ Policy "authenticated read all summaries for leaderboards" on public.user_stats_summary: Missing',
    );
    expect(red.stdout).toContain(
      `fix: Apply leaderboard-rls-fix.sql. ${appUrl}/__admin/patch?bundle=leaderboard-rls-fix.sql#apply`,
    );

    await page.goto('/__admin/verify');
    await screenshots('verify-red');
    await page.click('text=Apply leaderboard-rls-fix.sql.');
    await page.waitForURL('**/__admin/patch?bundle=leaderboard-rls-fix.sql#apply');
    expect(await page.inputValue('select[name=bundle]')).toBe('leaderboard-rls-fix');
    await screenshots('patch');

    const wrongToken = `sbp_${'f'.repeat(40)}`;
    await page.fill('input[name=access_token]', wrongToken);
    await page.check('input[name=confirm]');
    await page.click('button.danger');
    await page.waitForURL('**/__admin/apply-sql');
    expect(await page.textContent('h1')).toBe('Apply: refused');
    expect(await page.textContent('pre')).toContain('Unauthorized');
    await screenshots('apply-refused');
    expect((await verifyCli(['--base-url', appUrl])).code).toBe(1);

    await page.goto('/__admin/patch?bundle=leaderboard-rls-fix.sql');
    await page.fill('input[name=access_token]', accessToken);
    await page.check('input[name=confirm]');
    await page.click('button.danger');
    await page.waitForURL('**/__admin/apply-sql');
    expect(await page.textContent('h1')).toBe('Apply: done');
    expect(await page.content()).not.toContain(accessToken);
    await screenshots('apply-done');
    const green = await verifyCli(['--base-url', appUrl]);
    expect(green.code, green.stdout).toBe(0);

    // Neither token is written under DATA_DIR or LOG_DIR (the real one only where localbase keeps
    // its own keys), though everything was logged at trace level.
    const output = server.output();
    expect(output.length).toBeGreaterThan(10_000);
    await writeFile(path.join(logDir, 'studyhall.log'), output);
    expect(await filesContaining([dataDir, logDir], wrongToken)).toEqual([]);
    expect(await filesContaining([dataDir, logDir], accessToken)).toEqual(['keys.json']);
  });

  test('shows sync, storage and roles with real data, reachable by keyboard shortcuts', async () => {
    test.setTimeout(180_000);
    // A student with a rich backup, then a poor one, and two avatars.
    const student = await page.evaluate(async () => {
      const json = { 'content-type': 'application/json' };
      const signup = await (
        await fetch('/__auth/signup', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ username: 'june@example.com', password: 'june-password-1' }),
        })
      ).json();
      const auth = { ...json, authorization: `Bearer ${signup.session.access_token}` };
      const rich = {
        sessions: Array.from({ length: 14 }, (_, minutes) => ({ minutes })),
        settings: { theme: 'dark', sound: true },
      };
      await fetch('/__auth/backup', { method: 'POST', headers: auth, body: JSON.stringify({ payload: rich }) });
      await fetch('/__auth/backup', {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ payload: { sessions: [] } }),
      });
      const png =
        'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
      for (let index = 0; index < 2; index++)
        await fetch('/__auth/profile', { method: 'POST', headers: auth, body: JSON.stringify({ avatar_url: png }) });
      return signup.user.id as string;
    });
    await page.goto('/__admin/roles');
    await page.fill('input[name=account]', 'june@example.com');
    await page.keyboard.press('Enter');
    await page.waitForLoadState();
    expect(await page.textContent('main .banner')).toBe('june@example.com can now unlock the console.');
    await screenshots('roles');

    // g then s: the sync page, without touching the mouse.
    await page.locator('main').click({ position: { x: 1, y: 1 } });
    await page.keyboard.press('g');
    await page.keyboard.press('s');
    await page.waitForURL('**/__admin/sync');
    expect(await page.textContent(`#user-${student}`)).toContain('june@example.com');
    await screenshots('sync');
    await page.click('text=Preview the repair (dry run)');
    await page.waitForURL('**/__admin/sync/repair-user-backup');
    expect(await page.textContent('h1')).toBe('Repair preview (nothing written)');
    await screenshots('repair-preview');

    await page.keyboard.press('g');
    await page.keyboard.press('o');
    await page.waitForURL('**/__admin/storage');
    expect(await page.textContent('main')).toContain('an older avatar, not the one the profile shows');
    await screenshots('storage');
    await page.click('text=Preview the cleanup');
    await page.waitForURL('**/__admin/storage/cleanup-preview');
    await screenshots('cleanup-preview');
  });

  test('stops cleanly on SIGTERM', async () => {
    test.setTimeout(30_000);
    expect(await server.stop()).toBe(0);
  });
});
