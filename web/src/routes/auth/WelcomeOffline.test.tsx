// @vitest-environment happy-dom
// The welcome screen promises offline use only where it holds. On a page that is not a secure
// context (the server's plain-HTTP LAN address) there is no service worker, so it says what offline
// use needs instead: a link to the server's https address, or that the server offers none yet.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';

const PROMISE = 'Everything also works offline on this device.';

/** A fresh WelcomePage (and client config, which is read once per page) on a page of that kind. */
async function welcome(secure: boolean, httpsUrl: string | null) {
  vi.resetModules();
  Object.defineProperty(window, 'isSecureContext', { value: secure, configurable: true });
  vi.stubGlobal(
    'fetch',
    vi.fn(async () =>
      Response.json({ backend_url: '/__backend', anon_key: 'anon', companion_urls: [], https_url: httpsUrl }),
    ),
  );
  const { default: WelcomePage } = await import('./WelcomePage.tsx');
  render(<WelcomePage initialMode="login" />);
}

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  Reflect.deleteProperty(window, 'isSecureContext');
  localStorage.clear();
});

describe('the welcome screen and offline use', () => {
  it('promises offline use on a secure page, with no note', async () => {
    await welcome(true, null);
    expect(document.body.textContent).toContain(PROMISE);
    expect(document.body.textContent).not.toContain('secure');
  });

  it('does not promise it on a plain-HTTP page, and says the server offers no secure address yet', async () => {
    await welcome(false, null);
    await screen.findByText(
      'Offline use needs the secure (https) address, which this server does not offer yet — ask whoever runs it.',
    );
    expect(document.body.textContent).not.toContain('works offline');
  });

  it('links to the https address of a server that has one, at the same path', async () => {
    await welcome(false, 'https://192.168.1.20:3443');
    const link = await screen.findByRole('link', { name: `https://192.168.1.20:3443${location.pathname}` });
    expect(link.getAttribute('href')).toBe(`https://192.168.1.20:3443${location.pathname}`);
    expect(link.parentElement?.textContent).toBe(
      `Open https://192.168.1.20:3443${location.pathname} for offline use — your teacher installs the certificate once.`,
    );
    expect(document.body.textContent).not.toContain('works offline');
  });
});
