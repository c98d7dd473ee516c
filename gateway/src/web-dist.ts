// The built web app the gateway serves. Until the web issue brings its real build (Vite), the
// "build" copies web/public into web/dist; `npm start` runs it when web/dist has no index.html.
import { cp, mkdir, stat } from 'node:fs/promises';
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

async function exists(file: string): Promise<boolean> {
  return stat(file).then(() => true, () => false);
}

/** Builds web/dist from web/public when it is missing; returns whether it built. */
export async function ensureWebDist(repoDir: string, log: (line: string) => void = () => {}): Promise<boolean> {
  const { distDir } = webPaths(repoDir);
  if (await exists(path.join(distDir, 'index.html'))) return false;
  log(`studyhall: building the web app shell into ${distDir}`);
  await mkdir(distDir, { recursive: true });
  await cp(path.join(repoDir, 'web', 'public'), distDir, { recursive: true });
  return true;
}
