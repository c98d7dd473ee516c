// @ts-check
// The compiled server: `npm start` and `npm run backend` run JavaScript bundled by esbuild from the
// TypeScript sources, instead of transpiling every module on each boot with tsx (which cost about
// 40 MB of resident memory and 1.4 times the CPU of a warm boot; see tools/bench/README-boot.md).
//
// Plain JavaScript on purpose: it must run before anything is compiled, on Node 20 without a loader.
//
// Layout: .build/server/<build id>/{gateway-main.js, localbase-main.js, chunk-*.js, meta.json}, and
// .build/server/CURRENT naming the build in use, replaced atomically, so a second `npm start`
// building at the same moment never runs half-written files. Code imported lazily (localbase when
// BACKEND_URL is set, node-pg-migrate when a migration may be pending) stays in its own chunk, loaded
// only when imported.
//
// npm packages are bundled too, except the few in EXTERNAL_PACKAGES: resolving and loading some
// 700 package files one by one took about 200 ms of each warm start (Node 20 keeps no compile
// cache). Bundled packages count for freshness through the lockfiles npm rewrites on every install,
// not file by file: a hand-edited file under node_modules needs `npm run build:server`.
//
//   node tools/build/server-build.mjs            build now
//   node tools/build/server-build.mjs --if-stale build only when a source is newer than the build
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { newestMtime, staleReasonFor } from './freshness.mjs';
import { trimSourceMap } from './source-map-trim.mjs';

const repoDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The programs in the build, by the name the launcher is given. */
export const ENTRY_POINTS = {
  'gateway-main': 'gateway/src/main.ts',
  'localbase-main': 'localbase/main.ts',
};

/**
 * Modules the programs start as worker threads, built next to them: PGlite's thread
 * (db/pglite-engine.ts finds `pglite-worker.js` beside its own chunk). Not programs to run.
 */
export const WORKER_ENTRY_POINTS = {
  'pglite-worker': 'db/pglite-worker.ts',
};

/**
 * Modules the launcher (start.mjs) imports before the program, built next to it: opening the
 * database while the program's code loads. Small on purpose, and sharing its modules with the
 * program through common chunks, so the program takes the database it opened. Not programs to run.
 */
export const EARLY_ENTRY_POINTS = {
  'open-database-early': 'localbase/open-database-early.ts',
};

/**
 * Packages loaded from node_modules at run time rather than bundled: PGlite and its extensions find
 * their WebAssembly and data files next to their own modules; zxcvbn-ts (the password check) is
 * imported lazily by name, which esbuild's interop turns into a namespace without its named
 * exports, and its dictionaries are megabytes nobody needs in the bundle; sharp (storage's image
 * transforms) loads its native libvips binding for the platform at run time; native or optional
 * modules that some packages only try to load.
 */
export const EXTERNAL_PACKAGES = [
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  '@electric-sql/pglite-pgtap',
  '@zxcvbn-ts/core',
  '@zxcvbn-ts/language-common',
  'sharp',
  'pg-native',
  'bufferutil',
  'utf-8-validate',
  'fsevents',
];

/**
 * Bundled CommonJS packages call require() (for Node's own modules); an ES module has none, so
 * each output file gets one.
 */
const REQUIRE_SHIM =
  "import { createRequire as __createRequireForBundle } from 'node:module'; const require = __createRequireForBundle(import.meta.url);";

/** Inputs under node_modules: freshness comes from the lockfiles instead (see the top). */
const PACKAGE_FILE = /(^|\/)node_modules\//;

/** Builds kept besides the current one, so a server that just started can still load its lazy chunk. */
const KEEP_OLD_BUILDS = 2;

/**
 * @typedef {object} BuildLayout
 * @property {string} repoDir        the checkout the sources are read from
 * @property {string} buildRoot      where build folders and CURRENT live
 * @property {Record<string, string>} entryPoints  output name -> source, relative to repoDir
 * @property {string[]} settingsFiles  files that change the output without being inputs of the bundle
 * @property {string[]} external       packages left to load from node_modules at run time
 */

/** @type {BuildLayout} */
export const serverLayout = {
  repoDir,
  buildRoot: path.join(repoDir, '.build', 'server'),
  entryPoints: { ...ENTRY_POINTS, ...WORKER_ENTRY_POINTS, ...EARLY_ENTRY_POINTS },
  settingsFiles: [
    'tools/build/server-build.mjs',
    'tools/build/source-map-trim.mjs',
    'tsconfig.json',
    'package.json',
    'package-lock.json',
    'node_modules/.package-lock.json',
  ],
  external: EXTERNAL_PACKAGES,
};

/**
 * The folder of the build in use, or undefined when there is none.
 * @param {BuildLayout} layout
 */
