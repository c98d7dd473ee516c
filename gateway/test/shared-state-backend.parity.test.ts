// The shared state of gateways in front of a hosted project (SHARED_STATE=backend), against
// localbase as the stand-in: calls reach the gateway_* functions through the Data API with the
// service key (and the anon key is refused), and an event one gateway publishes reaches the other
// through a private Realtime broadcast topic that a student cannot join.
import { createClient } from '@supabase/supabase-js';
import ws from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { BackendSharedState } from '../src/district/backend-shared-state.ts';
import { GATEWAY_TOPIC } from '../src/district/realtime-broadcast.ts';
import { sharedKey, type SharedEvent, type Resync } from '../src/district/shared-state.ts';
import { SharedPipRelay } from '../src/pip/shared-pip-relay.ts';
import { signUpStudent } from './push-fixtures.ts';

const silent = { info: () => {}, warn: () => {} };
let localbase: Localbase;
let first: BackendSharedState;
let second: BackendSharedState;

function stateOf(serviceRoleKey: string): BackendSharedState {
  return new BackendSharedState({ url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey }, silent);
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  first = stateOf(localbase.serviceRoleKey);
  second = stateOf(localbase.serviceRoleKey);
  await Promise.all([first.ready(), second.ready()]);
}, 120_000);

afterAll(async () => {
  await first?.close();
  await second?.close();
  await localbase?.close();
});

describe('the shared state through a backend', () => {
  it('counts one rate-limit window for both gateways through the Data API', async () => {
    const key = sharedKey('rate-limit', 'credentials:10.9.0.1');
    const hit = (state: BackendSharedState) =>
      state.call('gateway_hit_rate_window', { p_key: key, p_window_ms: 60_000 });
    expect(await hit(first)).toMatchObject({ hits: 1 });
    expect(await hit(second)).toMatchObject({ hits: 2 });
    await expect(first.call('gateway_hit_rate_window', { p_key: 'not-a-digest', p_window_ms: 60_000 })).rejects.toThrow(
      /invalid_rate_window/,
    );
  });

  it('is refused with the anon key: only the service role calls the functions', async () => {
    const anon = stateOf(localbase.anonKey);
    try {
      await expect(
        anon.call('gateway_hit_rate_window', { p_key: sharedKey('x'), p_window_ms: 60_000 }),
      ).rejects.toMatchObject({ code: '42501' });
    } finally {
      await anon.close();
    }
  });

  it("delivers one gateway's event to the other once, and not back to itself through the topic", async () => {
    const heardBySecond: (SharedEvent | Resync)[] = [];
    const heardByFirst: (SharedEvent | Resync)[] = [];
    const stopSecond = second.subscribe((event) => heardBySecond.push(event));
    const stopFirst = first.subscribe((event) => heardByFirst.push(event));
    try {
      first.publish({ kind: 'relay-action', channel: 7, action: 42 });
      await expect.poll(() => heardBySecond, { timeout: 5_000 }).toHaveLength(1);
      expect(heardBySecond[0]).toEqual({ kind: 'relay-action', channel: 7, action: 42 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heardBySecond).toHaveLength(1);
      // The publisher hears its own event once, at once, not again from the topic.
      expect(heardByFirst).toEqual([{ kind: 'relay-action', channel: 7, action: 42 }]);
    } finally {
      stopSecond();
      stopFirst();
    }
  });

  it("does not let a student join the gateways' private topic", async () => {
    const student = await signUpStudent(localbase.url, localbase.anonKey, 'eve_shared');
    const session = (await student.client.auth.getSession()).data.session;
    const client = createClient(localbase.url, localbase.anonKey, {
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: ws as never },
    });
    await client.realtime.setAuth(session?.access_token ?? null);
    const join = (topic: string, isPrivate: boolean) =>
      new Promise<string>((resolve) => {
        client.channel(topic, { config: { private: isPrivate } }).subscribe((state) => {
          if (state === 'SUBSCRIBED' || state === 'CHANNEL_ERROR' || state === 'TIMED_OUT') resolve(state);
        });
      });
    // The same client joins a public topic: the refusal below is the private topic's own.
    expect(await join('lobby', false)).toBe('SUBSCRIBED');
    expect(await join(GATEWAY_TOPIC, true)).toBe('CHANNEL_ERROR');
    await client.removeAllChannels();
  });

  it('keeps the timer relay through the Data API: a page paired through one gateway answers a phone through the other', async () => {
    const pageSide = new SharedPipRelay(first, { log: silent });
    const phoneSide = new SharedPipRelay(second, { log: silent });
    try {
      const paired = await pageSide.pair(undefined, '10.9.1.1');
      if (!('code' in paired)) throw new Error(`not paired: ${JSON.stringify(paired)}`);
      const page = await pageSide.pageChannel(paired.token);
      if (!page) throw new Error('the page has no channel');
      const stored = await page.storeSnapshot({
        phase: 'focus',
        running: true,
        remainingMs: 60_000,
        completionAtMs: null,
        subject: null,
        task: null,
        attempts: { correct: 2, incorrect: 0, skipped: 0 },
        target: null,
      });
      const reached = await phoneSide.phoneAttempt(paired.code, '10.9.1.2');
      if (!('channel' in reached)) throw new Error(`refused: ${JSON.stringify(reached)}`);
      expect(await reached.channel.latestSnapshot()).toMatchObject({
        attempts: { correct: 2 },
        updatedAt: stored.updatedAt,
      });
      // A server's report of its streams (arrays through the Data API) is what `delivered` counts.
      const channel = await first.call('gateway_relay_page', { p_token_key: sharedKey('relay-channel', paired.token) });
      await first.call('gateway_relay_report_streams', {
        p_server: first.serverId,
        p_channels: [channel],
        p_streams: [2],
        p_valid_ms: 60_000,
      });
      const { event, delivered } = await reached.channel.relayPipAction({ action: 'start' });
      expect(delivered).toBe(2);
      expect(await second.call('gateway_relay_read_actions', { p_channel: channel, p_after: event.id - 1 })).toEqual([
        { id: event.id, action: 'start', at: event.at },
      ]);
      expect(await phoneSide.pair(paired.token, '10.9.1.1')).toEqual({ ...paired, reused: true });
      expect(await phoneSide.phoneAttempt('ZZZZZZ', '10.9.1.3')).toEqual({ refused: 'unknown' });
    } finally {
      pageSide.close();
      phoneSide.close();
    }
  });
});
