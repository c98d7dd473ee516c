// supabase-js clients for the localbase tests: no persisted session, no timers, `ws` as the
// WebSocket (Node 20 has none built in).
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import ws from 'ws';
import type { Localbase } from '../server.ts';

export function clientFor(localbase: Localbase, key: string = localbase.anonKey): SupabaseClient {
  return createClient(localbase.url, key, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as never },
  });
}

let counter = 0;

/** Signs up a fresh user (unique e-mail per call) and returns a client signed in as them. */
export async function signedUpClient(localbase: Localbase, name: string): Promise<{ client: SupabaseClient; id: string; email: string; password: string }> {
  counter += 1;
  const email = `${name}-${process.pid}-${counter}@example.com`;
  const password = `pw-${name}-secret`;
  const client = clientFor(localbase);
  const { data, error } = await client.auth.signUp({ email, password });
  if (error || !data.user) throw new Error(`sign-up of ${email} failed: ${error?.message}`);
  return { client, id: data.user.id, email, password };
}

/** Runs SQL as the database owner through the management API, as the admin console does. */
export async function managementQuery(localbase: Localbase, query: string, token = localbase.accessToken): Promise<Response> {
  return fetch(`${localbase.url}/v1/projects/local/database/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
}
