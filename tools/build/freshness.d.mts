// Types of freshness.mjs (plain JavaScript, so it runs before anything is compiled).
export interface Sources {
  /** Files or folders the build read: a missing one changed (it was deleted). */
  inputs?: string[];
  /** Files or folders that may be absent: a missing one changed nothing. */
  optional?: string[];
}
export const STAMP_FILE: string;
export function newestMtime(entry: string): Promise<number | undefined>;
export function firstChangedSince(repoDir: string, builtAt: number, sources: Sources): Promise<string | undefined>;
export function readBuildStamp(outDir: string): Promise<number | undefined>;
export function writeBuildStamp(outDir: string, startedAt: number): Promise<void>;
export function staleReasonFor(
  repoDir: string,
  builtAt: number | undefined,
  sources: Sources,
): Promise<string | undefined>;
