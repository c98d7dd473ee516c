// @ts-check
// The two Vite builds the gateway serves: the web app (web/ into web/dist, served at /) and the
// phone remote (companion/ui/ into companion/ui/dist, served at /companion/). `npm start` builds each
// when it is missing or stale (the rule of freshness.mjs) before it starts the server, which only
// serves what is built; `npm run build` builds them unconditionally.
//
// Plain JavaScript on purpose: the launcher runs it before anything is compiled.
//
//   node tools/build/vite-build.mjs web|companion            build now
//   node tools/build/vite-build.mjs web|companion --if-stale  build only when a source is newer than the build
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readBuildStamp, staleReasonFor, writeBuildStamp } from './freshness.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * @typedef {object} ViteBuild
 * @property {string} label       what the build is, for the log line
 * @property {string} configFile  the Vite config, relative to the checkout; without it there is nothing to build
 * @property {string} outDir      where the build goes, relative to the checkout (the config says the same)
 * @property {string[]} inputs    sources that must exist (a missing one was deleted: rebuild)
 * @property {string[]} optional  sources that may be absent (folders walked, tests and dist skipped)
 */

/** Files that change every build's output without being one of its sources: the Vite and plugin versions. */
const SETTINGS_FILES = [
  'tools/build/vite-build.mjs',
  'package.json',
  'package-lock.json',
  'node_modules/.package-lock.json',
];

/** @type {Record<'web' | 'companion', ViteBuild>} */
export const VITE_BUILDS = {
  web: {
    label: 'the web app',
    configFile: 'web/vite.config.ts',
    outDir: 'web/dist',
    inputs: ['web/index.html', 'web/vite.config.ts'],
    optional: ['web/src', 'web/public', ...SETTINGS_FILES],
  },
  companion: {
    label: 'the phone remote',
    configFile: 'companion/ui/vite.config.ts',
    outDir: 'companion/ui/dist',
    inputs: ['companion/ui/vite.config.ts', 'companion/ui/index.html', 'companion/ui/overlay.html'],
    // Its folders one by one, never companion/ui itself: that folder holds dist, and making dist
    // gives it a newer time, so the next start saw a change and built again. The remote imports
    // companion/core (its timer and relay rules) besides its own folder.
    optional: ['companion/ui/src', 'companion/ui/public', 'companion/ui/build', 'companion/core', ...SETTINGS_FILES],
  },
};

/**
 * Whether a build lists, as a source, its own output folder or a folder that holds it: the build
 * itself would make such a source newer than the build. Tests check every build against it.
 * @param {ViteBuild} build
 */
export function sourcesHoldingOutput(build) {
  return [...build.inputs, ...build.optional].filter((source) => {
    const folder = source.replace(/\/+$/, '');
    return build.outDir === folder || build.outDir.startsWith(`${folder}/`);
  });
}

/**
 * Whether the checkout has this build's Vite project at all.
 * @param {ViteBuild} build
 * @param {string} root
 */
export async function hasSources(build, root = repoDir) {
  return stat(path.join(root, build.configFile)).then(
    () => true,
    () => false,
  );
}

/**
 * Why the build must be made ('no build yet', '<source> changed'), or undefined when it is fresh.
 * @param {ViteBuild} build
 * @param {string} root
 */
export async function staleReason(build, root = repoDir) {
  return staleReasonFor(root, await readBuildStamp(path.join(root, build.outDir)), build);
}

/**
 * Runs Vite's production build with this checkout's own Vite (whatever root builds), in a child process (a build holds
 * a few hundred MB that a long-lived caller should not keep), then stamps the output.
 * @param {ViteBuild} build
 * @param {string} root
 * @param {string} [outDir]  somewhere else than the configured folder (then left unstamped)
 * @returns {Promise<void>}
 */
export async function runViteBuild(build, root = repoDir, outDir) {
  const startedAt = Date.now();
  const vite = path.join(repoDir, 'node_modules', 'vite', 'bin', 'vite.js');
  const args = [vite, 'build', '--config', path.join(root, build.configFile), '--logLevel', 'warn'];
  if (outDir) args.push('--outDir', outDir, '--emptyOutDir');
  await new Promise((resolve, reject) => {
    // A production build whatever the caller's NODE_ENV (a test runner sets "test").
    const child = spawn(process.execPath, args, {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve(undefined)
        : reject(new Error(`the build of ${build.label} failed (exit ${code}):\n${output.trim()}`)),
    );
  });
  if (!outDir) await writeBuildStamp(path.join(root, build.outDir), startedAt);
}

/**
 * Builds when the checkout has the sources and the build is missing or stale; returns whether it built.
 * @param {ViteBuild} build
 * @param {(line: string) => void} [log]
 * @param {string} [root]
 */
export async function ensureViteBuild(build, log = () => {}, root = repoDir) {
  if (!(await hasSources(build, root))) return false;
  const reason = await staleReason(build, root);
  if (!reason) return false;
  const started = performance.now();
  await runViteBuild(build, root);
  log(
    `studyhall: built ${build.label} into ${build.outDir} in ${Math.round(performance.now() - started)} ms (${reason})`,
  );
  return true;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const name = process.argv[2] ?? '';
  if (!Object.hasOwn(VITE_BUILDS, name)) {
    console.error(`usage: node tools/build/vite-build.mjs ${Object.keys(VITE_BUILDS).join('|')} [--if-stale]`);
    process.exit(2);
  }
  const build = VITE_BUILDS[/** @type {'web' | 'companion'} */ (name)];
  if (process.argv.includes('--if-stale')) await ensureViteBuild(build, (line) => console.log(line));
  else await runViteBuild(build);
}
