// The chat feed against a real localbase (the parity database), with the member's connection going
// through a TCP proxy the test can cut: history in pages of 50, live messages, a socket dropped
// mid-conversation that reconnects with neither a gap nor a duplicate, a deletion arriving as a
// tombstone, an outsider who is told the chat is not theirs, and a removed member: her chat says so
// at once and her channel hears nothing more, while the members who stay move to the group's new
// topic and miss nothing.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import ws from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { signedUpClient } from '#localbase/test/clients.ts';
import { tokenExpiredAgo } from '#localbase/test/realtime-tokens.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { useClientForTests } from './backend.ts';
import { ChatFeed, PAGE_SIZE, type FeedState } from './chat-feed.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

/** A TCP proxy whose connections the test can cut, and refuse until it reopens. */
async function cuttableProxy(target: URL) {
  const open = new Set<net.Socket>();
  let refusing = false;
  const server = net.createServer((incoming) => {
    if (refusing) return incoming.destroy();
    const outgoing = net.connect(Number(target.port), target.hostname);
    open.add(incoming);
    open.add(outgoing);
    const close = () => {
      incoming.destroy();
      outgoing.destroy();
      open.delete(incoming);
      open.delete(outgoing);
    };
    incoming.on('error', close).on('close', close);
    outgoing.on('error', close).on('close', close);
    incoming.pipe(outgoing).pipe(incoming);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    reopen() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

const localbase = fileFixture(startLocalbaseStack);
let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
let owner: Awaited<ReturnType<typeof signedUpClient>>;
let member: SupabaseClient;
let outsider: SupabaseClient;
let groupId: string;

async function signedInThrough(url: string, who: { email: string; password: string }): Promise<SupabaseClient> {
  const created = createClient(url, localbase.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: ws as never, reconnectAfterMs: () => 300 },
  });
  const { error } = await created.auth.signInWithPassword({ email: who.email, password: who.password });
  if (error) throw error;
  return created;
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function send(content: string): Promise<string> {
  const { data, error } = await owner.client.rpc('community_send_group_message', {
    p_group_id: groupId,
    p_content: content,
  });
  if (error) throw error;
  return (data as { id: string }).id;
}

/** A new account, a member of the group by the owner's invite. */
async function newMember(name: string) {
  const account = await signedUpClient(localbase, name);
  const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
  const redeemed = await account.client.rpc('community_redeem_invite', { p_token: invite.data });
  if (redeemed.error) throw redeemed.error;
  return account;
}

async function removeMember(userId: string): Promise<void> {
  const { error } = await owner.client.rpc('community_remove_member', { p_group_id: groupId, p_user_id: userId });
  if (error) throw error;
}

/** Whether the client holds a joined channel of the topic. */
function joined(as: SupabaseClient, topic: string): boolean {
  return as.getChannels().some((channel) => channel.topic === `realtime:${topic}` && channel.state === 'joined');
}

async function chatTopic(as: SupabaseClient): Promise<string> {
  const { data, error } = await as.rpc('community_get_chat_topic', { p_group_id: groupId });
  if (error) throw error;
  return data as string;
}

beforeAll(async () => {
  proxy = await cuttableProxy(new URL(localbase.url));
  owner = await signedUpClient(localbase, 'owner');
  const memberAccount = await signedUpClient(localbase, 'member');
  const outsiderAccount = await signedUpClient(localbase, 'outsider');
  const created = await owner.client
    .from('groups')
    .insert({ name: 'Night Shift Anatomy', visibility: 'private', join_policy: 'invite', created_by: owner.id })
    .select('id')
    .single();
  if (created.error) throw created.error;
  groupId = (created.data as { id: string }).id;
  const invite = await owner.client.rpc('community_create_invite', { p_type: 'group', p_target_id: groupId });
  const redeemed = await memberAccount.client.rpc('community_redeem_invite', { p_token: invite.data });
  if (redeemed.error) throw redeemed.error;
  member = await signedInThrough(proxy.url, memberAccount);
  outsider = await signedInThrough(localbase.url, outsiderAccount);
}, 120_000);

// A test that cut the proxy reopens it itself; one that failed first leaves the next test a way in.
afterEach(() => proxy?.reopen());

afterAll(async () => {
  useClientForTests(undefined);
  for (const client of [owner?.client, member, outsider]) await client?.removeAllChannels();
  await proxy?.close();
});

describe('ChatFeed', () => {
  it('reads the newest 50, then older pages, oldest first', async () => {
    for (let index = 1; index <= 120; index++) await send(`history ${index}`);
    useClientForTests(member);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    expect(feed.current.messages.map((m) => m.content)).toEqual(
      Array.from({ length: PAGE_SIZE }, (_, i) => `history ${71 + i}`),
    );
    expect(feed.current.hasOlder).toBe(true);
    await feed.loadOlder();
    await feed.loadOlder();
    expect(feed.current.messages).toHaveLength(120);
    expect(feed.current.messages[0]?.content).toBe('history 1');
    expect(feed.current.hasOlder).toBe(false);
    await feed.stop();
  });

  it('shows messages live and, after its socket is cut mid-conversation, catches up without a gap or a duplicate', async () => {
    useClientForTests(member);
    const states: FeedState[] = [];
    const feed = new ChatFeed(groupId, (state) => states.push(state));
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    const live = await send('live before the drop');
    await until(() => feed.current.messages.some((m) => m.id === live), 2000, 'the live message');

    proxy.cut();
    await until(() => feed.current.status === 'reconnecting', 5000, 'the feed to notice the drop');
    const during: string[] = [];
    for (let index = 1; index <= 5; index++) during.push(await send(`during the drop ${index}`));
    // Back once all five were sent while she could not hear them.
    proxy.reopen();
    await until(() => during.every((id) => feed.current.messages.some((m) => m.id === id)), 15_000, 'the catch-up');
    expect(feed.current.status).toBe('live');

    const after = await send('after the reconnect');
    await until(() => feed.current.messages.some((m) => m.id === after), 2000, 'a live message after the reconnect');
    const ids = feed.current.messages.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    // Exactly what the database holds at the newest end, in its order.
    const truth = await owner.client.rpc('community_get_group_messages', { p_group_id: groupId, p_limit: 7 });
    expect(ids.slice(-7)).toEqual((truth.data as { id: string }[]).map((m) => m.id));
    expect(states.some((state) => state.status === 'reconnecting')).toBe(true);
    await feed.stop();
  }, 60_000);

  it('starts while the server is out of reach, then joins and catches up once it is back', async () => {
    useClientForTests(member);
    proxy.cut();
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    expect(feed.current.status).toBe('reconnecting');
    const meanwhile = await send('sent while she was away');
    // Back once that was sent. The feed finds out at its own next try, 1 s after the failed join: a
    // real clock, the feed's, which it does not let a test set.
    proxy.reopen();
    await until(() => feed.current.status === 'live', 15_000, 'the feed to join once the server is back');
    await until(() => feed.current.messages.some((m) => m.id === meanwhile), 5000, 'the catch-up');
    const live = await send('live once back');
    await until(() => feed.current.messages.some((m) => m.id === live), 2000, 'a live message');
    await feed.stop();
  }, 30_000);

  it("shows a deleted message as a tombstone, live, to another member, who cannot delete the owner's message", async () => {
    useClientForTests(member);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    const doomed = await send('this will be removed');
    await until(() => feed.current.messages.some((m) => m.id === doomed), 2000, 'the live message');

    await expect(feed.remove(doomed)).rejects.toMatchObject({ code: 'cannot_delete_message' });
    const removed = await owner.client.rpc('delete_chat_message', { p_message_id: doomed });
    expect(removed.error).toBeNull();
    await until(
      () => feed.current.messages.some((m) => m.id === doomed && m.deleted_at),
      5000,
      'the UPDATE event that turns the message into a tombstone',
    );
    expect(feed.current.messages.find((m) => m.id === doomed)?.content).toBe('');
    await feed.stop();
  }, 30_000);

  it('tells a removed member at once that the chat is not hers any more; a channel she keeps open hears nothing more', async () => {
    const leaver = await newMember('leaver');
    const topic = await chatTopic(leaver.client);
    // What a client that ignores the move would keep: her own channel on the topic she was given,
    // on a second connection of hers (one client holds one channel per topic).
    const elsewhere = await signedInThrough(localbase.url, leaver);
    const heard: string[] = [];
    const kept = elsewhere
      .channel(topic, { config: { private: true } })
      .on('broadcast', { event: 'INSERT' }, ({ payload }) => heard.push(String(payload?.record?.content)));
    await new Promise<void>((resolve, reject) =>
      kept.subscribe((status) =>
        status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' && reject(new Error(status)),
      ),
    );
    useClientForTests(leaver.client);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    const before = await send('before she is removed');
    await until(() => heard.includes('before she is removed'), 2000, 'her channel to hear the group');
    await until(() => feed.current.messages.some((m) => m.id === before), 2000, 'her feed to show it');

    await removeMember(leaver.id);
    await until(() => feed.current.status === 'no_access', 5000, 'her feed to learn she was removed');
    await send('after she was removed');
    await expect(chatTopic(leaver.client)).rejects.toMatchObject({ message: 'not_group_member' });
    // Time for a late delivery to her old channel, were there one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(heard).toEqual(['before she is removed']);
    expect(feed.current.messages.map((m) => m.content)).not.toContain('after she was removed');

    // Joining the old topic again is refused.
    await elsewhere.removeChannel(kept);
    const again = await new Promise<string>((resolve) =>
      elsewhere.channel(topic, { config: { private: true } }).subscribe((status) => {
        if (status !== 'SUBSCRIBED' && status !== 'CHANNEL_ERROR') return;
        resolve(status);
      }),
    );
    expect(again).toBe('CHANNEL_ERROR');
    await feed.stop();
    await elsewhere.removeAllChannels();
  }, 30_000);

  it('moves to the new topic when another member leaves, and misses nothing sent around the move', async () => {
    const passerby = await newMember('passerby');
    useClientForTests(member);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    const first = await chatTopic(member);

    await removeMember(passerby.id);
    const around = await send('sent as the topic moves');
    const moved = await chatTopic(member);
    expect(moved).not.toBe(first);
    await until(() => feed.current.messages.some((m) => m.id === around), 5000, 'the message sent around the move');
    await until(() => joined(member, moved), 5000, 'the feed to join the new topic');
    const live = await send('live on the new topic');
    await until(() => feed.current.messages.some((m) => m.id === live), 2000, 'a live message on the new topic');
    expect(member.getChannels().some((channel) => channel.topic === `realtime:${first}`)).toBe(false);
    expect(feed.current.status).toBe('live');
    await feed.stop();
  }, 30_000);

  it('joins afresh when the server closes its channel on a token change, the topic having moved unheard', async () => {
    useClientForTests(member);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    // The topic moves without the rotate event ever reaching her, as if she had missed it.
    await localbase.database.pool.query(
      `update private.group_chat_topics set topic = 'group-chat:' || gen_random_uuid() where group_id = $1`,
      [groupId],
    );
    const moved = await chatTopic(member);
    // A new token makes the server ask the policies again: the old topic is no longer hers to hear.
    const refreshed = await member.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    // The feed joins afresh 1 s after the server closed its channel: the feed's own retry timer, on
    // the real clock (ChatFeed takes no clock).
    await until(() => joined(member, moved), 10_000, 'the feed to join the topic it was not told of');
    const live = await send('heard after the server closed the old channel');
    await until(() => feed.current.messages.some((m) => m.id === live), 2000, 'a live message on the new topic');
    expect(feed.current.status).toBe('live');
    await feed.stop();
  }, 30_000);

  it('joins again with the refreshed token when the server closes its channel because the token expired', async () => {
    useClientForTests(member);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    await until(() => feed.current.status === 'live', 10_000, 'the subscription');
    // As on a device that slept past its token's hour: the socket still holds the old token, now
    // expired (by 25 s, inside the clock skew the server allows a token it is handed).
    const current = (await member.auth.getSession()).data.session?.access_token as string;
    await member.realtime.setAuth(await tokenExpiredAgo(localbase, current, 25));
    // setAuth sends the token on her channels with no answer to wait on: time for it to arrive.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const missed = await send('sent while her token had expired');
    await until(() => feed.current.status === 'reconnecting', 5000, 'the server to close the stale channel');
    // The session is refreshed (auth-js's timer on waking, or the next request), and supabase-js
    // hands realtime the new token.
    expect((await member.auth.refreshSession()).error).toBeNull();
    // The feed's own retry, 1 s after the server closed its channel, on the real clock (ChatFeed takes
    // no clock).
    await until(() => feed.current.status === 'live', 15_000, 'the feed to join again');
    await until(() => feed.current.messages.some((m) => m.id === missed), 5000, 'the catch-up');
    const live = await send('live after the refresh');
    await until(() => feed.current.messages.some((m) => m.id === live), 2000, 'a live message after the refresh');
    await feed.stop();
  }, 30_000);

  it('tells an outsider the chat is not theirs, however they ask', async () => {
    useClientForTests(outsider);
    const feed = new ChatFeed(groupId, () => undefined);
    await feed.start();
    expect(feed.current.status).toBe('no_access');
    expect(feed.current.messages).toEqual([]);
    await expect(feed.send('let me in')).rejects.toMatchObject({ code: 'not_group_member' });
    await feed.stop();
  });
});
