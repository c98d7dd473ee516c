// The one sentence a screen shows where it offers something only a secure context has, on a page
// opened at a plain-HTTP address: a link to the server's https address when it has one, else that
// it offers none yet (the words: contracts/secure-address.ts, shared with the phone remote).
import { useEffect, useState } from 'preact/hooks';
import { secureAddressAdvice, type SecureFeature } from '#contracts/secure-address.ts';
import { httpsAppUrl } from '../lib/secure-page.ts';

export function SecureAddressNote({
  feature,
  path,
  class: className = 'small',
  role,
}: {
  feature: SecureFeature;
  /** Where on the https address the same thing is; this page's path by default. */
  path?: string;
  class?: string;
  role?: 'status';
}) {
  // undefined while the client config is read (it is usually remembered already), so the
  // sentence does not change its mind once shown.
  const [httpsUrl, setHttpsUrl] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    void httpsAppUrl().then((url) => live && setHttpsUrl(url));
    return () => {
      live = false;
    };
  }, []);
  if (httpsUrl === undefined) return null;
  const advice = secureAddressAdvice(feature, httpsUrl, path ?? location.pathname);
  return (
    <p class={className} role={role}>
      {advice.before}
      {advice.link && (
        <a href={advice.link.href} class="secure-link">
          {advice.link.text}
        </a>
      )}
      {advice.after}
    </p>
  );
}
