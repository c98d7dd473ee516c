// supabase-js clients for the localbase tests: no persisted session, no timers, `ws` as the
// WebSocket (Node 20 has none built in). Realtime is tested with every client flavour below:
// the pinned supabase-js (Phoenix serializer 2.0.0 by default, 1.0.0 when asked) and
// supabase-js 2.79.0, the last release whose realtime-js speaks only 1.0.0.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createClient as createClient279 } from 'supabase-js-2-79';
import ws from 'ws';
import type { Localbase } from '../server.ts';

export interface ClientFlavour {
  name: string;
  /** The Phoenix serializer its realtime socket speaks. */
  serializer: '1.0.0' | '2.0.0';
  create(url: string, key: string): SupabaseClient;
}

const clientOptions = {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
};

export const PINNED_CLIENT: ClientFlavour = {
  name: 'pinned supabase-js (serializer 2.0.0)',
  serializer: '2.0.0',
  create: (url, key) => createClient(url, key, { ...clientOptions, realtime: { transport: ws as never } }),
};

export const REALTIME_CLIENTS: ClientFlavour[] = [
  PINNED_CLIENT,
  {
    name: 'pinned supabase-js asking for serializer 1.0.0',
    serializer: '1.0.0',
    create: (url, key) =>
      createClient(url, key, { ...clientOptions, realtime: { transport: ws as never, vsn: '1.0.0' } }),
  },
  {
    name: 'supabase-js 2.79.0 (serializer 1.0.0)',
    serializer: '1.0.0',
    // Its types are an older copy of the same API; the tests use only what both have.
    create: (url, key) =>
      createClient279(url, key, {
        ...clientOptions,
        realtime: { transport: ws as never },
      }) as unknown as SupabaseClient,
  },
];

export function clientFor(
  localbase: Localbase,
  key: string = localbase.anonKey,
  flavour: ClientFlavour = PINNED_CLIENT,
): SupabaseClient {
  return flavour.create(localbase.url, key);
}

let counter = 0;

/** Signs up a fresh user (unique e-mail per call) and returns a client signed in as them. */
export async function signedUpClient(
  localbase: Localbase,
  name: string,
  flavour: ClientFlavour = PINNED_CLIENT,
): Promise<{ client: SupabaseClient; id: string; email: string; password: string }> {
  counter += 1;
  const email = `${name}-${process.pid}-${counter}@example.com`;
  const password = `pw-${name}-secret`;
  const client = clientFor(localbase, localbase.anonKey, flavour);
  const { data, error } = await client.auth.signUp({ email, password });
  if (error || !data.user) throw new Error(`sign-up of ${email} failed: ${error?.message}`);
  return { client, id: data.user.id, email, password };
}

/** Runs SQL as the database owner through the management API, as the admin console does. */
export async function managementQuery(
  localbase: Localbase,
  query: string,
  token = localbase.accessToken,
): Promise<Response> {
  return fetch(`${localbase.url}/v1/projects/local/database/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
}
