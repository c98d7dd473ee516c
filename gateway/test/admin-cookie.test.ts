import { describe, expect, it } from 'vitest';
import { ADMIN_COOKIE, ADMIN_COOKIE_MAX_AGE_S, adminSubjectFromCookieHeader, createAdminGate, signAdminCookie, verifyAdminCookie } from '../src/admin/admin-cookie.ts';
import { decodeAvatarDataUrl } from '../src/auth/avatar-data-url.ts';

const key = Buffer.from('a-signing-key-of-some-length-123');

describe('admin cookie', () => {
  it('verifies its own signature and returns the subject', () => {
    expect(verifyAdminCookie(key, signAdminCookie(key, 'owner'))).toBe('owner');
  });

  it('refuses another key, a tampered payload, garbage and an expired or future cookie', () => {
    const value = signAdminCookie(key, 'owner', 1_000_000);
    const [payload, signature] = value.split('.');
    const otherPayload = Buffer.from(JSON.stringify({ sub: 'intruder', iat: 1_000_000 })).toString('base64url');
    expect(verifyAdminCookie(Buffer.from('another-key-another-key-another!'), value, 1_000_000)).toBeUndefined();
    expect(verifyAdminCookie(key, `${otherPayload}.${signature}`, 1_000_000)).toBeUndefined();
    expect(verifyAdminCookie(key, `${payload}.${signature}.extra`, 1_000_000)).toBeUndefined();
    expect(verifyAdminCookie(key, 'garbage', 1_000_000)).toBeUndefined();
    expect(verifyAdminCookie(key, undefined)).toBeUndefined();
    expect(verifyAdminCookie(key, value, 1_000_000 + ADMIN_COOKIE_MAX_AGE_S)).toBe('owner');
    expect(verifyAdminCookie(key, value, 1_000_000 + ADMIN_COOKIE_MAX_AGE_S + 1)).toBeUndefined();
    expect(verifyAdminCookie(key, value, 1_000_000 - 120)).toBeUndefined();
  });

  it('counts only while admin mode is ready (enabled and a service-role key)', () => {
    const header = `theme=dark; ${ADMIN_COOKIE}=${signAdminCookie(key, 'owner')}`;
    const ready = createAdminGate({ enabled: true, secret: key.toString(), serviceRoleKey: 'service' });
    expect(adminSubjectFromCookieHeader(ready, header)).toBe('owner');
    expect(adminSubjectFromCookieHeader(createAdminGate({ enabled: false, secret: key.toString(), serviceRoleKey: 'service' }), header)).toBeUndefined();
    expect(adminSubjectFromCookieHeader(createAdminGate({ enabled: true, secret: key.toString(), serviceRoleKey: undefined }), header)).toBeUndefined();
  });

  it('signs with a random key per boot when ADMIN_SECRET is unset', () => {
    const first = createAdminGate({ enabled: true, secret: undefined, serviceRoleKey: 'service' });
    const second = createAdminGate({ enabled: true, secret: undefined, serviceRoleKey: 'service' });
    expect(first.signingKey).toHaveLength(32);
    expect(first.signingKey.equals(second.signingKey)).toBe(false);
  });
});

describe('avatar data URLs', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  it('decodes a PNG and names its extension', () => {
    expect(decodeAvatarDataUrl(`data:image/png;base64,${png.toString('base64')}`)).toEqual({ contentType: 'image/png', extension: 'png', bytes: png });
  });

  it('refuses a non-base64 data URL, SVG (scriptable) and an empty image', () => {
    expect(() => decodeAvatarDataUrl('data:image/png,rawtext')).toThrow(/base64 data URL/);
    expect(() => decodeAvatarDataUrl(`data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`)).toThrow(/PNG, JPEG, GIF or WebP/);
    expect(() => decodeAvatarDataUrl('data:image/png;base64,')).toThrow(/empty/);
  });
});
