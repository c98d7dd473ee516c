// The built web app the gateway serves. Until the web issue brings its real build (Vite), the
// "build" copies web/public into web/dist; `npm start` runs it when web/dist has no index.html, or
// when web/dist holds an older copy of the placeholder shell (after a self-update that changed it:
// the shell must match the Content-Security-Policy the gateway now sends). A real build is never
// touched.
import { cp, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface WebPaths {
  /** Static files to serve (web/dist). */
  distDir: string;
  /** The service-worker template with build placeholders (web/sw.template.js). */
  swTemplate: string;
}

export function webPaths(repoDir: string): WebPaths {
  return { distDir: path.join(repoDir, 'web', 'dist'), swTemplate: path.join(repoDir, 'web', 'sw.template.js') };
}

/** Words only the placeholder shell's index.html has; a real build does not. */
const PLACEHOLDER_MARK = 'A placeholder shell until the web app lands';

async function isCurrent(repoDir: string, distDir: string): Promise<boolean> {
  const built = await readFile(path.join(distDir, 'index.html'), 'utf8').catch(() => undefined);
  if (built === undefined) return false;
  if (!built.includes(PLACEHOLDER_MARK)) return true; // a real build
  const source = await readFile(path.join(repoDir, 'web', 'public', 'index.html'), 'utf8').catch(() => built);
  return built === source;
}

/** Builds web/dist from web/public when it is missing or a stale placeholder; returns whether it built. */
export async function ensureWebDist(repoDir: string, log: (line: string) => void = () => {}): Promise<boolean> {
  const { distDir } = webPaths(repoDir);
  if (await isCurrent(repoDir, distDir)) return false;
  log(`studyhall: building the web app shell into ${distDir}`);
  await mkdir(distDir, { recursive: true });
  await cp(path.join(repoDir, 'web', 'public'), distDir, { recursive: true });
  return true;
}
