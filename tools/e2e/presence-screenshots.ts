// Screenshots of the screens that show presence (a group board and the buddies page) as Bo sees
// them while his friends study, at 390x844 and 1280x800, light and dark, with axe run on each (every
// violation printed, whatever its impact), from a fresh `npm start` this script runs itself (for
// looking at, not a test; the exit code is 1 when axe found anything). Usage:
//   node --import tsx tools/e2e/presence-screenshots.ts <out dir>
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';
import { signedInContext, startCspProxy, startStudyhall, VIEWPORTS } from './app-driver.ts';
import { launchChromium } from './browser.ts';
import { asStudent, dismissRestoreOffer, enroll, student, type Privacy, type Student } from './community-driver.ts';
import { joinedGroupOfTwo } from './presence-driver.ts';

const [outDir] = process.argv.slice(2);
if (!outDir) {
  console.error('usage: presence-screenshots.ts <out dir>');
  process.exit(2);
}
await mkdir(outDir, { recursive: true });
await ensureViteBuild(VITE_BUILDS.web);
const temp = await makeTempDir('presence-screens');
const studyhall = await startStudyhall({ dataDir: path.join(temp.dir, 'data'), logDir: path.join(temp.dir, 'logs') });
const proxy = await startCspProxy(studyhall.url);
const browser = await launchChromium();
const problems: string[] = [];

const rpc = (who: Student, name: string, body: object) =>
  asStudent(studyhall.url, who, `/rest/v1/rpc/${name}`, { body });

const switches = (who: Student, privacy: Partial<Privacy>) => enroll(studyhall.url, who, privacy);

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();

try {
  const bo = await student(studyhall.url, 'Bo', 'bo_park');
  const ada = await student(studyhall.url, 'Ada Lovelace', 'ada');
  const cy = await student(studyhall.url, 'Cy', 'cy_k');
  const dee = await student(studyhall.url, 'Dee Okafor', 'dee_o');
  const eve = await student(studyhall.url, 'Eve', 'eve_s');
  const groupId = await joinedGroupOfTwo(studyhall.url, ada, bo, 'Night Shift Anatomy');
  const token = await rpc(ada, 'community_create_invite', { p_type: 'group', p_target_id: groupId });
  for (const who of [cy, dee, eve]) await rpc(who, 'community_redeem_invite', { p_token: token });
  for (const who of [ada, cy, dee]) {
    const request = await rpc(bo, 'community_request_buddy', { p_handle: who.handle });
    await rpc(who, 'community_respond_buddy', { p_connection_id: request, p_accept: true });
  }
  await switches(ada, { shareCurrentSubject: true, shareTasks: true });
  await switches(cy, {});
  await switches(dee, { shareCurrentSubject: true });
  await switches(eve, { stealthMode: true });
  await switches(bo, {});

  for (const size of Object.keys(VIEWPORTS) as (keyof typeof VIEWPORTS)[]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      // Presence is live for two minutes: say it again before each round of shots.
      await rpc(ada, 'community_heartbeat', {
        p_state: 'studying',
        p_subject_name: 'Anatomy',
        p_task_title: 'Upper limb: brachial plexus',
        p_session_started_at: minutesAgo(25),
      });
      await rpc(cy, 'community_heartbeat', {
        p_state: 'break',
        p_subject_name: 'Physiology',
        p_session_started_at: minutesAgo(70),
      });
      await rpc(dee, 'community_heartbeat', {
        p_state: 'idle',
        p_subject_name: 'Biochemistry',
        p_session_started_at: minutesAgo(8),
      });
      await rpc(eve, 'community_heartbeat', {
        p_state: 'studying',
        p_subject_name: 'Histology',
        p_session_started_at: minutesAgo(3),
      });
      const context = await signedInContext(browser, bo.session, {
        viewport: VIEWPORTS[size],
        colorScheme,
        reducedMotion: 'reduce',
      });
      const page = await context.newPage();
      for (const [route, name, ready] of [
        [`/groups/${groupId}`, 'group-board', 'section.board[data-live="true"]'],
        ['/buddies', 'buddies', '.buddy-grid[data-live="true"]'],
      ] as const) {
        await page.goto(`${proxy.url}${route}`);
        await dismissRestoreOffer(page);
        await page.locator(ready).waitFor({ timeout: 30_000 });
        await page.waitForTimeout(500);
        const file = `${name}-${size}-${colorScheme}`;
        await page.screenshot({ path: path.join(outDir, `${file}.png`), fullPage: true });
        await page.screenshot({ path: path.join(outDir, `${file}-first-screen.png`) });
        const result = await new AxeBuilder({ page }).analyze();
        for (const violation of result.violations)
          problems.push(
            `${file}: ${violation.impact ?? ''} ${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
          );
      }
      await context.close();
    }
  }
  console.log(`screenshots in ${outDir}`);
  console.log(problems.length === 0 ? 'axe: no violation on any screen' : `axe:\n${problems.join('\n')}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  await browser.close();
  await proxy.close();
  await studyhall.stop();
  await temp.remove();
}
