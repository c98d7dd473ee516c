// @ts-check
// "Rebuild when stale", the one rule every build of the checkout follows (the server's esbuild
// bundle, the web app's and the phone remote's Vite builds): a build records the time it started,
// and it is stale once a source it was made from has a newer modification time. Against the start,
// not the end: a file saved while the build ran counts as newer.
//
// Times, not content hashes: reading every source on each `npm start` costs more than the stat
// calls, and an edit, a checkout or a pull all give the changed files a new time.
//
// Plain JavaScript on purpose: the launcher (tools/build/start.mjs) runs it before anything is
// compiled, on Node 20 without a loader.
import { readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Names never looked into when a folder is a source: build output, packages, hidden files (editor
 * and tool state), and tests, which no build includes.
 * @param {string} name
 */
function isIgnored(name) {
  return name === 'dist' || name === 'node_modules' || name.startsWith('.') || /\.test\.tsx?$/.test(name);
}

/**
 * The newest modification time of a file, or of a folder and everything in it (a deleted file
 * shows only as a newer folder); undefined when it does not exist.
 * @param {string} entry
 * @returns {Promise<number | undefined>}
 */
export async function newestMtime(entry) {
  let info;
  try {
    info = await stat(entry);
  } catch {
    return undefined;
  }
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const child of await readdir(entry)) {
    if (isIgnored(child)) continue;
    newest = Math.max(newest, (await newestMtime(path.join(entry, child))) ?? 0);
  }
  return newest;
}

/**
 * @typedef {object} Sources
 * @property {string[]} [inputs]    files or folders the build read: a missing one changed (it was deleted)
 * @property {string[]} [optional]  files or folders that may be absent (a lockfile an install did not
 *                                  write, a folder of public files): a missing one changed nothing
 */

/**
 * The first source (relative to repoDir, in the order given, inputs first) changed after builtAt,
 * or undefined when the build is fresh.
 * @param {string} repoDir
 * @param {number} builtAt  when the build started, in epoch milliseconds
 * @param {Sources} sources
 * @returns {Promise<string | undefined>}
 */
export async function firstChangedSince(repoDir, builtAt, { inputs = [], optional = [] }) {
  const times = await Promise.all([...inputs, ...optional].map((source) => newestMtime(path.join(repoDir, source))));
  const sources = [...inputs, ...optional];
  return sources.find((_, index) => {
    const time = times[index];
    if (time === undefined) return index < inputs.length;
    return time > builtAt;
  });
}

/**
 * The stamp a build writes last into its output folder: when it started. Its absence marks a
 * build that is missing or was cut short.
 */
export const STAMP_FILE = '.build-stamp.json';

/**
 * When the build in outDir started, or undefined when it has no stamp.
 * @param {string} outDir
 * @returns {Promise<number | undefined>}
 */
export async function readBuildStamp(outDir) {
  try {
    const { startedAt } = JSON.parse(await readFile(path.join(outDir, STAMP_FILE), 'utf8'));
    return typeof startedAt === 'number' ? startedAt : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Marks outDir as a whole build started at startedAt (written beside, then renamed: atomic).
 * @param {string} outDir
 * @param {number} startedAt
 */
export async function writeBuildStamp(outDir, startedAt) {
  const temporary = path.join(outDir, `${STAMP_FILE}.${process.pid}`);
  await writeFile(temporary, `${JSON.stringify({ startedAt })}\n`);
  await rename(temporary, path.join(outDir, STAMP_FILE));
}

/**
 * Why a build must be made: 'no build yet', '<source> changed', or undefined when it is fresh.
 * @param {string} repoDir
 * @param {number | undefined} builtAt
 * @param {Sources} sources
 * @returns {Promise<string | undefined>}
 */
export async function staleReasonFor(repoDir, builtAt, sources) {
  if (builtAt === undefined) return 'no build yet';
  const changed = await firstChangedSince(repoDir, builtAt, sources);
  return changed === undefined ? undefined : `${changed} changed`;
}
