// The phone remote, one click away: the pairing code and a QR code of the remote's link (the phone
// opens it and is paired), whether a phone follows this page, and what to do in every other case
// (the server pairs no one, cannot be reached, is full, or another tab holds the remote). The remote
// at a plain-HTTP address works, but a phone cannot install it or open it offline: the panel says
// what that needs.
import { useEffect, useState } from 'preact/hooks';
import { PhoneIcon } from '../../components/icons.tsx';
import { SecureAddressNote } from '../../components/SecureAddressNote.tsx';
import { usePopover } from '../../components/usePopover.ts';
import { studentsAddress } from '../../lib/app-address.ts';
import { clientConfig } from '../../lib/client-config.ts';
import {
  companionLink,
  formatPairingCode,
  phoneUrls,
  type PairingView,
  type PhonePresence,
} from '../../lib/pairing.ts';
import { pairing, retryPairing } from '../../state/focus.ts';
import { QrCode } from './QrCode.tsx';
import { useNow } from './useNow.ts';
import './phone-remote.css';

type Tone = 'ok' | 'wait' | 'trouble' | 'off';

function clockTime(ms: number): string {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/** One line that says where the remote stands, with its tone (a dot plus words, never colour alone). */
export function remoteStatus(view: PairingView): { tone: Tone; text: string } {
  switch (view.status) {
    case 'pairing':
      return { tone: 'wait', text: 'Getting a pairing code…' };
    case 'elsewhere':
      return { tone: 'off', text: 'Handled by another tab' };
    case 'unreachable':
      return { tone: 'trouble', text: 'Server not reachable' };
    case 'full':
      return { tone: 'trouble', text: 'Server busy' };
    case 'rate_limited':
      return { tone: 'trouble', text: 'Too many tries' };
    case 'refused':
      return { tone: 'trouble', text: 'Pairing refused' };
    default:
      if (view.stream === 'lost') return { tone: 'trouble', text: 'Server not reachable' };
      return presenceStatus(view.phone, view.status === 'on');
  }
}

function presenceStatus(phone: PhonePresence, paired: boolean): { tone: Tone; text: string } {
  if (phone.state === 'present') return { tone: 'ok', text: 'Phone connected' };
  if (phone.state === 'gone') return { tone: 'wait', text: `Phone left at ${clockTime(phone.since)}` };
  return { tone: 'wait', text: paired ? 'Waiting for your phone' : 'No phone yet' };
}

function StatusLine({ view }: { view: PairingView }) {
  const { tone, text } = remoteStatus(view);
  return (
    <p class={`remote-status remote-status-${tone}`}>
      <span class="remote-dot" aria-hidden="true" />
      {text}
    </p>
  );
}

/**
 * A problem, when the page asks again, and a button to ask now. `advised`: the server said how long
 * to wait (a 429's Retry-After), so the page waits that long and offers no button that would only be
 * refused again.
 */
function RetryLine({ retryAt, advised = false, children }: { retryAt: number; advised?: boolean; children: string }) {
  const now = useNow(1000);
  const seconds = Math.max(0, Math.ceil((retryAt - now.value) / 1000));
  return (
    <div class="remote-trouble">
      <p>{children}</p>
      <p class="small muted" aria-live="off">
        {seconds <= 0
          ? 'Trying again now…'
          : advised
            ? `Too many tries; try again in ${seconds} s.`
            : `Trying again in ${seconds} s.`}
      </p>
      {!advised && (
        <button type="button" class="button" onClick={retryPairing}>
          Try now
        </button>
      )}
    </div>
  );
}

/**
 * The addresses a phone can open (the students' address first), from /api/client-config; null while
 * asked, [] when none.
 */
function usePhoneUrls(enabled: boolean): { urls: string[] | null; failed: boolean } {
  const [urls, setUrls] = useState<string[] | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (!enabled || urls) return;
    clientConfig()
      .then((config) => setUrls(phoneUrls(studentsAddress(config, location.origin), config.companion_urls ?? [])))
      .catch(() => setFailed(true));
  }, [enabled, urls]);
  return { urls, failed };
}

