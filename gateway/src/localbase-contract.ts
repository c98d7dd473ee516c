// localbase (tools/localbase/server.ts) is loaded lazily: fronting a hosted backend never
// loads PGlite.
import type { Localbase, LocalbaseOptions } from '../../tools/localbase/server.ts';

export type RunningLocalbase = Localbase;

export async function startEmbeddedLocalbase(options: LocalbaseOptions): Promise<RunningLocalbase> {
  const { startLocalbase } = await import('../../tools/localbase/server.ts');
  return startLocalbase(options);
}
