// localbase (localbase/server.ts) is loaded lazily: fronting a hosted backend never
// loads PGlite.
import type { Localbase, LocalbaseOptions } from '#localbase';

export type RunningLocalbase = Localbase;

export async function startEmbeddedLocalbase(options: LocalbaseOptions): Promise<RunningLocalbase> {
  const { startLocalbase } = await import('#localbase');
  performance.mark('studyhall:gateway:localbase-loaded');
  return startLocalbase(options);
}
