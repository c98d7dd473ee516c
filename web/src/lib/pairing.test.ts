// The pure part of the focus page's pairing: how each answer of POST /__pip/pair is read (grants
// and every refusal), the waits between attempts, the phone's presence, and the links a QR code
// and the panel show.
import { describe, expect, it } from 'vitest';
import {
  companionLink,
  formatPairingCode,
  isPairingRefusal,
  nextPresence,
  phoneUrls,
  readPairAnswer,
  retryAfterMs,
  retryDelayMs,
  RETRY_CAP_MS,
} from './pairing.ts';

const CHANNEL = 'a'.repeat(32);

describe('reading the answer to POST /__pip/pair', () => {
  it('takes pairing on, new (201) or kept over a reload (200)', () => {
    expect(readPairAnswer(201, { pairing: 'on', code: 'K7M2QD', channel: CHANNEL, idleTimeoutMs: 600_000 })).toEqual({
      kind: 'on',
      code: 'K7M2QD',
      channel: CHANNEL,
      reused: false,
      idleTimeoutMs: 600_000,
    });
    expect(readPairAnswer(200, { pairing: 'on', code: 'K7M2QD', channel: CHANNEL })).toMatchObject({
      kind: 'on',
      reused: true,
      idleTimeoutMs: 600_000,
    });
  });

  it('takes pairing off', () => {
    expect(readPairAnswer(200, { pairing: 'off' })).toEqual({ kind: 'off' });
  });

  it('refuses a code or channel a server would never hand out', () => {
    expect(readPairAnswer(201, { pairing: 'on', code: 'K7M2Q0', channel: CHANNEL }).kind).toBe('refused'); // 0 is not in the alphabet
    expect(readPairAnswer(201, { pairing: 'on', code: 'k7m2qd', channel: CHANNEL }).kind).toBe('refused');
    expect(readPairAnswer(201, { pairing: 'on', code: 'K7M2QD', channel: 'short' }).kind).toBe('refused');
    expect(readPairAnswer(201, { pairing: 'on', code: 'K7M2QD', channel: `${CHANNEL}<script>` }).kind).toBe('refused');
    expect(readPairAnswer(200, '<html>')).toEqual({
      kind: 'refused',
      message: 'The server answered 200 when this page asked to pair.',
    });
  });

  it('tells a full server, a request the server could not read, and one that never arrived', () => {
    expect(readPairAnswer(503, { error: 'pairing_full', message: 'Every pairing slot...' })).toEqual({ kind: 'full' });
    expect(readPairAnswer(400, { error: 'invalid_request' })).toEqual({ kind: 'bad_request' });
    for (const status of [0, 404, 500, 502, 503, 504])
      expect(readPairAnswer(status, null)).toEqual({ kind: 'unreachable' });
  });

  it('reads a 429 as a wait: Retry-After in seconds or as a date, else the body’s retry_after_s, else 15 s', () => {
    const now = Date.UTC(2026, 10, 26, 2, 0);
    const body = { error: 'rate_limited', message: 'Too many focus pages.', retry_after_s: 30 };
    expect(readPairAnswer(429, body, '45', now)).toEqual({
      kind: 'rate_limited',
      message: 'Too many focus pages.',
      retryAfterMs: 45_000,
    });
    expect(readPairAnswer(429, body, new Date(now + 90_000).toUTCString(), now)).toMatchObject({
      retryAfterMs: 90_000,
    });
    expect(readPairAnswer(429, body, null, now)).toMatchObject({ retryAfterMs: 30_000 });
    expect(readPairAnswer(429, body, 'soon', now)).toMatchObject({ retryAfterMs: 30_000 });
    expect(readPairAnswer(429, { error: 'rate_limited' }, null, now)).toEqual({
      kind: 'rate_limited',
      message: 'This address asked to pair too often.',
      retryAfterMs: 15_000,
    });
  });

  it('keeps a Retry-After between a second and an hour', () => {
    const now = Date.UTC(2026, 10, 26, 2, 0);
    expect(retryAfterMs('0', now)).toBe(1_000);
    expect(retryAfterMs(new Date(now - 60_000).toUTCString(), now)).toBe(1_000);
    expect(retryAfterMs('86400', now)).toBe(60 * 60_000);
    expect(retryAfterMs('-5', now)).toBeNull();
    expect(retryAfterMs('', now)).toBeNull();
  });

  it('passes the server’s sentence on for any other refusal', () => {
    expect(readPairAnswer(403, { error: 'forbidden', message: 'Not from here.' })).toEqual({
      kind: 'refused',
      message: 'Not from here.',
    });
  });
});

