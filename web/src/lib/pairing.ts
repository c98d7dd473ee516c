// The focus page's side of pairing with the phone remote, as plain data and pure functions: how an
// answer of POST /__pip/pair is read, what the page shows, how long it waits before asking again.
// The moving parts (requests, the event stream, timers) are in phone-link.ts.
//
// The server runs with pairing on (the default: each page pairs for a short code it shows and a
// secret channel token it keeps; a phone reaches the page only with the code) or off
// (PIP_PAIRING=off, for a single-user machine: one relay channel shared by every page). The page learns which by pairing, and again whenever the server
// refuses it (a restart or ten idle minutes forget a pairing).

import { CHANNEL_TOKEN_PATTERN, isPairingCode } from '#contracts/pip-pairing.ts';
import { isLoopbackUrl } from './app-address.ts';

export { isPairingCode, PAIRING_CODE_ALPHABET } from '#contracts/pip-pairing.ts';

/** The pairing the server handed out, or none when it runs with pairing off. */
export type PairAnswer =
  | { kind: 'off' }
  | { kind: 'on'; code: string; channel: string; reused: boolean; idleTimeoutMs: number }
  | { kind: 'full' }
  | { kind: 'bad_request' }
  | { kind: 'unreachable' }
  /** Too many tries from this address: the server says when to ask again (Retry-After). */
  | { kind: 'rate_limited'; message: string; retryAfterMs: number }
  | { kind: 'refused'; message: string };

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

/** The longest wait the page takes from a Retry-After: a value past it is a server's mistake, not advice. */
export const RETRY_AFTER_MAX_MS = 60 * 60_000;

/**
 * How long a Retry-After header asks to wait, in ms: delta-seconds or an HTTP date (RFC 9110); null
 * when absent or unreadable. At least a second, at most RETRY_AFTER_MAX_MS.
 */
export function retryAfterMs(header: string | null | undefined, now: number): number | null {
  const value = header?.trim();
  if (!value) return null;
  let ms: number;
  if (/^\d+$/.test(value)) ms = Number(value) * 1000;
  else {
    // An HTTP date names its day and month ("Thu, 26 Nov 2026 02:00:00 GMT"); without letters it is not one.
    const at = /[A-Za-z]/.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_BASE_MS, ms));
}

/**
 * Reads an answer of POST /__pip/pair; `status` 0 means the request never reached the server.
 * `retryAfter` is the answer's Retry-After header, which a 429 carries (the body's retry_after_s
 * says the same, and stands in when a proxy dropped the header).
 */
export function readPairAnswer(
  status: number,
  body: unknown,
  retryAfter: string | null = null,
  now = Date.now(),
): PairAnswer {
  const fields = record(body);
  if (status === 0 || status === 404 || status === 502 || status === 504) return { kind: 'unreachable' };
  if (status === 429) {
    const advised =
      retryAfterMs(retryAfter, now) ??
      (typeof fields.retry_after_s === 'number' ? retryAfterMs(String(Math.ceil(fields.retry_after_s)), now) : null);
    const message = typeof fields.message === 'string' ? fields.message : 'This address asked to pair too often.';
    return { kind: 'rate_limited', message, retryAfterMs: advised ?? RETRY_CAP_MS };
  }
  if (status === 503 && fields.error === 'pairing_full') return { kind: 'full' };
  if (status >= 500) return { kind: 'unreachable' };
  if (status === 400) return { kind: 'bad_request' };
  if (status === 200 && fields.pairing === 'off') return { kind: 'off' };
  if (
    (status === 200 || status === 201) &&
    fields.pairing === 'on' &&
    isPairingCode(fields.code) &&
    typeof fields.channel === 'string' &&
    CHANNEL_TOKEN_PATTERN.test(fields.channel)
  ) {
    const idle = typeof fields.idleTimeoutMs === 'number' && fields.idleTimeoutMs > 0 ? fields.idleTimeoutMs : 600_000;
    return { kind: 'on', code: fields.code, channel: fields.channel, reused: status === 200, idleTimeoutMs: idle };
  }
  const message =
    typeof fields.message === 'string' ? fields.message : `The server answered ${status} when this page asked to pair.`;
  return { kind: 'refused', message };
}

/** A refusal of a state post or of the event stream that means "pair (again)". */
export function isPairingRefusal(status: number, body: unknown): boolean {
  const error = record(body).error;
  return status === 401 && (error === 'pairing_required' || error === 'pairing_channel_unknown');
}

/** Whether a phone follows this page: none seen since pairing, one now, or one that went quiet. */
export type PhonePresence = { state: 'none' } | { state: 'present'; since: number } | { state: 'gone'; since: number };

/** The page's event stream: opening, open, or down for longer than a blip. */
export type StreamHealth = 'connecting' | 'live' | 'lost';

/** Everything the phone-remote panel shows. */
export type PairingView =
  /** Asking the server whether it pairs, and for a code. */
  | { status: 'pairing' }
  /** Pairing off: every phone on the network may use the remote; no code. */
  | { status: 'off'; stream: StreamHealth; phone: PhonePresence }
  /** Paired: the code to show. `renewed` when the server forgot an earlier code of this page. */
  | { status: 'on'; code: string; renewed: boolean; stream: StreamHealth; phone: PhonePresence }
  /** The server did not answer; the page asks again at `retryAt`. */
  | { status: 'unreachable'; retryAt: number }
  /** Every pairing slot of the server is taken by an open page. */
  | { status: 'full'; retryAt: number }
  /** The server asked this address to wait (429): the page asks again at `retryAt`, not before. */
  | { status: 'rate_limited'; message: string; retryAt: number }
  /** The server refused in a way the page cannot fix by itself. */
  | { status: 'refused'; message: string; retryAt: number }
  /** Another tab of this browser holds the remote (one tab applies the phone's actions). */
  | { status: 'elsewhere' };

export const RETRY_BASE_MS = 1_000;
export const RETRY_CAP_MS = 15_000;
export const FULL_RETRY_MS = 30_000;

/** 1 s, 2 s, 4 s, 8 s, then every 15 s: quick after a blip, calm while the server is down. */
export function retryDelayMs(failures: number): number {
  return Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** Math.max(0, failures - 1));
}

/** A phone event from the stream applied to what the page knew. */
export function nextPresence(current: PhonePresence, present: boolean, now: number): PhonePresence {
  if (present) return current.state === 'present' ? current : { state: 'present', since: now };
  return current.state === 'present' ? { state: 'gone', since: now } : current;
}

/** "K7M2QD" -> "K7M 2QD", easier to read off a screen and type on a phone. */
export function formatPairingCode(code: string): string {
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

/** The remote's address on `serverUrl`, carrying the code in the hash: the phone pairs by opening it. */
export function companionLink(serverUrl: string, code: string | null): string {
  const base = `${serverUrl.replace(/\/+$/, '')}/companion/`;
  return code ? `${base}#code=${code}` : base;
}

/**
 * The addresses a phone can open: the students' address first (app-address.ts; the QR code names
 * it), then the server's plain-HTTP LAN addresses, which a phone that lacks the server's certificate
 * opens too. Never a loopback address: on the phone, that is the phone.
 */
export function phoneUrls(studentsAddress: string | null, lanUrls: readonly string[]): string[] {
  const urls = studentsAddress && !isLoopbackUrl(studentsAddress) ? [studentsAddress] : [];
  for (const url of lanUrls) if (!urls.includes(url) && !isLoopbackUrl(url)) urls.push(url);
  return urls;
}
