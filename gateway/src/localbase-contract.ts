// The one piece of localbase the gateway needs (tools/localbase/server.ts, issue 5): start it in
// this process and learn its URL and keys. Loaded lazily, so fronting a hosted backend never loads
// PGlite.
export interface RunningLocalbase {
  url: string;
  anonKey: string;
  serviceRoleKey: string;
  close(): Promise<void>;
}

export interface LocalbaseModule {
  startLocalbase(options: { dataDir: string; databaseUrl?: string; host?: string; port?: number; logger?: boolean | object }): Promise<RunningLocalbase>;
}

export async function loadLocalbase(): Promise<LocalbaseModule> {
  const modulePath = '../../tools/localbase/server.ts';
  return (await import(modulePath)) as LocalbaseModule;
}