export async function currentBuildDir(layout = serverLayout) {
  const id = (await readFile(path.join(layout.buildRoot, 'CURRENT'), 'utf8').catch(() => '')).trim();
  if (!/^[\w-]+$/.test(id)) return undefined;
  const dir = path.join(layout.buildRoot, id);
  return (await newestMtime(path.join(dir, 'meta.json'))) === undefined ? undefined : dir;
}

/**
 * Why the current build cannot be used (missing, or the first newer source), or undefined when it
 * is fresh. Only the files esbuild read (its metafile; package files through the lockfiles) and
 * the settings files are compared, so editing a test or a doc never rebuilds; a new source file
 * matters only once an input imports it, and then that input is newer. The rule is freshness.mjs.
 * @param {BuildLayout} layout
 */
export async function staleReason(layout = serverLayout) {
  const dir = await currentBuildDir(layout);
  if (!dir) return 'no build yet';
  /** @type {{ startedAt: number, inputs: Record<string, unknown> }} */
  const meta = JSON.parse(await readFile(path.join(dir, 'meta.json'), 'utf8'));
  const inputs = Object.keys(meta.inputs).filter((file) => !PACKAGE_FILE.test(file));
  return staleReasonFor(layout.repoDir, meta.startedAt, { inputs, optional: layout.settingsFiles });
}

/**
 * Bundles every entry point into a new build folder and makes it current; returns its folder.
 * @param {BuildLayout} layout
 */
export async function buildServer(layout = serverLayout) {
  const esbuild = await import('esbuild');
  const startedAt = Date.now();
  const id = `${startedAt.toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;
  const dir = path.join(layout.buildRoot, id);
  await mkdir(dir, { recursive: true });
  /** @type {import('esbuild').BuildResult<{ metafile: true }>} */
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: layout.repoDir,
      entryPoints: layout.entryPoints,
      outdir: dir,
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20.19',
      external: layout.external,
      banner: { js: REQUIRE_SHIM },
      // Whitespace and syntax minified: V8 compiles about 5 MB instead of 7.5 MB at each start
      // (about 0.1 s of CPU less, measured side by side in tools/bench/README-boot.md), and with
      // fewer lines Node's source-map support indexes them faster. Names are kept as written
      // (renaming them, with keepNames for Fastify's plugin names, cost more than it saved).
      minifyWhitespace: true,
      minifySyntax: true,
      sourcemap: 'linked',
      sourcesContent: false,
      metafile: true,
      logLevel: 'silent',
    });
    await trimSourceMaps(dir);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  // meta.json is written last: its presence marks a whole build.
  await writeFile(path.join(dir, 'meta.json'), JSON.stringify({ startedAt, inputs: result.metafile.inputs }));
  const pointer = path.join(layout.buildRoot, `CURRENT.${id}`);
  await writeFile(pointer, `${id}\n`);
  await rename(pointer, path.join(layout.buildRoot, 'CURRENT'));
  await removeOldBuilds(layout.buildRoot, id);
  return dir;
}

/**
 * Keeps each map of the build to the project's own sources: Node holds a parsed map in memory for
 * good, and npm packages' mappings were most of it (source-map-trim.mjs).
 * @param {string} dir
 */
async function trimSourceMaps(dir) {
  const maps = (await readdir(dir)).filter((name) => name.endsWith('.js.map'));
  await Promise.all(
    maps.map(async (name) => {
      const file = path.join(dir, name);
      await writeFile(file, JSON.stringify(trimSourceMap(JSON.parse(await readFile(file, 'utf8')))));
    }),
  );
}

/**
 * @param {string} buildRoot
 * @param {string} currentId
 */
async function removeOldBuilds(buildRoot, currentId) {
  const entries = await readdir(buildRoot, { withFileTypes: true });
  const builds = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && entry.name !== currentId)
      .map(async (entry) => ({
        name: entry.name,
        time: await stat(path.join(buildRoot, entry.name)).then(
          (info) => info.mtimeMs,
          () => Number.POSITIVE_INFINITY,
        ),
      })),
  );
  builds.sort((a, b) => b.time - a.time);
  for (const old of builds.slice(KEEP_OLD_BUILDS))
    await rm(path.join(buildRoot, old.name), { recursive: true, force: true });
}

/**
 * The build folder to run from, building first when missing or stale.
 * @param {(line: string) => void} log
 * @param {BuildLayout} layout
 */
export async function ensureServerBuild(log, layout = serverLayout) {
  const reason = await staleReason(layout);
  if (!reason) return /** @type {string} */ (await currentBuildDir(layout));
  const started = performance.now();
  const dir = await buildServer(layout);
  log(
    `studyhall: compiled the server into ${path.relative(layout.repoDir, dir)} in ${Math.round(performance.now() - started)} ms (${reason})`,
  );
  return dir;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = (/** @type {string} */ line) => console.log(line);
  if (process.argv.includes('--if-stale')) await ensureServerBuild(log);
  else log(`studyhall: compiled the server into ${path.relative(repoDir, await buildServer())}`);
}
