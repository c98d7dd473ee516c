// @ts-check
// `npm start` / `npm run backend`: run a program of the compiled server (tools/build/server-build.mjs),
// compiling it first when the build is missing or older than its sources. Then the program's
// database starts opening (the build's `open-database-early` entry), and before the gateway the
// builds it serves are brought up to date the same way (tools/build/vite-build.mjs) while it
// opens: the server itself never builds, it serves what is there.
//   node tools/build/start.mjs gateway-main | localbase-main
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENTRY_POINTS, ensureServerBuild } from './server-build.mjs';
import { ensureViteBuild, VITE_BUILDS } from './vite-build.mjs';

const program = process.argv[2] ?? '';
if (!Object.hasOwn(ENTRY_POINTS, program)) {
  console.error(`usage: node tools/build/start.mjs ${Object.keys(ENTRY_POINTS).join('|')}`);
  process.exit(2);
}

/** @param {string} line */
const log = (line) => console.log(line);
/** @param {unknown} error */
const messageOf = (error) => (error instanceof Error ? error.message : String(error));

let buildDir;
try {
  buildDir = await ensureServerBuild(log);
} catch (error) {
  console.error(`studyhall: cannot compile the server: ${messageOf(error)}`);
  process.exit(1);
}
performance.mark('studyhall:launcher:server-build-checked');
// Stack traces name the TypeScript sources (the build has linked source maps).
process.setSourceMapsEnabled(true);
/** @param {string} name  an output of the build */
const moduleUrl = (name) => pathToFileURL(path.join(buildDir, `${name}.js`)).href;

// The database opens from here on, while the builds are checked and the program's code is compiled:
// PostgreSQL's start is mostly waiting on another process (localbase/open-database-early.ts).
const { openDatabaseForProgram } = await import(moduleUrl('open-database-early'));
openDatabaseForProgram(program);
performance.mark('studyhall:launcher:database-opening');

if (program === 'gateway-main') {
  try {
    await ensureViteBuild(VITE_BUILDS.web, log);
  } catch (error) {
    console.error(`studyhall: cannot build the web app: ${messageOf(error)}`);
    process.exit(1);
  }
  // A failed build of the phone remote must not keep the server down: /companion/ then says it is not built.
  await ensureViteBuild(VITE_BUILDS.companion, log).catch((error) =>
    console.error(`studyhall: cannot build the phone remote: ${messageOf(error)}`),
  );
}
performance.mark('studyhall:launcher:web-builds-checked');
await import(moduleUrl(program));
