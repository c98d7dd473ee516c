// The focus page's link to the phone remote: it pairs (POST /__pip/pair), listens to its channel's
// event stream (/__pip/events, `?channel=` when paired) for the phone's actions and for whether a
// phone follows, and posts the timer snapshot (POST /__pip/state, with X-Pip-Channel when paired)
// after every change and on every `hello`, since the server keeps snapshots in memory only.
//
// When the server forgets the pairing (it restarted, or the page was away ten minutes) it refuses
// the channel: a state post answers 401 and the stream is refused, which EventSource reports as
// CLOSED. The link then pairs again: the same code when the server still knows the channel, a new
// one (shown as renewed) when not, or pairing off when the server now runs without it. A stream
// that comes back after dropping also asks again, since the server may have restarted with the
// other setting. The states the panel shows are in pairing.ts.
import { PIP_CHANNEL_HEADER } from '#contracts/pip-pairing.ts';
import {
  FULL_RETRY_MS,
  isPairingRefusal,
  nextPresence,
  readPairAnswer,
  retryDelayMs,
  RETRY_CAP_MS,
  type PairingView,
  type PhonePresence,
  type StreamHealth,
} from './pairing.ts';
import { RelayListener, type EventSourceLike, type RelayedAction } from './relay.ts';

export const CHANNEL_STORAGE_KEY = 'studyhall-pip-channel';
export const CHANNEL_HEADER = PIP_CHANNEL_HEADER;
/** A stream down for longer than this is shown as lost (a reconnect within it is a blip). */
export const STREAM_LOST_AFTER_MS = 4_000;

type Mode = { kind: 'off' } | { kind: 'on'; code: string; channel: string };
type Problem = Extract<PairingView, { status: 'unreachable' | 'full' | 'rate_limited' | 'refused' }>;

interface ResponseLike {
  status: number;
  /** A 429's Retry-After is read from here. */
  headers?: { get(name: string): string | null };
  json(): Promise<unknown>;
}

export interface PhoneLinkOptions {
  /** Origin for requests outside a page (tests); the page uses relative URLs. */
  base?: string;
  fetch: (
    url: string,
    init: { method: 'POST'; headers: Record<string, string>; body: string; cache: 'no-store' },
  ) => Promise<ResponseLike>;
  openStream: (url: string) => EventSourceLike;
  /** The snapshot to post, read when the post is sent (so queued posts send the latest). */
  snapshot: () => unknown;
  /** The signed-in student's access token, sent with each post so the server can push the phase end to her devices. */
  accessToken?: () => string | null;
  onAction: (action: RelayedAction) => void;
  onView: (view: PairingView) => void;
  /** The stream opened (`hello`) or dropped. */
  onStream?: (connected: boolean) => void;
  /** Keeps the channel token across a reload (the page keeps it per student in localStorage). */
  storage?: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null;
  now?: () => number;
  setTimer?: (callback: () => void, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
}

export class PhoneLink {
  private mode: Mode | undefined;
  private problem: Problem | undefined;
  private stream: StreamHealth = 'connecting';
  private phone: PhonePresence = { state: 'none' };
  /** Set when a code this page showed was forgotten by the server and replaced. */
  private renewed = false;
  private listener: RelayListener | undefined;
  private pairing: Promise<void> | undefined;
  private failures = 0;
  private streamRefusals = 0;
  /** The stream dropped since its last hello: the next hello checks the pairing again. */
  private recheck = false;
  private retryTimer: unknown;
  private lostTimer: unknown;
  private posting: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: PhoneLinkOptions) {}

  private get now(): number {
    return (this.options.now ?? Date.now)();
  }

  private setTimer(callback: () => void, ms: number): unknown {
    return (this.options.setTimer ?? ((run: () => void, delay: number) => setTimeout(run, delay)))(callback, ms);
  }

  private clearTimer(handle: unknown): void {
    if (handle !== undefined)
      (this.options.clearTimer ?? ((id: unknown) => clearTimeout(id as ReturnType<typeof setTimeout>)))(handle);
  }

  start(): void {
    this.stopped = false;
    this.emit();
    void this.pair();
  }

  stop(): void {
    this.stopped = true;
    this.listener?.stop();
    this.listener = undefined;
    this.clearTimer(this.retryTimer);
    this.clearTimer(this.lostTimer);
    this.lostTimer = undefined;
  }

  /** The student pressed Retry: ask the server now instead of at the scheduled time. */
  retryNow(): void {
    // A server that said when to ask again would only refuse again before then.
    if (this.stopped || (this.problem?.status === 'rate_limited' && this.problem.retryAt > this.now)) return;
    this.failures = 0;
    void this.pair();
  }

  /** Posts the current snapshot (chained: the relay keeps only the latest, so posts never race). */
  post(): void {
    const mode = this.mode;
    if (!mode || this.stopped) return; // the first hello after pairing posts it
    this.posting = this.posting.then(async () => {
      if (this.mode !== mode) return;
      const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
      if (mode.kind === 'on') headers[CHANNEL_HEADER] = mode.channel;
      const token = this.options.accessToken?.();
      if (token) headers.authorization = `Bearer ${token}`;
      try {
        const response = await this.options.fetch(`${this.options.base ?? ''}/__pip/state`, {
          method: 'POST',
          headers,
          body: JSON.stringify(this.options.snapshot()),
          cache: 'no-store',
        });
        if (
          response.status === 401 &&
          isPairingRefusal(401, await response.json().catch(() => null)) &&
          this.mode === mode
        )
          void this.pair();
      } catch {
        // Not reached: the stream's next hello posts again.
      }
    });
  }

