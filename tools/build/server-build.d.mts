// Types of server-build.mjs (plain JavaScript, so it runs before anything is compiled).
export interface BuildLayout {
  /** The checkout the sources are read from. */
  repoDir: string;
  /** Where build folders and CURRENT live. */
  buildRoot: string;
  /** Output name -> source, relative to repoDir. */
  entryPoints: Record<string, string>;
  /** Files that change the output without being inputs of the bundle. */
  settingsFiles: string[];
  /** Packages left to load from node_modules at run time; every other import is bundled. */
  external: string[];
}
export const EXTERNAL_PACKAGES: string[];
export const ENTRY_POINTS: Record<'gateway-main' | 'localbase-main', string>;
/** Modules the programs start as worker threads, built beside them (not programs to run). */
export const WORKER_ENTRY_POINTS: Record<'pglite-worker', string>;
export const serverLayout: BuildLayout;
export function currentBuildDir(layout?: BuildLayout): Promise<string | undefined>;
export function staleReason(layout?: BuildLayout): Promise<string | undefined>;
export function buildServer(layout?: BuildLayout): Promise<string>;
export function ensureServerBuild(log: (line: string) => void, layout?: BuildLayout): Promise<string>;
