// @vitest-environment happy-dom
// Following an e-mail link: the session in the fragment signs the student in and leaves the
// address at once, a recovery asks for a new password (also after a reload, until it is saved),
// the first of an e-mail change's two links says the other is needed, and a failed link says why
// without signing anyone in.
import { beforeEach, describe, expect, it, vi } from 'vitest';

const adoptLinkSession = vi.hoisted(() => vi.fn(() => Promise.resolve()));
vi.mock('./account.ts', () => ({ adoptLinkSession }));

beforeEach(() => {
  vi.resetModules();
  sessionStorage.clear();
  adoptLinkSession.mockClear();
});

describe('followAuthLink', () => {
  it("adopts a recovery link's session, removes the tokens from the address and keeps asking after a reload", async () => {
    history.replaceState(null, '', '/reset-password#access_token=a.b.c&refresh_token=r1&type=recovery');
    const link = await import('./auth-link.ts');
    await link.followAuthLink();
    expect(adoptLinkSession).toHaveBeenCalledWith({
      kind: 'session',
      accessToken: 'a.b.c',
      refreshToken: 'r1',
      type: 'recovery',
    });
    expect(location.hash).toBe('');
    expect(location.pathname).toBe('/reset-password');
    expect(link.authLinkOutcome.value).toEqual({ kind: 'recovery' });

    vi.resetModules();
    const reloaded = await import('./auth-link.ts');
    expect(reloaded.authLinkOutcome.value).toEqual({ kind: 'recovery' });
    reloaded.dismissAuthLink();
    vi.resetModules();
    expect((await import('./auth-link.ts')).authLinkOutcome.value).toBeNull();
  });

  it('says why a link failed and signs nobody in', async () => {
    history.replaceState(null, '', '/reset-password#error=access_denied&error_code=otp_expired&error_description=x');
    const link = await import('./auth-link.ts');
    await link.followAuthLink();
    expect(adoptLinkSession).not.toHaveBeenCalled();
    expect(link.authLinkOutcome.value).toEqual({
      kind: 'failed',
      problem: 'This link has expired or was already used. Links work once, for one hour.',
    });
    expect(location.hash).toBe('');
  });

  it("says the first of an e-mail change's two confirmations was accepted, and signs nobody in", async () => {
    history.replaceState(
      null,
      '',
      '/settings#message=Confirmation+link+accepted.+Please+proceed+to+confirm+link+sent+to+the+other+email',
    );
    const link = await import('./auth-link.ts');
    await link.followAuthLink();
    expect(adoptLinkSession).not.toHaveBeenCalled();
    expect(link.authLinkOutcome.value).toEqual({ kind: 'email-half-confirmed' });
    expect(location.hash).toBe('');
    expect(location.pathname).toBe('/settings');
  });

  it('does nothing on an ordinary address', async () => {
    history.replaceState(null, '', '/focus');
    const link = await import('./auth-link.ts');
    await link.followAuthLink();
    expect(link.authLinkOutcome.value).toBeNull();
    expect(adoptLinkSession).not.toHaveBeenCalled();
  });
});
