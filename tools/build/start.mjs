// @ts-check
// `npm start` / `npm run backend`: run a program of the compiled server (tools/build/server-build.mjs),
// compiling it first when the build is missing or older than its sources.
//   node tools/build/start.mjs gateway-main | localbase-main
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ENTRY_POINTS, ensureServerBuild } from './server-build.mjs';

const program = process.argv[2] ?? '';
if (!Object.hasOwn(ENTRY_POINTS, program)) {
  console.error(`usage: node tools/build/start.mjs ${Object.keys(ENTRY_POINTS).join('|')}`);
  process.exit(2);
}

let buildDir;
try {
  buildDir = await ensureServerBuild((line) => console.log(line));
} catch (error) {
  console.error(`studyhall: cannot compile the server: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
// Stack traces name the TypeScript sources (the build has linked source maps).
process.setSourceMapsEnabled(true);
await import(pathToFileURL(path.join(buildDir, `${program}.js`)).href);