describe('refusals of a state post or of the stream', () => {
  it('means "pair again" only for the two pairing errors', () => {
    expect(isPairingRefusal(401, { error: 'pairing_required' })).toBe(true);
    expect(isPairingRefusal(401, { error: 'pairing_channel_unknown' })).toBe(true);
    expect(isPairingRefusal(401, { error: 'pairing_code_invalid' })).toBe(false); // a phone's refusal, never a page's
    expect(isPairingRefusal(400, { error: 'pairing_required' })).toBe(false);
    expect(isPairingRefusal(401, null)).toBe(false);
  });
});

describe('waiting between attempts', () => {
  it('doubles from 1 s and stays at 15 s', () => {
    expect([1, 2, 3, 4, 5, 6, 50].map(retryDelayMs)).toEqual([
      1_000,
      2_000,
      4_000,
      8_000,
      RETRY_CAP_MS,
      RETRY_CAP_MS,
      RETRY_CAP_MS,
    ]);
  });
});

describe('the phone’s presence', () => {
  it('goes none -> present -> gone -> present, and ignores a leave it never saw arrive', () => {
    const none = { state: 'none' } as const;
    expect(nextPresence(none, false, 5)).toBe(none);
    const present = nextPresence(none, true, 10);
    expect(present).toEqual({ state: 'present', since: 10 });
    expect(nextPresence(present, true, 20)).toBe(present);
    const gone = nextPresence(present, false, 30);
    expect(gone).toEqual({ state: 'gone', since: 30 });
    expect(nextPresence(gone, false, 40)).toBe(gone);
    expect(nextPresence(gone, true, 50)).toEqual({ state: 'present', since: 50 });
  });
});

describe('links and addresses', () => {
  it('puts the code in the hash of the remote’s address, and none when pairing is off', () => {
    expect(companionLink('http://192.168.1.20:3000', 'K7M2QD')).toBe('http://192.168.1.20:3000/companion/#code=K7M2QD');
    expect(companionLink('http://192.168.1.20:3000/', null)).toBe('http://192.168.1.20:3000/companion/');
    expect(formatPairingCode('K7M2QD')).toBe('K7M 2QD');
  });

  it('offers the students’ address first, then the other LAN addresses, and never a loopback one', () => {
    expect(phoneUrls('https://192.168.1.20:3443', ['http://192.168.1.20:3000', 'http://10.0.0.7:3000'])).toEqual([
      'https://192.168.1.20:3443',
      'http://192.168.1.20:3000',
      'http://10.0.0.7:3000',
    ]);
    expect(phoneUrls('http://192.168.1.20:3000', ['http://192.168.1.20:3000'])).toEqual(['http://192.168.1.20:3000']);
    expect(phoneUrls('http://studyhall.lan:3000', ['http://192.168.1.20:3000'])).toEqual([
      'http://studyhall.lan:3000',
      'http://192.168.1.20:3000',
    ]);
    expect(phoneUrls('http://127.0.0.1:3000', [])).toEqual([]);
    expect(phoneUrls(null, ['http://192.168.1.20:3000'])).toEqual(['http://192.168.1.20:3000']);
    expect(phoneUrls('http://[::1]:3000', ['http://localhost:3000'])).toEqual([]);
  });
});