function Connect({ code, urls, failed }: { code: string | null; urls: string[] | null; failed: boolean }) {
  if (failed)
    return (
      <p class="small">
        The server’s network address could not be read. Open this panel again when the server is reachable.
      </p>
    );
  if (urls === null) return <div class="qr qr-loading skeleton" aria-hidden="true" />;
  if (urls.length === 0) {
    return (
      <p class="small remote-hint">
        This server only listens on this computer, so a phone cannot reach it. Start it with <code>HOST=0.0.0.0</code>{' '}
        (the default) and open this panel again.
      </p>
    );
  }
  const [first, ...others] = urls as [string, ...string[]];
  const link = companionLink(first, code);
  // The QR code leads to the https address; a phone that does not trust the server's certificate yet
  // gets it from /__ca at the plain-HTTP address, which opens without one.
  const plain = new URL(first).protocol === 'https:' ? others.find((url) => url.startsWith('http:')) : undefined;
  return (
    <div class="remote-connect">
      <div class="remote-scan">
        <QrCode
          link={link}
          label={
            code
              ? `QR code: opens the remote on your phone, paired with this page (${link})`
              : `QR code: opens the remote on your phone (${link})`
          }
        />
        <p class="small">Scan it with your phone’s camera: the remote opens{code ? ', paired with this page' : ''}.</p>
      </div>
      <p class="small">
        Or open{' '}
        <a class="url-chip tabular" href={link} target="_blank" rel="noreferrer" aria-label={`${first}/companion/`}>
          {first}
          <wbr />
          /companion/
        </a>{' '}
        on your phone{code ? ' and type the code' : ''}.
      </p>
      {new URL(first).protocol === 'http:' && (
        <SecureAddressNote feature="home-screen" path="/companion/" class="small muted" />
      )}
      {plain && (
        <p class="small muted">
          A phone that warns about the certificate installs it once from{' '}
          <span class="url-chip tabular">
            {plain}
            <wbr />
            /__ca
          </span>
          .
        </p>
      )}
      {others.length > 0 && (
        <p class="small muted">
          Other addresses of this computer:{' '}
          {others.map((url) => (
            <span key={url} class="url-chip tabular">
              {url}
              <wbr />
              /companion/
            </span>
          ))}
        </p>
      )}
    </div>
  );
}

function Panel({ view }: { view: PairingView }) {
  const paired = view.status === 'on' ? view : null;
  const { urls, failed } = usePhoneUrls(view.status === 'on' || view.status === 'off');
  switch (view.status) {
    case 'pairing':
      return (
        <div class="remote-body" aria-busy="true">
          <div class="skeleton skeleton-line" />
          <div class="qr qr-loading skeleton" aria-hidden="true" />
        </div>
      );
    case 'elsewhere':
      return (
        <p class="small">
          Another studyhall tab in this browser holds the phone remote; its code is shown there. Counts from your phone
          appear here too. Close that tab to move the remote here.
        </p>
      );
    case 'unreachable':
      return (
        <RetryLine retryAt={view.retryAt}>
          The studyhall server is not answering, so no code can be shown. Your timer keeps running on this page.
        </RetryLine>
      );
    case 'full':
      return (
        <RetryLine retryAt={view.retryAt}>
          The server is pairing as many focus pages as it can. Close focus pages nobody uses any more.
        </RetryLine>
      );
    case 'rate_limited':
      return (
        <RetryLine retryAt={view.retryAt} advised>
          {view.message}
        </RetryLine>
      );
    case 'refused':
      return <RetryLine retryAt={view.retryAt}>{view.message}</RetryLine>;
    default:
      break;
  }
  return (
    <div class="remote-body">
      {view.stream === 'lost' && (
        <p class="notice notice-warning small">
          The server is not answering. Your timer keeps running here, and the phone catches up when the server is back.
        </p>
      )}
      {paired?.renewed && (
        <p class="notice notice-warning small">
          The server forgot the old code (it restarted, or this page was closed for a while). Pair your phone again with
          the new code.
        </p>
      )}
      {paired ? (
        <div class="remote-code">
          <p class="small muted" id="pairing-code-label">
            Pairing code
          </p>
          <p
            class="remote-code-value tabular"
            aria-labelledby="pairing-code-label"
            aria-describedby="pairing-code-spelled"
          >
            {formatPairingCode(paired.code)}
          </p>
          <p class="visually-hidden" id="pairing-code-spelled">
            {[...paired.code].join(' ')}
          </p>
        </div>
      ) : (
        <p class="small">
          Pairing is off on this server: any phone on this network can open the remote, see your timer and count for it.
          The server's owner turned it off, which is meant for a computer only you use.
        </p>
      )}
      <Connect code={paired?.code ?? null} urls={urls} failed={failed} />
    </div>
  );
}

export function PhoneRemote() {
  const { open, anchor, toggleProps } = usePopover('phone-remote');
  const view = pairing.value;
  const status = remoteStatus(view);
  return (
    <div class="popover-anchor" ref={anchor}>
      <button type="button" class="button button-quiet" {...toggleProps}>
        <PhoneIcon />
        Phone remote
        {status.tone === 'ok' && <span class="remote-dot remote-dot-inline" aria-hidden="true" />}
      </button>
      {/* Said once when the phone comes or goes, whether or not the panel is open. A plain live
          region, not role="status": the page's own status notices stay the first of that role. */}
      <span class="visually-hidden" aria-live="polite" data-testid="phone-presence">
        {view.status === 'on' || view.status === 'off' ? presenceStatus(view.phone, view.status === 'on').text : ''}
      </span>
      {open && (
        <div id="phone-remote" class="popover remote-panel" role="region" aria-label="Phone remote">
          <div class="remote-head">
            <p class="popover-title">Count from your phone</p>
            <StatusLine view={view} />
          </div>
          <Panel view={view} />
        </div>
      )}
    </div>
  );
}
