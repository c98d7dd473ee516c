// Every event the real gateway writes on /__pip/events is exactly the contract's shape for its name,
// and the focus page's listener (web/src/lib/relay.ts) applies the gateway's own frames.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { RelayListener, type EventSourceLike } from '#web/src/lib/relay.ts';
import {
  formatRelayEvent,
  parseRelayEvent,
  relayEvents,
  type RelayedAction,
  type RelayEventName,
} from '#contracts/relay-events.ts';
import { timerSnapshot } from '#contracts/timer-snapshot.ts';

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  // The open relay (PIP_PAIRING=off): the contract is the same behind a pairing code.
  gateway = await startTestGateway({ config: { pipPairing: false } });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

/** Replays frames into the page's listener as the browser's EventSource would. */
class ReplayedStream implements EventSourceLike {
  readyState = 1;
  onerror: ((event: Event) => void) | null = null;
  private readonly listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  replay(type: string, data: string) {
    for (const listener of this.listeners.get(type) ?? []) listener(new MessageEvent(type, { data }));
  }
  close() {
    this.readyState = 2;
  }
}

function isEventName(name: string): name is RelayEventName {
  return name in relayEvents;
}

describe('the relay event contract', () => {
  it('covers every event the gateway writes, each exactly in its shape, and the page applies them', async () => {
    const frames = await recordFrames();
    expect(new Set(frames.map((frame) => frame.event))).toEqual(new Set(Object.keys(relayEvents)));
    for (const { event, data } of frames) {
      if (!isEventName(event)) throw new Error(`the gateway wrote an event the contract does not name: ${event}`);
      expect(parseRelayEvent(event, data), event).toEqual(JSON.parse(data));
    }
    const hello = frames.find((frame) => frame.event === 'hello')!;
    expect(timerSnapshot.parse(JSON.parse(hello.data).snapshot)).toEqual(JSON.parse(hello.data).snapshot);

    const stream = new ReplayedStream();
    const applied: RelayedAction[] = [];
    const phones: boolean[] = [];
    let connected = false;
    const listener = new RelayListener({
      open: () => stream,
      onAction: (action) => applied.push(action),
      onPhone: (present) => phones.push(present),
      onConnection: (up) => (connected = up),
    });
    listener.start();
    for (const { event, data } of frames) stream.replay(event, data);
    await listener.settled();
    expect(connected).toBe(true);
    expect(phones).toEqual([true]);
    expect(applied.map(({ action, ...rest }) => ('target' in rest ? `${action} ${rest.target}` : action))).toEqual([
      'correct',
      'target 12',
    ]);
  });

  it('writes and reads one frame the same way', () => {
    const frame = formatRelayEvent('phone', { present: false, at: 5 });
    expect(frame).toBe('event: phone\ndata: {"present":false,"at":5}\n\n');
    expect(parseRelayEvent('phone', '{"present":"yes","at":5}')).toBeNull();
    expect(parseRelayEvent('pip-action', '{"id":0,"action":"correct","at":5}')).toBeNull();
  });
});

/** One stream's raw frames (name and data text) through hello, a phone arriving and two actions. */
async function recordFrames(): Promise<{ event: string; data: string }[]> {
  const url = baseUrl;
  const frames: { event: string; data: string }[] = [];
  const response = await fetch(`${url}/__pip/events`);
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const readUntil = async (count: number) => {
    while (frames.length < count) {
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffer += value;
      let boundary: number;
      while ((boundary = buffer.indexOf('\n\n')) !== -1) {
        const frame = buffer.slice(0, boundary);
        buffer = buffer.slice(boundary + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event && data !== undefined) frames.push({ event, data });
      }
    }
  };
  try {
    await readUntil(1);
    await fetch(`${url}/api/pip/state`);
    await readUntil(2);
    for (const body of [{ action: 'correct' }, { action: 'target', target: 12 }]) {
      await fetch(`${url}/api/pip/action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    }
    await readUntil(4);
  } finally {
    await reader.cancel();
  }
  return frames;
}
