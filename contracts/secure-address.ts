// What a page says where it offers something that only a secure context has (https, or the
// computer's own localhost), when it was opened at the server's plain-HTTP LAN address: one
// sentence that tells the student what to do, the same in the web app and the phone remote.
// With the server's https address (`https_url` of GET /api/client-config) it links there; without
// one it says the server does not offer it. Never a browser-settings hint: on plain HTTP no
// setting brings these back.

export type SecureFeature = 'offline' | 'notifications' | 'alerts' | 'pop-out' | 'home-screen';

const WORDS: Record<SecureFeature, { needs: string; purpose: string }> = {
  offline: { needs: 'Offline use needs', purpose: 'for offline use' },
  notifications: { needs: 'Notifications need', purpose: 'for notifications' },
  alerts: { needs: 'Alerts on this device need', purpose: 'for alerts on this device' },
  'pop-out': { needs: 'The Pop-out window needs', purpose: 'for the Pop-out window' },
  'home-screen': {
    needs: 'Adding the remote to your home screen needs',
    purpose: 'to add the remote to your home screen',
  },
};

/**
 * The sentence in three parts, so a page can draw the address as a link: `before`, then `link`
 * (absent without an https address), then `after`. `text` is the whole sentence.
 */
export interface SecureAddressAdvice {
  before: string;
  link: { href: string; text: string } | null;
  after: string;
  text: string;
}

/**
 * `httpsUrl`: the server's https address, or null; `path`: where on it the same thing is
 * (`/companion/` for the phone remote, the page's own path for the app).
 */
export function secureAddressAdvice(feature: SecureFeature, httpsUrl: string | null, path = '/'): SecureAddressAdvice {
  const words = WORDS[feature];
  if (!httpsUrl) {
    const text = `${words.needs} the secure (https) address, which this server does not offer yet — ask whoever runs it.`;
    return { before: text, link: null, after: '', text };
  }
  const href = `${httpsUrl.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  const after = ` ${words.purpose} — your teacher installs the certificate once.`;
  return { before: 'Open ', link: { href, text: href }, after, text: `Open ${href}${after}` };
}
