// The stand-in for Web Locks on plain-HTTP pages: one holder per name among a browser's tabs, the
// others wait (or go on at once with ifAvailable), a tab that lets go or closes hands over at once,
// one that vanished hands over when its lease runs out, and a wait can be aborted.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONFIRM_MS, LEASE_MS, LeaseLocks } from './tab-locks.ts';

/** One browser's localStorage, shared by its tabs; a write is heard by the other tabs (`storage`). */
function browserStorage() {
  const values = new Map<string, string>();
  const tabs: { id: string; events: EventTarget }[] = [];
  const changed = (writer: string, key: string) => {
    for (const tab of tabs)
      if (tab.id !== writer) tab.events.dispatchEvent(Object.assign(new Event('storage'), { key }));
  };
  return {
    tab(id: string) {
      const events = new EventTarget();
      tabs.push({ id, events });
      const storage = {
        getItem: (key: string) => values.get(key) ?? null,
        setItem: (key: string, value: string) => {
          values.set(key, value);
          changed(id, key);
        },
        removeItem: (key: string) => {
          values.delete(key);
          changed(id, key);
        },
      };
      return { locks: new LeaseLocks({ storage, events, tabId: id }), events };
    },
    values,
  };
}

/** A callback that holds the lock until `release` is called. */
function holder() {
  let release = () => undefined as void;
  const held = new Promise<void>((resolve) => (release = resolve));
  return { hold: () => held, release: () => release() };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('LeaseLocks', () => {
  it('lets one tab hold a name; another asking ifAvailable goes on without it', async () => {
    const browser = browserStorage();
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const first = holder();
    let aHeld: object | null = null;
    void a.locks.request('relay', { ifAvailable: true }, (lock) => ((aHeld = lock), first.hold()));
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    expect(aHeld).not.toBeNull();
    const answer = b.locks.request('relay', { ifAvailable: true }, (lock) => lock);
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    expect(await answer).toBeNull();
  });

  it('hands the name over at once when the holder lets go, and runs waiters one at a time', async () => {
    const browser = browserStorage();
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const order: string[] = [];
    const first = holder();
    void a.locks.request('outbox', {}, async () => {
      order.push('a starts');
      await first.hold();
      order.push('a ends');
    });
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    const second = b.locks.request('outbox', {}, () => order.push('b starts'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(order).toEqual(['a starts']);
    first.release();
    await vi.advanceTimersByTimeAsync(CONFIRM_MS * 2);
    await second;
    expect(order).toEqual(['a starts', 'a ends', 'b starts']);
    expect(browser.values.size).toBe(0);
  });

  it('hands over when the holding page goes away, and keeps it while that page lives, however long', async () => {
    const browser = browserStorage();
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    void a.locks.request('relay', {}, () => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    let bHolds = false;
    void b.locks.request('relay', {}, () => ((bHolds = true), new Promise(() => undefined)));
    await vi.advanceTimersByTimeAsync(LEASE_MS * 3);
    expect(bHolds).toBe(false);
    a.events.dispatchEvent(new Event('pagehide'));
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    expect(bHolds).toBe(true);
  });

  it('hands over once the lease of a tab that vanished without a word has run out', async () => {
    const browser = browserStorage();
    browser.values.set('studyhall-lease:relay', JSON.stringify({ holder: 'crashed', until: Date.now() + LEASE_MS }));
    const b = browser.tab('b');
    let bHolds = false;
    void b.locks.request('relay', {}, () => ((bHolds = true), new Promise(() => undefined)));
    await vi.advanceTimersByTimeAsync(LEASE_MS / 2);
    expect(bHolds).toBe(false);
    await vi.advanceTimersByTimeAsync(LEASE_MS);
    expect(bHolds).toBe(true);
  });

  it('stops waiting when the wait is aborted', async () => {
    const browser = browserStorage();
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    void a.locks.request('relay', {}, () => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    const wait = new AbortController();
    const waiting = b.locks.request('relay', { signal: wait.signal }, () => 'held');
    const outcome = expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    wait.abort();
    await outcome;
  });

  it('lets only one of two tabs that write at the same moment go on', async () => {
    const browser = browserStorage();
    const [a, b] = [browser.tab('a'), browser.tab('b')];
    const held: string[] = [];
    void a.locks.request('relay', { ifAvailable: true }, (lock) => lock && held.push('a'));
    void b.locks.request('relay', { ifAvailable: true }, (lock) => lock && held.push('b'));
    await vi.advanceTimersByTimeAsync(CONFIRM_MS);
    expect(held).toHaveLength(1);
  });
});
