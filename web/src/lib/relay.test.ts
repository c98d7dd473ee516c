// Relayed actions are applied once per event id, and a restarted server's new numbering is not
// mistaken for repeats.
import { describe, expect, it } from 'vitest';
import { parseRelayEvent } from '#contracts/relay-events.ts';
import { ActionDeduper, RelayListener, type EventSourceLike, type RelayedAction } from './relay.ts';

/** A stand-in for the browser's EventSource that the test feeds by hand. */
class FakeStream implements EventSourceLike {
  readyState = 1;
  onerror: ((event: Event) => void) | null = null;
  closed = false;
  private readonly listeners = new Map<string, ((event: MessageEvent<string>) => void)[]>();
  addEventListener(type: string, listener: (event: MessageEvent<string>) => void) {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  emit(type: string, data: unknown) {
    for (const listener of this.listeners.get(type) ?? [])
      listener(new MessageEvent(type, { data: JSON.stringify(data) }));
  }
  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

function listen() {
  const streams: FakeStream[] = [];
  const applied: RelayedAction[] = [];
  const timers: (() => void)[] = [];
  const listener = new RelayListener({
    open: () => {
      const stream = new FakeStream();
      streams.push(stream);
      return stream;
    },
    onAction: (action) => applied.push(action),
    setTimer: (callback) => timers.push(callback),
  });
  listener.start();
  return { streams, applied, timers, listener };
}

describe('relay actions', () => {
  it('applies each event id once, whatever arrives twice', async () => {
    const { streams, applied, listener } = listen();
    const stream = streams[0]!;
    stream.emit('hello', { snapshot: {}, at: 1 });
    stream.emit('pip-action', { id: 1, action: 'correct', at: 10 });
    stream.emit('pip-action', { id: 1, action: 'correct', at: 10 });
    stream.emit('pip-action', { id: 2, action: 'skip', at: 11 });
    stream.emit('pip-action', { id: 2, action: 'skip', at: 11 });
    stream.emit('pip-action', { id: 3, action: 'target', target: 20, at: 12 });
    await listener.settled();
    expect(applied.map((action) => [action.id, action.action])).toEqual([
      [1, 'correct'],
      [2, 'skip'],
      [3, 'target'],
    ]);
    expect(applied[2]).toEqual({ id: 3, action: 'target', target: 20, at: 12 });
  });

  it('ignores malformed events and unknown actions', async () => {
    const { streams, applied, listener } = listen();
    const stream = streams[0]!;
    stream.emit('pip-action', { id: 'x', action: 'correct' });
    stream.emit('pip-action', { id: 4, action: 'explode' });
    stream.emit('pip-action', { id: 5, action: 'target' });
    await listener.settled();
    expect(applied).toEqual([]);
    expect(parseRelayEvent('pip-action', 'not json')).toBeNull();
  });

  it('accepts a restarted server numbering from 1 again after a new hello', () => {
    const deduper = new ActionDeduper();
    deduper.streamOpened();
    expect([1, 2, 3].map((id) => deduper.accept(id))).toEqual([true, true, true]);
    expect(deduper.accept(2)).toBe(false); // same stream: a repeat
    deduper.streamOpened(); // reconnected to a server that restarted
    expect(deduper.accept(1)).toBe(true);
    expect(deduper.accept(1)).toBe(false);
    expect(deduper.accept(2)).toBe(true);
  });

  it('keeps the numbering of a server that did not restart: new ids continue above the old', () => {
    const deduper = new ActionDeduper();
    deduper.streamOpened();
    deduper.accept(7);
    deduper.streamOpened();
    expect(deduper.accept(8)).toBe(true);
    expect(deduper.accept(7)).toBe(false);
  });

  it('opens a new stream after the browser gave up on one, and only that stream applies actions', async () => {
    const { streams, applied, timers, listener } = listen();
    const first = streams[0]!;
    first.emit('pip-action', { id: 1, action: 'correct', at: 1 });
    first.readyState = 2;
    first.onerror?.(new Event('error'));
    expect(first.closed).toBe(true);
    expect(timers).toHaveLength(1);
    timers[0]!();
    const second = streams[1]!;
    first.emit('pip-action', { id: 2, action: 'incorrect', at: 2 }); // a late event of the old stream
    second.emit('hello', { snapshot: {}, at: 3 });
    second.emit('pip-action', { id: 3, action: 'undo', at: 4 });
    await listener.settled();
    expect(applied.map((action) => action.id)).toEqual([1, 3]);
  });

  it('handles the next event after a handler threw, and reports the error', async () => {
    const streams: FakeStream[] = [];
    const applied: number[] = [];
    const reported: unknown[] = [];
    const listener = new RelayListener({
      open: () => {
        const stream = new FakeStream();
        streams.push(stream);
        return stream;
      },
      onAction: (action) => {
        if (action.id === 1) throw new Error('first one fails');
        applied.push(action.id);
      },
    });
    const report = (error: unknown) => reported.push(error);
    process.on('uncaughtException', report);
    try {
      listener.start();
      streams[0]!.emit('pip-action', { id: 1, action: 'correct', at: 1 });
      streams[0]!.emit('pip-action', { id: 2, action: 'correct', at: 2 });
      await listener.settled();
      await new Promise((resolve) => setTimeout(resolve, 0));
    } finally {
      process.off('uncaughtException', report);
    }
    expect(applied).toEqual([2]);
    expect(reported).toEqual([new Error('first one fails')]);
  });

  it('stops for good on stop()', async () => {
    const { streams, applied, listener } = listen();
    listener.stop();
    expect(streams[0]!.closed).toBe(true);
    streams[0]!.emit('pip-action', { id: 1, action: 'correct', at: 1 });
    await listener.settled();
    expect(applied).toEqual([]);
  });
});
