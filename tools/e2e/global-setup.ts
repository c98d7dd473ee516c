// Before any browser suite starts: the builds a server serves (the web app, the phone remote) and
// the compiled server the real launcher runs, each when missing or stale. Done once here, not by
// each suite's server (two at a time would build into the same folder), so that a failed build
// names itself instead of timing out a server's start.
import { ensureServerBuild } from '../build/server-build.mjs';
import { ensureViteBuild, VITE_BUILDS } from '../build/vite-build.mjs';

export default async function buildWhatTheServersServe(): Promise<void> {
  const log = (line: string) => console.log(line);
  await ensureViteBuild(VITE_BUILDS.web, log);
  await ensureViteBuild(VITE_BUILDS.companion, log);
  await ensureServerBuild(log);
}
