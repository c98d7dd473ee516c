// `npx cap sync android` works offline: on a copy of the committed Android project and the built
// remote, with the network cut off (a fresh network namespace via `unshare -rn`), it copies the web
// assets, writes the Capacitor config with CapacitorHttp on, registers the Preferences plugin, and
// leaves the manifest exactly as committed. This is how CI proves the sync needs no network.
import { spawnSync } from 'node:child_process';
import { cp, mkdir, readFile, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '#gateway/test/helpers.ts';
import { repoRoot } from '#db/paths.ts';
import { ensureViteBuild, VITE_BUILDS } from '#tools/build/vite-build.mjs';

// What `cap sync` writes and the repository ignores: never copied in, so the sync must make them.
const GENERATED = [
  'app/build',
  'app/src/main/assets',
  'app/src/main/res/xml/config.xml',
  'capacitor-cordova-android-plugins',
  '.gradle',
  'build',
];

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let result: ReturnType<typeof spawnSync>;
let offline: boolean;
const copiedAndroid = () => path.join(temp.dir, 'companion', 'android');

beforeAll(async () => {
  await ensureViteBuild(VITE_BUILDS.companion);
  temp = await makeTempDir('cap-sync');
  const sourceAndroid = path.join(repoRoot, 'companion', 'android');
  await cp(sourceAndroid, copiedAndroid(), {
    recursive: true,
    filter: (source) => !GENERATED.some((generated) => source === path.join(sourceAndroid, generated)),
  });
  await mkdir(path.join(temp.dir, 'companion', 'ui'), { recursive: true });
  await cp(path.join(repoRoot, VITE_BUILDS.companion.outDir), path.join(temp.dir, 'companion', 'ui', 'dist'), {
    recursive: true,
  });
  for (const file of ['capacitor.config.ts', 'package.json'])
    await cp(path.join(repoRoot, file), path.join(temp.dir, file));
  await symlink(path.join(repoRoot, 'node_modules'), path.join(temp.dir, 'node_modules'), 'dir');

  const cli = path.join(repoRoot, 'node_modules', '@capacitor', 'cli', 'bin', 'capacitor');
  // A user and network namespace of its own: only a loopback interface, which is down.
  offline = spawnSync('unshare', ['-rn', 'true']).status === 0;
  const command = offline
    ? ['unshare', '-rn', process.execPath, cli, 'sync', 'android']
    : [process.execPath, cli, 'sync', 'android'];
  result = spawnSync(command[0] as string, command.slice(1), {
    cwd: temp.dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: temp.dir, CI: 'true', CAPACITOR_TELEMETRY: 'false' },
    timeout: 90_000,
  });
}, 180_000);

afterAll(() => temp?.remove());

describe('npx cap sync android', () => {
  it('runs without a network', () => {
    expect(offline, 'unshare -rn is needed to cut the network off').toBe(true);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('Sync finished');
  });

  it('copies the built remote, with the overlay page, into the app', async () => {
    const publicDir = path.join(copiedAndroid(), 'app', 'src', 'main', 'assets', 'public');
    for (const file of ['index.html', 'overlay.html', 'sw.js', 'manifest.webmanifest']) {
      expect((await stat(path.join(publicDir, file))).isFile()).toBe(true);
    }
  });

  it('writes the Capacitor config with CapacitorHttp on and registers the Preferences plugin', async () => {
    const assets = path.join(copiedAndroid(), 'app', 'src', 'main', 'assets');
    const config = JSON.parse(await readFile(path.join(assets, 'capacitor.config.json'), 'utf8'));
    expect(config).toMatchObject({ appId: 'app.studyhall.companion', plugins: { CapacitorHttp: { enabled: true } } });
    const plugins = JSON.parse(await readFile(path.join(assets, 'capacitor.plugins.json'), 'utf8'));
    expect(plugins).toEqual([expect.objectContaining({ pkg: '@capacitor/preferences' })]);
    expect(await readFile(path.join(copiedAndroid(), 'capacitor.settings.gradle'), 'utf8')).toContain(
      ':capacitor-preferences',
    );
    expect((await stat(path.join(copiedAndroid(), 'capacitor-cordova-android-plugins'))).isDirectory()).toBe(true);
  });

  // capacitor.settings.gradle is rewritten with paths to node_modules, which differ in this copy.
  it('leaves the committed manifest and Gradle files as they are', async () => {
    for (const file of [
      'app/src/main/AndroidManifest.xml',
      'app/src/main/res/xml/network_security_config.xml',
      'variables.gradle',
      'app/build.gradle',
      'app/capacitor.build.gradle',
      'settings.gradle',
    ]) {
      const committed = await readFile(path.join(repoRoot, 'companion', 'android', file), 'utf8');
      expect(await readFile(path.join(copiedAndroid(), file), 'utf8'), file).toBe(committed);
    }
  });
});
