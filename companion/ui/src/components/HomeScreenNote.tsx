// In a phone browser at a plain-HTTP address the remote works, but the browser will not install it
// on the home screen or open it offline: one line in Settings says what that needs, in the words
// the web app uses too (contracts/secure-address.ts), with the server's https address when it has one.
import { useEffect, useState } from 'preact/hooks';
import { secureAddressAdvice } from '#contracts/secure-address.ts';
import type { Companion } from '../state/companion.ts';

export function HomeScreenNote({ companion }: { companion: Companion }) {
  const ask = companion.platform.secureAddress;
  // undefined while the server is asked, so the sentence does not change once shown.
  const [httpsUrl, setHttpsUrl] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void ask?.().then((url) => live && setHttpsUrl(url));
    return () => {
      live = false;
    };
  }, [ask]);
  if (!ask || httpsUrl === undefined) return null;
  const advice = secureAddressAdvice('home-screen', httpsUrl, '/companion/');
  return (
    <div class="field">
      <span class="field-label">On your home screen</span>
      <p class="field-help">
        {advice.before}
        {advice.link && (
          <a href={advice.link.href} class="field-link">
            {advice.link.text}
          </a>
        )}
        {advice.after}
      </p>
    </div>
  );
}
