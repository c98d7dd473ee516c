// The realtime proxy's read budget on stand-in sockets and a fake clock: while the budget is spent,
// the sockets that sent more than their share wait, and are let read again one at a time, oldest
// first, as it refills; a socket that sends little is never paused.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { socketReadBudget } from '../src/proxy/socket-read-budget.ts';

/** What the budget uses of a proxied client socket: its state, pause and resume, its TCP socket. */
class StandInSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  paused = false;
  readonly _socket = new EventEmitter();

  pause(): void {
    this.paused = true;
  }

  terminate(): void {
    this.readyState = 3;
    this.emit('close');
  }

  resume(): void {
    this.paused = false;
  }

  /** The proxy reads `bytes` from it. */
  read(bytes: number): void {
    this._socket.emit('data', Buffer.alloc(bytes));
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

function connected(budget: ReturnType<typeof socketReadBudget>): StandInSocket {
  const socket = new StandInSocket();
  budget.onConnect(socket as unknown as WebSocket);
  return socket;
}

describe('the realtime read budget', () => {
  it('pauses the sockets that sent more than their share once it is spent, never a light one, and resumes them oldest first as it refills', () => {
    const budget = socketReadBudget({ bytesPerSecond: 100_000, burst: 100_000, lightBytesPerSecond: 1_000 });
    const [first, second, light] = [connected(budget), connected(budget), connected(budget)];
    first.read(60_000);
    second.read(30_000);
    light.read(500);
    expect([first.paused, second.paused, light.paused]).toEqual([false, false, false]);
    // Spent: the two heavy ones wait; the light one reads on, even past the budget.
    second.read(20_000);
    expect([first.paused, second.paused]).toEqual([true, true]);
    light.read(500);
    expect(light.paused).toBe(false);

    // The budget is 11,000 in debt: refilled after 110 ms, then one socket at a time.
    vi.advanceTimersByTime(100);
    expect([first.paused, second.paused]).toEqual([true, true]);
    vi.advanceTimersByTime(20);
    expect([first.paused, second.paused]).toEqual([false, true]);
    // Its turn lets it read a whole large frame, whatever the budget holds; the debt delays the next.
    first.read(500_000);
    expect(first.paused).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(second.paused).toBe(true);
    vi.advanceTimersByTime(4_000);
    expect(second.paused).toBe(false);
  });

  it('drops a socket waiting for its turn when its link goes, and only such a one', () => {
    const budget = socketReadBudget({ bytesPerSecond: 1_000, burst: 1_000, lightBytesPerSecond: 100 });
    const [waiting, reading] = [connected(budget), connected(budget)];
    waiting.read(2_000);
    expect(waiting.paused).toBe(true);
    budget.onDisconnect(waiting as unknown as WebSocket);
    budget.onDisconnect(reading as unknown as WebSocket);
    expect(waiting.readyState).toBe(3);
    expect(reading.readyState).toBe(1);
  });

  it('forgets a socket once it closes', () => {
    const budget = socketReadBudget({ bytesPerSecond: 1_000, burst: 1_000, lightBytesPerSecond: 100 });
    const [gone, staying] = [connected(budget), connected(budget)];
    gone.read(2_000);
    staying.read(50);
    expect(gone.paused).toBe(true);
    gone.readyState = 3;
    gone.emit('close');
    vi.advanceTimersByTime(5_000);
    expect(gone.paused).toBe(true);
    expect(staying.paused).toBe(false);
  });
});
