// One holder per name among the tabs of this browser: navigator.locks (Web Locks) where the browser
// has it, and a lease in localStorage where it does not. Browsers give Web Locks to secure contexts
// only, so a page opened at the server's plain-HTTP LAN address has none, and without a stand-in
// every tab of a student would hold the phone link at once and apply each phone action twice.
//
// The lease: `studyhall-lease:<name>` holds the holder's tab id and when its lease ends. The holder
// renews it four times per LEASE_MS and removes it when done or when the page goes away, which the
// waiting tabs hear at once (a `storage` event); a tab that crashed holds it LEASE_MS at most. The
// lease outlasts the once-a-minute timers of a tab hidden for long (Chromium's intensive
// throttling), so a focus page in a background tab keeps it. A tab that writes the lease confirms a
// moment later that its own write stayed, so two tabs that wrote at once do not both go on. Only
// what the app uses of Web Locks: exclusive locks, `ifAvailable` and `signal`.
import { randomUuid } from '#contracts/random-id.ts';

export const LEASE_MS = 90_000;
const RENEW_MS = LEASE_MS / 4;
/** How long a tab waits after writing the lease before it counts as held. */
export const CONFIRM_MS = 150;

export interface TabLockOptions {
  /** Run the callback with null at once instead of waiting when another tab holds the name. */
  ifAvailable?: boolean;
  /** Stops waiting (the request rejects with an AbortError). */
  signal?: AbortSignal;
}

export interface TabLocks {
  request<T>(name: string, options: TabLockOptions, callback: (lock: object | null) => Promise<T> | T): Promise<T>;
}

interface Lease {
  holder: string;
  until: number;
}

export interface LeaseEnvironment {
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;
  now?: () => number;
  /** Where `storage` and `pagehide` events arrive (window in a page). */
  events?: Pick<EventTarget, 'addEventListener' | 'removeEventListener'>;
  tabId?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class LeaseLocks implements TabLocks {
  private readonly storage: LeaseEnvironment['storage'];
  private readonly now: () => number;
  private readonly events: LeaseEnvironment['events'];
  private readonly tabId: string;

  constructor(environment: LeaseEnvironment) {
    this.storage = environment.storage;
    this.now = environment.now ?? Date.now;
    this.events = environment.events;
    this.tabId = environment.tabId ?? randomUuid();
  }

  async request<T>(
    name: string,
    options: TabLockOptions,
    callback: (lock: object | null) => Promise<T> | T,
  ): Promise<T> {
    const key = `studyhall-lease:${name}`;
    if (!(await this.take(key))) {
      if (options.ifAvailable) return callback(null);
      await this.waitFor(key, options.signal);
    }
    const renewal = setInterval(() => this.write(key), RENEW_MS);
    const release = () => {
      clearInterval(renewal);
      this.events?.removeEventListener('pagehide', release);
      if (this.read(key)?.holder === this.tabId) this.storage.removeItem(key);
    };
    this.events?.addEventListener('pagehide', release);
    try {
      return await callback({ name });
    } finally {
      release();
    }
  }

  private read(key: string): Lease | null {
    try {
      const value = JSON.parse(this.storage.getItem(key) ?? 'null') as Lease | null;
      return value && typeof value.holder === 'string' && typeof value.until === 'number' ? value : null;
    } catch {
      return null;
    }
  }

  private write(key: string): void {
    this.storage.setItem(key, JSON.stringify({ holder: this.tabId, until: this.now() + LEASE_MS }));
  }

  /** Takes the lease when it is free, run out or already this tab's; false when another tab holds it. */
  private async take(key: string): Promise<boolean> {
    const current = this.read(key);
    if (current && current.holder !== this.tabId && current.until > this.now()) return false;
    this.write(key);
    await sleep(CONFIRM_MS);
    return this.read(key)?.holder === this.tabId;
  }

  private waitFor(key: string, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      let trying = false;
      const attempt = async () => {
        if (trying) return;
        trying = true;
        const taken = await this.take(key);
        trying = false;
        if (taken && !signal?.aborted) {
          stop();
          resolve();
        }
      };
      // A holder that lets go removes the key, which other tabs hear at once; one that vanished is
      // noticed when its lease runs out.
      const onStorage = (event: Event) => {
        if ((event as StorageEvent).key === key) void attempt();
      };
      const poll = setInterval(() => void attempt(), RENEW_MS);
      const onAbort = () => {
        stop();
        reject(new DOMException('The wait for the lock was aborted.', 'AbortError'));
      };
      const stop = () => {
        clearInterval(poll);
        this.events?.removeEventListener('storage', onStorage);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) return onAbort();
      this.events?.addEventListener('storage', onStorage);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

let fallback: LeaseLocks | undefined;

/** Web Locks where the browser has them, else the localStorage lease (one per page). */
export function tabLocks(): TabLocks {
  if (typeof navigator !== 'undefined' && navigator.locks) return navigator.locks as TabLocks;
  fallback ??= new LeaseLocks({ storage: localStorage, events: window });
  return fallback;
}
