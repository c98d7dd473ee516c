// Realtime broadcast through supabase-js: a channel's message reaches the other channels of its
// topic (and the sender with `broadcast.self`), `broadcast.ack` answers the sender, the HTTP
// endpoints relay to joined channels, and a private channel that no policy on realtime.messages
// allows is refused as Supabase refuses it. On PostgreSQL 15 in `npm test`.
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { REALTIME_CLIENTS, clientFor, type ClientFlavour } from '../clients.ts';
import { caughtUpWithSocket, joinOutcome, subscribed } from '../realtime-listener.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

interface Heard {
  channel: RealtimeChannel;
  received: { event: string; payload: unknown }[];
  /** Waits up to timeoutMs for `count` messages in all; answers what arrived. */
  until(count: number, timeoutMs?: number): Promise<{ event: string; payload: unknown }[]>;
}

/** Joins `topic` listening to every broadcast event; resolves once subscribed. */
async function hear(
  client: SupabaseClient,
  topic: string,
  broadcast: { self?: boolean; ack?: boolean } = {},
): Promise<Heard> {
  const received: { event: string; payload: unknown }[] = [];
  const channel = client.channel(topic, { config: { broadcast } });
  channel.on('broadcast', { event: '*' }, (message: { event: string; payload: unknown }) => {
    received.push({ event: message.event, payload: message.payload });
  });
  await subscribed(channel);
  return {
    channel,
    received,
    until: async (count, timeoutMs = 3000) => {
      for (let waited = 0; received.length < count && waited < timeoutMs; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return received;
    },
  };
}

let topicCounter = 0;
const freshTopic = () => `room-${process.pid}-${(topicCounter += 1)}`;

describe.each(REALTIME_CLIENTS.map((flavour) => [flavour.name, flavour] as const))(
  'with %s',
  (_name, flavour: ClientFlavour) => {
    let ann: SupabaseClient;
    let ben: SupabaseClient;

    beforeAll(() => {
      ann = clientFor(localbase, localbase.anonKey, flavour);
      ben = clientFor(localbase, localbase.anonKey, flavour);
    });

    afterAll(async () => {
      await ann?.removeAllChannels();
      await ben?.removeAllChannels();
    });

    it("relays a client's broadcast to the topic's other channels, not back to the sender, nor to another topic", async () => {
      const topic = freshTopic();
      const annHears = await hear(ann, topic);
      const benHears = await hear(ben, topic);
      const elsewhere = await hear(ben, freshTopic());
      expect(await annHears.channel.send({ type: 'broadcast', event: 'cursor', payload: { x: 3, y: 4 } })).toBe('ok');
      expect(await benHears.until(1)).toEqual([{ event: 'cursor', payload: { x: 3, y: 4 } }]);
      // The relay writes every receiver's copy at once: ann's, the other topic's or a second one for
      // ben, had there been any, were written before ben had his and are ahead of the echoes.
      await Promise.all([caughtUpWithSocket(ann), caughtUpWithSocket(ben)]);
      expect(annHears.received).toEqual([]);
      expect(elsewhere.received).toEqual([]);
      expect(benHears.received).toHaveLength(1);
    });

    it('sends the sender its own broadcast when it joined with broadcast.self', async () => {
      const topic = freshTopic();
      const annHears = await hear(ann, topic, { self: true });
      const benHears = await hear(ben, topic);
      await annHears.channel.send({ type: 'broadcast', event: 'typing', payload: { who: 'ann' } });
      expect(await annHears.until(1)).toEqual([{ event: 'typing', payload: { who: 'ann' } }]);
      expect(await benHears.until(1)).toEqual([{ event: 'typing', payload: { who: 'ann' } }]);
    });

    it('answers the sender when it joined with broadcast.ack, and refuses a payload past 256 KiB', async () => {
      const topic = freshTopic();
      const annHears = await hear(ann, topic, { ack: true });
      const benHears = await hear(ben, topic);
      expect(await annHears.channel.send({ type: 'broadcast', event: 'saved', payload: { n: 1 } })).toBe('ok');
      // The server relays before it answers the sender: ben's copy is on his socket ahead of the echo.
      await caughtUpWithSocket(ben);
      expect(benHears.received).toEqual([{ event: 'saved', payload: { n: 1 } }]);
      expect(
        await annHears.channel.send({ type: 'broadcast', event: 'huge', payload: { text: 'x'.repeat(256 * 1024) } }),
      ).toBe('error');
      await caughtUpWithSocket(ben);
      expect(benHears.received).toHaveLength(1);
    });

    it.runIf(flavour.serializer === '2.0.0')(
      'refuses a raw-bytes broadcast (sent as a binary frame) rather than dropping it unanswered',
      async () => {
        const topic = freshTopic();
        const annHears = await hear(ann, topic, { ack: true });
        const benHears = await hear(ben, topic);
        expect(
          await annHears.channel.send({ type: 'broadcast', event: 'bytes', payload: new Uint8Array([1, 2, 3]).buffer }),
        ).toBe('error');
        await caughtUpWithSocket(ben);
        expect(benHears.received).toEqual([]);
      },
    );

    it('refuses a private channel no policy allows with Realtime\'s "Unauthorized" reply', async () => {
      const topic = freshTopic();
      const channel = ann.channel(topic, { config: { private: true } });
      const failure = await joinOutcome(channel);
      expect(failure?.message).toContain(
        `Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`,
      );
      await ann.removeChannel(channel);
    });
  },
);

describe('the HTTP broadcast endpoints', () => {
  const post = (path: string, body: unknown, headers: Record<string, string> = { apikey: localbase.anonKey }) =>
    fetch(`${localbase.url}/realtime/v1/api/broadcast${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it("relays channel.httpSend and a batch to the topic's joined channels", async () => {
    const topic = freshTopic();
    const listener = clientFor(localbase);
    const sender = clientFor(localbase);
    try {
      const hears = await hear(listener, topic);
      // The sender never joins: httpSend goes over HTTP only.
      expect(await sender.channel(topic).httpSend('ping', { n: 1 })).toEqual({ success: true });
      const batch = await post('', {
        messages: [
          { topic, event: 'pong', payload: { n: 2 } },
          { topic: freshTopic(), event: 'x', payload: {} },
        ],
      });
      expect(batch.status).toBe(202);
      expect(await hears.until(2)).toEqual([
        { event: 'ping', payload: { n: 1 } },
        { event: 'pong', payload: { n: 2 } },
      ]);
    } finally {
      await listener.removeAllChannels();
      await sender.removeAllChannels();
    }
  });

  it('refuses a request without an API key, with a bad token, an oversized payload or a malformed body, and keeps a private message from public channels, relaying nothing', async () => {
    const topic = freshTopic();
    const listener = clientFor(localbase);
    try {
      const hears = await hear(listener, topic);
      const one = { messages: [{ topic, event: 'e', payload: { n: 1 } }] };
      expect((await post('', one, {})).status).toBe(401);
      expect((await post('', one, { apikey: localbase.anonKey, authorization: 'Bearer not-a-token' })).status).toBe(
        401,
      );
      // A private message is answered 202 as hosted answers it, and reaches no public channel (nor,
      // with no policy allowing the write, any private one: realtime-private.parity.test.ts).
      expect((await post('', { messages: [{ topic, event: 'e', payload: {}, private: true }] })).status).toBe(202);
      expect((await post(`/${topic}/events/e?private=true`, { n: 1 })).status).toBe(202);
      expect(
        (await post('', { messages: [{ topic, event: 'e', payload: { text: 'x'.repeat(256 * 1024) } }] })).status,
      ).toBe(413);
      expect((await post('', { messages: 'no' })).status).toBe(400);
      // The endpoint relays before it answers: a public message posted now comes after anything the
      // requests above relayed to the listener.
      expect((await post('', { messages: [{ topic, event: 'marker', payload: {} }] })).status).toBe(202);
      expect(await hears.until(1)).toEqual([{ event: 'marker', payload: {} }]);
    } finally {
      await listener.removeAllChannels();
    }
  });
});
