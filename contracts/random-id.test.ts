// randomUuid: the shape the database's uuid columns take (version 4, RFC 9562 variant), a fresh id
// on every call, and no dependence on crypto.randomUUID, which plain-HTTP pages do not have.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomUuid } from './random-id.ts';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

afterEach(() => vi.unstubAllGlobals());

describe('randomUuid', () => {
  it('is a lower-case UUID with version 4 and the RFC 9562 variant', () => {
    for (let round = 0; round < 1000; round++) expect(randomUuid()).toMatch(V4);
  });

  it('sets the version and variant bits whatever the random bytes were', () => {
    for (const fill of [0x00, 0xff]) {
      vi.stubGlobal('crypto', { getRandomValues: (bytes: Uint8Array) => bytes.fill(fill) });
      expect(randomUuid()).toBe(
        fill === 0 ? '00000000-0000-4000-8000-000000000000' : 'ffffffff-ffff-4fff-bfff-ffffffffffff',
      );
    }
  });

  it('gives a different id on every call', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => randomUuid()));
    expect(ids.size).toBe(10_000);
  });

  it('works where crypto.randomUUID is missing, as on a plain-HTTP page', () => {
    const real = globalThis.crypto;
    const calls: number[] = [];
    vi.stubGlobal('crypto', {
      getRandomValues: (bytes: Uint8Array) => {
        calls.push(bytes.byteLength);
        return real.getRandomValues(bytes);
      },
    });
    expect('randomUUID' in globalThis.crypto).toBe(false);
    const id = randomUuid();
    expect(id).toMatch(V4);
    expect(calls).toEqual([16]);
  });
});
