// Types of vite-build.mjs (plain JavaScript, so it runs before anything is compiled).
export interface ViteBuild {
  /** What the build is, for the log line. */
  label: string;
  /** The Vite config, relative to the checkout; without it there is nothing to build. */
  configFile: string;
  /** Where the build goes, relative to the checkout. */
  outDir: string;
  /** Sources that must exist (a missing one was deleted: rebuild). */
  inputs: string[];
  /** Sources that may be absent (folders walked, tests and dist skipped). */
  optional: string[];
}
export const VITE_BUILDS: Record<'web' | 'companion', ViteBuild>;
export function sourcesHoldingOutput(build: ViteBuild): string[];
export function hasSources(build: ViteBuild, root?: string): Promise<boolean>;
export function staleReason(build: ViteBuild, root?: string): Promise<string | undefined>;
export function runViteBuild(build: ViteBuild, root?: string, outDir?: string): Promise<void>;
export function ensureViteBuild(build: ViteBuild, log?: (line: string) => void, root?: string): Promise<boolean>;
