// The presence feed against a real localbase: a fellow group member following presence hears at
// once when a student starts, pauses and stops, and is told only whose row changed; a stranger
// subscribed to the same table hears none of it; stealth mode reaches the member as a DELETE that
// names nobody, and an unchanged heartbeat sends nothing at all.
import { type RealtimePostgresChangesPayload, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedUpClient } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { useClientForTests } from './backend.ts';
import { followPresence, presenceChangeOf, type PresenceChange, type PresenceFeedStatus } from './presence-feed.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let ada: Awaited<ReturnType<typeof signedUpClient>>;
let bo: Awaited<ReturnType<typeof signedUpClient>>;
let stranger: Awaited<ReturnType<typeof signedUpClient>>;

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function heartbeat(state: string, subject: string | null = null): Promise<void> {
  const { error } = await ada.client.rpc('community_heartbeat', {
    p_state: state,
    p_subject_id: subject,
    p_subject_name: subject,
    p_session_started_at: state === 'offline' ? null : new Date().toISOString(),
  });
  if (error) throw error;
}

async function stealth(on: boolean): Promise<void> {
  const current = await ada.client.from('community_enrollments').select('privacy').eq('user_id', ada.id).single();
  if (current.error) throw current.error;
  const { error } = await ada.client
    .from('community_enrollments')
    .update({ privacy: { ...(current.data.privacy as object), stealthMode: on } })
    .eq('user_id', ada.id);
  if (error) throw error;
}

/** The stranger's own subscription on the table, with supabase-js as any script would. */
function subscribeRaw(client: SupabaseClient, seen: RealtimePostgresChangesPayload<Record<string, unknown>>[]) {
  let subscribed = false;
  const channel = client
    .channel(`raw-${Math.random()}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'presence_feed' }, (payload) => seen.push(payload))
    .subscribe((status) => {
      if (status === 'SUBSCRIBED') subscribed = true;
    });
  return { channel, subscribed: () => subscribed };
}

beforeAll(async () => {
  ada = await signedUpClient(localbase, 'ada');
  bo = await signedUpClient(localbase, 'bo');
  stranger = await signedUpClient(localbase, 'stranger');
  const created = await ada.client
    .from('groups')
    .insert({ name: 'Study Hall', visibility: 'private', join_policy: 'invite', created_by: ada.id })
    .select('id')
    .single();
  if (created.error) throw created.error;
  const invite = await ada.client.rpc('community_create_invite', {
    p_type: 'group',
    p_target_id: (created.data as { id: string }).id,
  });
  const redeemed = await bo.client.rpc('community_redeem_invite', { p_token: invite.data });
  if (redeemed.error) throw redeemed.error;
}, 120_000);

afterAll(async () => {
  useClientForTests(undefined);
  for (const who of [ada, bo, stranger]) await who?.client.removeAllChannels();
});

describe('presenceChangeOf', () => {
  it('names the student of an INSERT or UPDATE, and nobody for a DELETE', () => {
    expect(presenceChangeOf({ eventType: 'UPDATE', new: { user_id: 'u1', state: 'idle' } })).toEqual({ userId: 'u1' });
    expect(presenceChangeOf({ eventType: 'INSERT', new: { user_id: 'u2' } })).toEqual({ userId: 'u2' });
    expect(presenceChangeOf({ eventType: 'DELETE', new: {} })).toEqual({ userId: null });
    expect(presenceChangeOf({ eventType: 'UPDATE', new: { nonsense: true } })).toEqual({ userId: null });
  });
});

describe('followPresence', () => {
  it('tells a fellow member at once of a start, a pause and a stop, and a stranger nothing', async () => {
    useClientForTests(bo.client);
    const changes: PresenceChange[] = [];
    let status: PresenceFeedStatus = 'connecting';
    const stop = followPresence(
      (change) => changes.push(change),
      (next) => (status = next),
    );
    const strangerSaw: RealtimePostgresChangesPayload<Record<string, unknown>>[] = [];
    const raw = subscribeRaw(stranger.client, strangerSaw);
    await until(() => status === 'live' && raw.subscribed(), 10_000, 'both subscriptions');

    await heartbeat('studying', 'Anatomy');
    await until(() => changes.length === 1, 2000, 'the start');
    expect(changes[0]).toEqual({ userId: ada.id });
    await heartbeat('idle', 'Anatomy');
    await until(() => changes.length === 2, 2000, 'the pause');
    await heartbeat('offline');
    await until(() => changes.length === 3, 2000, 'the stop');
    expect(changes.every((change) => change.userId === ada.id)).toBe(true);

    // The heartbeat of an unchanged session rewrites nothing, so nobody is woken by it.
    await heartbeat('studying', 'Anatomy');
    await until(() => changes.length === 4, 2000, 'the second start');
    await heartbeat('studying', 'Anatomy');
    // Time for a change that must not come: nothing arriving has no event to wait on.
    await sleep(600);
    expect(changes).toHaveLength(4);
    expect(strangerSaw).toEqual([]);

    // Stealth: the row goes; the member hears a change that names nobody (so does the stranger:
    // a DELETE reaches every subscriber of the table, with only the row's random key).
    await stealth(true);
    await until(() => changes.length === 5, 2000, 'the stealth change');
    expect(changes[4]).toEqual({ userId: null });
    await until(() => strangerSaw.length === 1, 2000, "the stranger's DELETE");
    expect(strangerSaw[0]?.eventType).toBe('DELETE');
    expect(Object.keys(strangerSaw[0]?.old ?? {})).toEqual(['id']);
    expect(JSON.stringify(strangerSaw[0])).not.toContain(ada.id);
    // In stealth mode her heartbeats reach nobody.
    await heartbeat('break', 'Anatomy');
    // Time for a change that must not come: nothing arriving has no event to wait on.
    await sleep(600);
    expect(changes).toHaveLength(5);
    expect(strangerSaw).toHaveLength(1);

    stop();
    await stranger.client.removeChannel(raw.channel);
  });
});
