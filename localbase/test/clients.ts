// supabase-js clients for the localbase tests: no persisted session, no timers, `ws` as the
// WebSocket (Node 20 has none built in). Realtime is tested with every client flavour below:
// the pinned supabase-js (Phoenix serializer 2.0.0 by default, 1.0.0 when asked) and
// supabase-js 2.79.0, the last release whose realtime-js speaks only 1.0.0. The realtime
// conformance tests also run realtime-js 2.10.9 on its own (REALTIME_VERSIONS), the oldest 2.x
// localbase supports.
import { createClient, type RealtimeChannel, type SupabaseClient } from '@supabase/supabase-js';
import { RealtimeClient as RealtimeClient210 } from 'realtime-js-2-10';
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

/**
 * A realtime connection as the conformance tests use it: only what every realtime-js version from
 * 2.10 has (channel, on, subscribe, send, track, untrack, presenceState), typed as the pinned one's.
 */
export interface RealtimeConnection {
  channel(topic: string, params?: { config?: Record<string, unknown> }): RealtimeChannel;
  removeAllChannels(): Promise<unknown>;
}

/** A signed-up user, as the realtime versions join: with their access token. */
export interface RealtimeUser {
  accessToken: string;
}

export interface RealtimeVersion {
  name: string;
  /** The Phoenix serializer its socket speaks. */
  serializer: '1.0.0' | '2.0.0';
  /** Whether it sends a broadcast as a binary frame, which can carry raw bytes (realtime-js from 2.80 under 2.0.0). */
  binaryBroadcast: boolean;
  /** A realtime connection with the anon key, joining as `user` when given. */
  connect(localbase: Localbase, user?: RealtimeUser): Promise<RealtimeConnection>;
}

/**
 * supabase-js joining as `user`: through its `accessToken` option, so every token its realtime
 * client asks for (at connect, on each heartbeat) is the user's, with no auth events racing the
 * join. The token is handed over before the first channel joins.
 */
async function supabaseRealtime(
  flavour: 'pinned' | '2.79',
  localbase: Localbase,
  user?: RealtimeUser,
): Promise<RealtimeConnection> {
  if (user === undefined) {
    return (flavour === 'pinned' ? PINNED_CLIENT : SUPABASE_JS_279).create(localbase.url, localbase.anonKey);
  }
  const settings = {
    ...clientOptions,
    accessToken: async () => user.accessToken,
    realtime: { transport: ws as never },
  };
  const client =
    flavour === 'pinned'
      ? createClient(localbase.url, localbase.anonKey, settings)
      : (createClient279(localbase.url, localbase.anonKey, settings) as unknown as SupabaseClient);
  await client.realtime.setAuth();
  return client;
}

const SUPABASE_JS_279 = REALTIME_CLIENTS[2] as ClientFlavour;

export const REALTIME_VERSIONS: RealtimeVersion[] = [
  {
    name: 'realtime-js 2.10.9 (serializer 1.0.0)',
    serializer: '1.0.0',
    binaryBroadcast: false,
    connect: async (localbase, user) => {
      // Standalone, as apps without supabase-js use it: the API key as a URL parameter, the user's
      // token through setAuth. Its types are an older copy of the same channel API. No `transport`:
      // given one, 2.10.9 opens the socket without ever attaching its handlers (connect() skips
      // setupConnection), so nothing it sends leaves its buffer; without one, on Node 20 (no global
      // WebSocket) it loads `ws` itself, as it does in apps.
      const client = new RealtimeClient210(`${localbase.url.replace(/^http/, 'ws')}/realtime/v1`, {
        params: { apikey: localbase.anonKey },
      });
      if (user !== undefined) client.setAuth(user.accessToken);
      return client as unknown as RealtimeConnection;
    },
  },
  {
    name: 'supabase-js 2.79.0 (serializer 1.0.0)',
    serializer: '1.0.0',
    binaryBroadcast: false,
    connect: (localbase, user) => supabaseRealtime('2.79', localbase, user),
  },
  {
    name: 'pinned supabase-js (serializer 2.0.0)',
    serializer: '2.0.0',
    binaryBroadcast: true,
    connect: (localbase, user) => supabaseRealtime('pinned', localbase, user),
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

/** Runs SQL through the management API and returns its rows; anything but 201 throws with the answer. */
export async function managementRows<T = unknown>(localbase: Localbase, query: string): Promise<T[]> {
  const response = await managementQuery(localbase, query);
  if (response.status !== 201) throw new Error(`management query failed: ${await response.text()}`);
  return (await response.json()) as T[];
}
