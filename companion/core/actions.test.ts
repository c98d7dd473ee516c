import { describe, expect, it } from 'vitest';
import { actionBody, describeDelivery, PIP_ACTIONS } from './actions.ts';
import { formatPairingCode, normalizePairingCode, pairingCodeFromHash } from './pairing-code.ts';

describe('action bodies', () => {
  it('sends the four counters as a bare action', () => {
    for (const action of PIP_ACTIONS.filter((name) => name !== 'target')) {
      expect(actionBody(action)).toEqual({ ok: true, body: { action } });
    }
  });

  it('sends target with a positive whole number and refuses anything else', () => {
    expect(actionBody('target', 25)).toEqual({ ok: true, body: { action: 'target', target: 25 } });
    for (const bad of [undefined, 0, -3, 2.5, 10_001, Number.NaN]) expect(actionBody('target', bad).ok).toBe(false);
  });

  it('says what happened from the delivered count', () => {
    expect(describeDelivery(0)).toMatch(/no focus page open/i);
    expect(describeDelivery(1)).toBe('Sent to the focus page.');
    expect(describeDelivery(3)).toBe('Sent to 3 focus pages.');
  });
});

describe('pairing codes', () => {
  it('normalises what a student types and refuses ambiguous or wrong-length codes', () => {
    expect(normalizePairingCode(' k7m 2qd ')).toBe('K7M2QD');
    expect(normalizePairingCode('K7M-2QD')).toBe('K7M2QD');
    expect(normalizePairingCode('K7M2Q')).toBeUndefined();
    expect(normalizePairingCode('K7M2QDX')).toBeUndefined();
    expect(normalizePairingCode('K7M2Q0')).toBeUndefined();
    expect(formatPairingCode('K7M2QD')).toBe('K7M 2QD');
  });

  it('reads the code from the link of the focus page QR code', () => {
    expect(pairingCodeFromHash('#code=k7m2qd')).toBe('K7M2QD');
    expect(pairingCodeFromHash('#other=1')).toBeUndefined();
    expect(pairingCodeFromHash('')).toBeUndefined();
  });
});