  /** Waits for the posts queued so far (a test, before its server goes away). */
  settled(): Promise<void> {
    return this.posting.then(() => undefined);
  }

  private pair(): Promise<void> {
    this.pairing ??= this.askToPair().finally(() => (this.pairing = undefined));
    return this.pairing;
  }

  private async askToPair(): Promise<void> {
    this.clearTimer(this.retryTimer);
    const storage = this.options.storage;
    const known = this.mode?.kind === 'on' ? this.mode.channel : (storage?.getItem(CHANNEL_STORAGE_KEY) ?? undefined);
    let status = 0;
    let body: unknown = null;
    let retryAfter: string | null = null;
    try {
      const response = await this.options.fetch(`${this.options.base ?? ''}/__pip/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(known ? { channel: known } : {}),
        cache: 'no-store',
      });
      status = response.status;
      retryAfter = response.headers?.get('retry-after') ?? null;
      body = await response.json().catch(() => null);
    } catch {
      status = 0;
    }
    if (this.stopped) return;
    const answer = readPairAnswer(status, body, retryAfter, this.now);
    switch (answer.kind) {
      case 'off':
        storage?.removeItem(CHANNEL_STORAGE_KEY);
        return this.adopt({ kind: 'off' });
      case 'on': {
        storage?.setItem(CHANNEL_STORAGE_KEY, answer.channel);
        // The server no longer knew the channel this page had (shown, or kept over a reload).
        if (known !== undefined && !answer.reused) this.renewed = true;
        return this.adopt({ kind: 'on', code: answer.code, channel: answer.channel });
      }
      case 'bad_request':
        // A token the server cannot read (stored by an older page): forget it and pair afresh.
        if (known) {
          storage?.removeItem(CHANNEL_STORAGE_KEY);
          if (this.mode?.kind === 'on') this.mode = undefined;
          this.pairing = undefined;
          return this.askToPair();
        }
        return this.fail({
          status: 'refused',
          message: 'The server did not accept this page’s request to pair.',
          retryAt: this.now + RETRY_CAP_MS,
        });
      case 'full':
        return this.fail({ status: 'full', retryAt: this.now + FULL_RETRY_MS });
      case 'rate_limited':
        return this.fail({ status: 'rate_limited', message: answer.message, retryAt: this.now + answer.retryAfterMs });
      case 'refused':
        return this.fail({ status: 'refused', message: answer.message, retryAt: this.now + RETRY_CAP_MS });
      case 'unreachable':
        this.failures++;
        return this.fail({ status: 'unreachable', retryAt: this.now + retryDelayMs(this.failures) });
    }
  }

  private fail(problem: Problem): void {
    this.problem = problem;
    this.emit();
    this.retryTimer = this.setTimer(() => void this.pair(), Math.max(0, problem.retryAt - this.now));
  }

  /** A pairing answer arrived: follow its channel, reopening the stream when the channel changed. */
  private adopt(mode: Mode): void {
    const previous = this.mode;
    const changed =
      !previous ||
      previous.kind !== mode.kind ||
      (previous.kind === 'on' && mode.kind === 'on' && previous.channel !== mode.channel);
    this.mode = mode;
    this.problem = undefined;
    this.failures = 0;
    if (changed) this.phone = { state: 'none' };
    if (!this.listener) {
      this.listener = new RelayListener({
        url: () => this.streamUrl(),
        open: this.options.openStream,
        onAction: this.options.onAction,
        onConnection: (connected) => this.streamChanged(connected),
        onPhone: (present) => {
          this.phone = nextPresence(this.phone, present, this.now);
          // A phone that arrives after a renewal has the new code: the warning has done its work.
          if (present) this.renewed = false;
          this.emit();
        },
        onClosed: () => this.streamRefused(),
      });
      this.listener.start();
    } else if (changed || this.stream !== 'live') {
      this.listener.reconnect();
    }
    this.emit();
  }

  private streamUrl(): string {
    const base = `${this.options.base ?? ''}/__pip/events`;
    return this.mode?.kind === 'on' ? `${base}?channel=${encodeURIComponent(this.mode.channel)}` : base;
  }

  private streamChanged(connected: boolean): void {
    this.options.onStream?.(connected);
    if (connected) {
      this.clearTimer(this.lostTimer);
      this.lostTimer = undefined;
      this.stream = 'live';
      this.streamRefusals = 0;
      this.post();
      if (this.recheck) {
        this.recheck = false;
        void this.pair();
      }
    } else {
      this.recheck = true;
      if (this.stream === 'live') this.stream = 'connecting';
      // Counted from the first error: EventSource's own retries every 2 s must not restart it.
      this.lostTimer ??= this.setTimer(() => {
        this.lostTimer = undefined;
        this.stream = 'lost';
        this.emit();
      }, STREAM_LOST_AFTER_MS);
    }
    this.emit();
  }

  /** The server refused the stream: pair again, at once the first time, then backing off. */
  private streamRefused(): void {
    this.streamRefusals++;
    const delay = this.streamRefusals === 1 ? 0 : retryDelayMs(this.streamRefusals - 1);
    this.clearTimer(this.retryTimer);
    this.retryTimer = this.setTimer(() => void this.pair(), delay);
  }

  private emit(): void {
    this.options.onView(this.view());
  }

  view(): PairingView {
    if (this.problem) return this.problem;
    if (!this.mode) return { status: 'pairing' };
    if (this.mode.kind === 'off') return { status: 'off', stream: this.stream, phone: this.phone };
    return { status: 'on', code: this.mode.code, renewed: this.renewed, stream: this.stream, phone: this.phone };
  }
}
