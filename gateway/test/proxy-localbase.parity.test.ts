// supabase-js pointed at the gateway's /__backend against a real localbase: auth, the data API and a
// realtime subscription over the proxied WebSocket upgrade all behave as they do against localbase.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ws from 'ws';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const PINGS_SQL = `
create table public.gw_pings (id uuid primary key default gen_random_uuid(), user_id uuid not null default auth.uid(), note text not null);
alter table public.gw_pings enable row level security;
create policy "owners read pings" on public.gw_pings for select to authenticated using (user_id = (select auth.uid()));
create policy "owners write pings" on public.gw_pings for insert to authenticated with check (user_id = (select auth.uid()));
alter publication supabase_realtime add table public.gw_pings;`;

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let client: SupabaseClient;

beforeAll(async () => {
  const response = await fetch(`${localbase.url}/v1/projects/local/database/query`, {
    method: 'POST',
    headers: { authorization: `Bearer ${localbase.accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query: PINGS_SQL }),
  });
  if (response.status !== 201) throw new Error(await response.text());
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    ...RELAXED_DEADLINES,
  });
  const gatewayUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  client = createClient(`${gatewayUrl}/__backend`, localbase.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as never },
  });
}, 120_000);

afterAll(async () => {
  await client?.removeAllChannels();
  await gateway?.close();
});

describe('supabase-js through /__backend', () => {
  it('signs up, reads its own profile row and calls an RPC through the proxy', async () => {
    const { data, error } = await client.auth.signUp({ email: 'proxy-user@example.com', password: 'proxy-password' });
    expect(error).toBeNull();
    const profile = await client.from('user_profiles').select('user_id').single();
    expect(profile.data).toEqual({ user_id: data.user?.id });
    const bootstrap = await client.rpc('app_bootstrap_user');
    expect(bootstrap.data).toEqual({ user_id: data.user?.id, created: [] });
  });

  it('receives a realtime INSERT over the proxied WebSocket', async () => {
    const received = new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no realtime event within 3 s')), 3_000);
      const channel = client
        .channel('pings')
        .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'gw_pings' }, (payload) => {
          clearTimeout(timer);
          resolve(payload.new as Record<string, unknown>);
        });
      channel.subscribe(async (status, error) => {
        if (status === 'SUBSCRIBED') {
          const insert = await client.from('gw_pings').insert({ note: 'through the gateway' });
          if (insert.error) reject(new Error(insert.error.message));
        } else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(error ?? new Error(status));
      });
    });
    expect(await received).toMatchObject({ note: 'through the gateway' });
  });
});
