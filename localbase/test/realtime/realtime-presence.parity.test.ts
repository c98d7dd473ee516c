// Realtime presence through supabase-js, two (or three) clients on one topic: a joiner gets the
// state, every channel with presence gets joins and leaves (untrack, leaving the channel, a socket
// that closes), and what one channel may track is bounded.
// On PostgreSQL 15 in `npm test`.
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { REALTIME_CLIENTS, clientFor, type ClientFlavour } from '../clients.ts';
import { caughtUpWithSocket, subscribed } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

interface Watched {
  channel: RealtimeChannel;
  events: { event: string; key?: string; presences?: Record<string, unknown>[] }[];
  /** The channel's presence state as keys and their tracked payloads (presence_ref left out). */
  state(): Record<string, Record<string, unknown>[]>;
  /** Waits until the predicate holds (or 3 s passed) and answers whether it did. */
  until(holds: () => boolean): Promise<boolean>;
}

async function watch(client: SupabaseClient, topic: string, key?: string): Promise<Watched> {
  const channel = client.channel(topic, { config: key === undefined ? {} : { presence: { key } } });
  const events: Watched['events'] = [];
  channel
    .on('presence', { event: 'sync' }, () => events.push({ event: 'sync' }))
    .on('presence', { event: 'join' }, ({ key: joined, newPresences }) =>
      events.push({ event: 'join', key: joined, presences: newPresences }),
    )
    .on('presence', { event: 'leave' }, ({ key: left, leftPresences }) =>
      events.push({ event: 'leave', key: left, presences: leftPresences }),
    );
  await subscribed(channel);
  const state = () =>
    Object.fromEntries(
      Object.entries(channel.presenceState()).map(([name, presences]) => [
        name,
        presences.map(({ presence_ref: _ref, ...tracked }) => tracked as Record<string, unknown>),
      ]),
    );
  return {
    channel,
    events,
    state,
    until: async (holds) => {
      for (let waited = 0; !holds() && waited < 3000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return holds();
    },
  };
}

let topicCounter = 0;
const freshTopic = () => `presence-${process.pid}-${(topicCounter += 1)}`;

describe.each(REALTIME_CLIENTS.map((flavour) => [flavour.name, flavour] as const))(
  'with %s',
  (_name, flavour: ClientFlavour) => {
    const clients: SupabaseClient[] = [];
    const client = () => {
      const created = clientFor(localbase, localbase.anonKey, flavour);
      clients.push(created);
      return created;
    };

    afterAll(async () => {
      for (const each of clients) await each.removeAllChannels();
    });

    it('syncs tracked state to every channel, a late joiner included, and tells the others of joins, updates and untracks', async () => {
      const topic = freshTopic();
      const ann = await watch(client(), topic, 'ann');
      const ben = await watch(client(), topic, 'ben');
      expect(await ann.channel.track({ status: 'studying' })).toBe('ok');
      expect(await ben.channel.track({ status: 'break' })).toBe('ok');
      const both = { ann: [{ status: 'studying' }], ben: [{ status: 'break' }] };
      expect(await ann.until(() => Object.keys(ann.state()).length === 2)).toBe(true);
      expect(ann.state()).toEqual(both);
      expect(await ben.until(() => Object.keys(ben.state()).length === 2)).toBe(true);
      expect(ben.state()).toEqual(both);
      expect(ann.events).toContainEqual({
        event: 'join',
        key: 'ben',
        presences: [expect.objectContaining({ status: 'break' })],
      });

      // A channel joining later gets the whole state at once.
      const cy = await watch(client(), topic, 'cy');
      expect(await cy.until(() => Object.keys(cy.state()).length === 2)).toBe(true);
      expect(cy.state()).toEqual(both);

      // Tracking anew replaces the channel's meta; the same payload again changes nothing.
      expect(await ben.channel.track({ status: 'studying', subject: 'maths' })).toBe('ok');
      expect(await ann.until(() => ann.state().ben?.[0]?.subject === 'maths')).toBe(true);
      expect(ann.state().ben).toEqual([{ status: 'studying', subject: 'maths' }]);

      expect(await ben.channel.untrack()).toBe('ok');
      expect(await ann.until(() => ann.state().ben === undefined)).toBe(true);
      expect(await cy.until(() => cy.state().ben === undefined)).toBe(true);
      expect(ann.events).toContainEqual({
        event: 'leave',
        key: 'ben',
        presences: [expect.objectContaining({ subject: 'maths' })],
      });
      expect(ann.state()).toEqual({ ann: [{ status: 'studying' }] });
    });

    it('sends a leave when a channel leaves or its socket closes, and keys a channel without one by a generated id', async () => {
      const topic = freshTopic();
      const ann = await watch(client(), topic, 'ann');
      const leaverClient = client();
      const leaver = await watch(leaverClient, topic, 'leaver');
      const closerClient = client();
      const closer = await watch(closerClient, topic);
      await leaver.channel.track({ n: 1 });
      await closer.channel.track({ n: 2 });
      expect(await ann.until(() => Object.keys(ann.state()).length === 2)).toBe(true);
      const generated = Object.keys(ann.state()).find((key) => key !== 'leaver');
      expect(generated).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

      await leaverClient.removeChannel(leaver.channel);
      expect(await ann.until(() => ann.state().leaver === undefined)).toBe(true);

      // The socket goes away without leaving its channel.
      closerClient.realtime.disconnect();
      expect(await ann.until(() => Object.keys(ann.state()).length === 0)).toBe(true);
      expect(ann.events.filter((event) => event.event === 'leave').map((event) => event.key)).toEqual([
        'leaver',
        generated,
      ]);
    });

    it('refuses a tracked payload past 10 keys or 4 KiB, and leaves the state as it was', async () => {
      const topic = freshTopic();
      const annClient = client();
      const ann = await watch(annClient, topic, 'ann');
      const ben = await watch(client(), topic, 'ben');
      expect(await ben.channel.track({ status: 'ok' })).toBe('ok');
      const elevenKeys = Object.fromEntries(Array.from({ length: 11 }, (_, index) => [`k${index}`, index]));
      expect(await ben.channel.track(elevenKeys)).toBe('error');
      expect(await ben.channel.track({ note: 'x'.repeat(4096) })).toBe('error');
      expect(await ann.until(() => ann.state().ben !== undefined)).toBe(true);
      // A track's diff goes to the topic's channels at once, before the server answers it: a diff of a
      // refused track would be on ann's socket ahead of the echo.
      await caughtUpWithSocket(annClient);
      expect(ann.state()).toEqual({ ben: [{ status: 'ok' }] });
    });
  },
);
