// The companion's address, one click away: the phone app asks for this server's URL once.
import { useEffect, useRef, useState } from 'preact/hooks';
import { PhoneIcon } from '../../components/icons.tsx';
import { clientConfig } from '../../lib/client-config.ts';
import { relayConnected } from '../../state/signals.ts';

export function PhoneRemote() {
  const [open, setOpen] = useState(false);
  const [urls, setUrls] = useState<string[] | null>(null);
  const [failed, setFailed] = useState(false);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!open || urls) return;
    clientConfig()
      .then((config) => setUrls((config as { companion_urls?: string[] }).companion_urls ?? []))
      .catch(() => setFailed(true));
  }, [open, urls]);
  useEffect(() => {
    if (!open) return;
    const close = (event: Event) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !ref.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', close);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', close);
    };
  }, [open]);
  return (
    <div class="popover-anchor" ref={ref}>
      <button type="button" class="button button-quiet" aria-expanded={open} aria-controls="phone-remote" onClick={() => setOpen(!open)}>
        <PhoneIcon />
        Phone remote
      </button>
      {open && (
        <div id="phone-remote" class="popover" role="region" aria-label="Phone remote">
          <p class="popover-title">Count from your phone</p>
          <p class="small muted">In the studyhall companion app, enter this server address. Your phone must be on the same network.</p>
          {failed && <p class="field-error">The address could not be read from the server. Try again when it is reachable.</p>}
          {!failed && urls === null && <div class="skeleton skeleton-line" />}
          {urls && urls.length === 0 && (
            <p class="small">
              This server only listens on this computer. Start it with <code>HOST=0.0.0.0</code> (the default) to reach it from a phone.
            </p>
          )}
          {urls && urls.length > 0 && (
            <ul class="stack-tight">
              {urls.map((url) => (
                <li key={url} class="url-chip tabular">{url}</li>
              ))}
            </ul>
          )}
          <p class="small muted">{relayConnected.value ? 'This page is listening for the phone.' : 'This page is reconnecting to the server.'}</p>
        </div>
      )}
    </div>
  );
}
