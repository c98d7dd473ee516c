import { Signer } from '@fastify/cookie';
import { describe, expect, it } from 'vitest';
import {
  ADMIN_COOKIE,
  ADMIN_COOKIE_MAX_AGE_S,
  adminCookiePayload,
  adminSessionFromCookieHeader,
  createAdminGate,
  readAdminCookie,
  signAdminCookie,
} from '../src/admin/admin-cookie.ts';
import { decodeAvatarDataUrl } from '../src/auth/avatar-data-url.ts';

const secret = 'a-signing-key-of-some-length-123';
const gate = createAdminGate({ enabled: true, secret, serviceRoleKey: 'service' });

describe('admin cookie', () => {
  it("is @fastify/cookie's signature over the subject and issue time", async () => {
    const value = signAdminCookie(gate, 'owner', 1_000_000);
    expect(value).toBe(new Signer(secret, 'sha256').sign(adminCookiePayload('owner', 1_000_000)));
    expect(await readAdminCookie(gate, value, 1_000_000)).toEqual({
      subject: 'owner',
      issuedAtS: 1_000_000,
      expiresAtS: 1_000_000 + ADMIN_COOKIE_MAX_AGE_S,
    });
  });

  it('refuses another key, a tampered payload, garbage and an expired or future cookie', async () => {
    const value = signAdminCookie(gate, 'owner', 1_000_000);
    const signature = value.slice(value.lastIndexOf('.') + 1);
    const otherGate = createAdminGate({
      enabled: true,
      secret: 'another-key-another-key-another!',
      serviceRoleKey: 'service',
    });
    expect(await readAdminCookie(otherGate, value, 1_000_000)).toBeUndefined();
    expect(
      await readAdminCookie(gate, `${adminCookiePayload('intruder', 1_000_000)}.${signature}`, 1_000_000),
    ).toBeUndefined();
    expect(await readAdminCookie(gate, `${value}.extra`, 1_000_000)).toBeUndefined();
    expect(await readAdminCookie(gate, 'garbage', 1_000_000)).toBeUndefined();
    expect(await readAdminCookie(gate, undefined)).toBeUndefined();
    expect((await readAdminCookie(gate, value, 1_000_000 + ADMIN_COOKIE_MAX_AGE_S))?.subject).toBe('owner');
    expect(await readAdminCookie(gate, value, 1_000_000 + ADMIN_COOKIE_MAX_AGE_S + 1)).toBeUndefined();
    expect(await readAdminCookie(gate, value, 1_000_000 - 120)).toBeUndefined();
  });

  it('counts only while admin mode is ready (enabled and a service-role key)', async () => {
    const header = `theme=dark; ${ADMIN_COOKIE}=${encodeURIComponent(signAdminCookie(gate, 'owner'))}`;
    expect((await adminSessionFromCookieHeader(gate, header))?.subject).toBe('owner');
    expect(
      await adminSessionFromCookieHeader(
        createAdminGate({ enabled: false, secret, serviceRoleKey: 'service' }),
        header,
      ),
    ).toBeUndefined();
    expect(
      await adminSessionFromCookieHeader(createAdminGate({ enabled: true, secret, serviceRoleKey: undefined }), header),
    ).toBeUndefined();
  });

  it("signs with a random key per boot when ADMIN_SECRET is unset, so an earlier boot's cookie is refused", async () => {
    const first = createAdminGate({ enabled: true, secret: undefined, serviceRoleKey: 'service' });
    const second = createAdminGate({ enabled: true, secret: undefined, serviceRoleKey: 'service' });
    expect(first.keySource).toBe('boot');
    const value = signAdminCookie(first, 'owner');
    expect((await readAdminCookie(first, value))?.subject).toBe('owner');
    expect(await readAdminCookie(second, value)).toBeUndefined();
  });
});

describe('avatar data URLs', () => {
  const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
  it('decodes a PNG and names its extension', () => {
    expect(decodeAvatarDataUrl(`data:image/png;base64,${png.toString('base64')}`)).toEqual({
      contentType: 'image/png',
      extension: 'png',
      bytes: png,
    });
  });

  it('refuses a non-base64 data URL, SVG (scriptable) and an empty image', () => {
    expect(() => decodeAvatarDataUrl('data:image/png,rawtext')).toThrow(/base64 data URL/);
    expect(() => decodeAvatarDataUrl(`data:image/svg+xml;base64,${Buffer.from('<svg/>').toString('base64')}`)).toThrow(
      /PNG, JPEG, GIF or WebP/,
    );
    expect(() => decodeAvatarDataUrl('data:image/png;base64,')).toThrow(/empty/);
  });
});
