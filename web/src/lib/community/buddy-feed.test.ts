// The buddy feed against a real localbase: a student who sent a request hears at once when it is
// accepted, when the buddy removes her, and when the buddy blocks her (as a removal: nothing more);
// a block from someone who was never her buddy reaches her not at all; and a stranger subscribed to
// the whole table hears nothing of anyone.
import { type RealtimePostgresChangesPayload } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { signedUpClient } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { useClientForTests } from './backend.ts';
import { followBuddies } from './buddy-feed.ts';
import type { FeedStatus } from './table-feed.ts';

let localbase: Localbase;
let ada: Awaited<ReturnType<typeof signedUpClient>>;
let bo: Awaited<ReturnType<typeof signedUpClient>>;
let cy: Awaited<ReturnType<typeof signedUpClient>>;

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function call(who: typeof ada, name: string, args: Record<string, unknown>): Promise<unknown> {
  const { data, error } = await who.client.rpc(name, args);
  if (error) throw new Error(`${name}: ${error.message}`);
  return data;
}

async function connectionTo(who: typeof ada): Promise<string> {
  const { data, error } = await who.client.from('community_friends').select('id').eq('friend_id', who.id).single();
  if (error) throw error;
  return (data as { id: string }).id;
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  ada = await signedUpClient(localbase, 'ada');
  bo = await signedUpClient(localbase, 'bo');
  cy = await signedUpClient(localbase, 'cy');
  for (const [who, handle] of [
    [ada, 'ada_feed'],
    [bo, 'bo_feed'],
    [cy, 'cy_feed'],
  ] as const)
    await call(who, 'community_bootstrap_profile', { p_handle: handle });
}, 120_000);

afterAll(async () => {
  useClientForTests(undefined);
  for (const who of [ada, bo, cy]) await who?.client.removeAllChannels();
  await localbase?.close();
});

describe('followBuddies', () => {
  it('tells the sender of a request at once when it is accepted, and when she is removed or blocked', async () => {
    useClientForTests(ada.client);
    let changes = 0;
    let status: FeedStatus = 'connecting';
    const stop = followBuddies(
      () => changes++,
      (next) => (status = next),
    );
    const strangerSaw: RealtimePostgresChangesPayload<Record<string, unknown>>[] = [];
    let strangerSubscribed = false;
    const raw = cy.client
      .channel(`raw-${Math.random()}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: 'buddy_feed' }, (payload) =>
        strangerSaw.push(payload),
      )
      .subscribe((next) => {
        if (next === 'SUBSCRIBED') strangerSubscribed = true;
      });
    await until(() => status === 'live' && strangerSubscribed, 10_000, 'both subscriptions');

    await call(ada, 'community_request_buddy', { p_handle: 'bo_feed' });
    await until(() => changes === 1, 2000, 'her own request');
    await call(bo, 'community_respond_buddy', { p_connection_id: await connectionTo(bo), p_accept: true });
    await until(() => changes === 2, 2000, 'the acceptance');
    await call(bo, 'community_remove_buddy', { p_other_user: ada.id, p_block: false });
    await until(() => changes === 3, 2000, 'the removal');

    await call(bo, 'community_request_buddy', { p_handle: 'ada_feed' });
    await until(() => changes === 4, 2000, 'a new request to her');
    await call(ada, 'community_respond_buddy', { p_connection_id: await connectionTo(ada), p_accept: true });
    await until(() => changes === 5, 2000, 'her acceptance');
    await call(bo, 'community_remove_buddy', { p_other_user: ada.id, p_block: true });
    await until(() => changes === 6, 2000, 'the block, heard as a removal');

    // Cy was never her buddy: his block changes nothing she may read, so nothing reaches her.
    await call(cy, 'community_remove_buddy', { p_other_user: ada.id, p_block: true });
    await sleep(600);
    expect(changes).toBe(6);
    // Cy, subscribed to the whole table, heard of nobody's row but his own (his block touched it).
    expect(strangerSaw.map((payload) => (payload.new as { user_id?: string }).user_id)).toEqual([cy.id]);

    stop();
    await cy.client.removeChannel(raw);
  });
});
