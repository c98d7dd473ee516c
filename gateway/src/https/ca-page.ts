// The /__ca page: a plain server-rendered page in the app's look (contracts/design-tokens.css)
// that hands out the local CA's certificate, its fingerprint, a QR code that opens this page on a
// phone, and the steps to install it on each kind of device. Its one script checks whether this
// browser already trusts the certificate (a fetch of the HTTPS address fails when it does not) and
// then offers the HTTPS address and sets the cookie that moves this browser's later plain-HTTP
// visits there (https-redirect.ts). Without the script the page is complete, less that check.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderSVG } from 'uqr';
import { repoRoot } from '#db/paths.ts';
import { html, raw, type SafeHtml } from '../admin/html.ts';
import { TRUST_COOKIE, TRUST_COOKIE_VALUE } from './https-redirect.ts';
import type { HttpsMode } from './https-service.ts';

export const CA_DER_PATH = '/__ca/studyhall-ca.crt';
export const CA_PEM_PATH = '/__ca/studyhall-ca.pem';
export const CA_PROBE_PATH = '/__ca/probe';

function readTokens(): string {
  try {
    return readFileSync(path.join(repoRoot, 'contracts', 'design-tokens.css'), 'utf8');
  } catch {
    return '';
  }
}
const TOKENS = readTokens();

const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:var(--color-bg,#f6f7f9);color:var(--color-text,#1b1e24);font:var(--text-16,1rem)/var(--leading-text,1.5) var(--font-sans,system-ui,sans-serif)}
main{max-width:var(--content-max,60rem);margin:0 auto;padding:var(--space-6,1.5rem) var(--space-4,1rem) var(--space-12,3rem)}
h1{font-size:var(--text-24,1.5rem);line-height:var(--leading-tight,1.2);margin:0 0 var(--space-3,.75rem)}
h2{font-size:var(--text-20,1.25rem);margin:var(--space-8,2rem) 0 var(--space-3,.75rem)}
h3{font-size:var(--text-16,1rem);margin:0}
p,li{max-width:70ch}
a{color:var(--color-accent,#3451c7)}
:focus-visible{outline:var(--focus-ring-width,3px) solid var(--color-focus,#3451c7);outline-offset:2px}
.card{background:var(--color-surface,#fff);border:var(--border-width,1px) solid var(--color-border,#d5d9e0);border-radius:var(--radius-2,.625rem);padding:var(--space-4,1rem) var(--space-5,1.25rem);margin:0 0 var(--space-4,1rem)}
.get{display:flex;flex-wrap:wrap;gap:var(--space-6,1.5rem);align-items:flex-start}
.get .qr{width:11rem;height:11rem;flex:none;background:#fff;border-radius:var(--radius-1,.375rem);padding:var(--space-2,.5rem)}
.get .qr svg{width:100%;height:100%;display:block}
.button{display:inline-flex;align-items:center;min-height:var(--touch-target,2.75rem);padding:0 var(--space-4,1rem);border-radius:var(--radius-1,.375rem);background:var(--color-accent,#3451c7);color:var(--color-on-accent,#fff);font-weight:var(--weight-medium,500);text-decoration:none}
.button:hover{background:var(--color-accent-hover,#2a43a8)}
.fingerprint{font-family:var(--font-mono,monospace);font-size:var(--text-14,.875rem);overflow-wrap:anywhere}
.muted{color:var(--color-text-muted,#525966)}
.status{border-left:4px solid var(--color-border-strong,#8a919c)}
.status[data-state=trusted]{border-left-color:var(--color-success,#1b6e35)}
.status[data-state=untrusted]{border-left-color:var(--color-warning,#7f5200)}
details{background:var(--color-surface,#fff);border:var(--border-width,1px) solid var(--color-border,#d5d9e0);border-radius:var(--radius-1,.375rem);margin:0 0 var(--space-2,.5rem);padding:0 var(--space-4,1rem)}
summary{cursor:pointer;min-height:var(--touch-target,2.75rem);display:flex;align-items:center;font-weight:var(--weight-medium,500)}
details ol{padding-left:var(--space-6,1.5rem)}
code{font-family:var(--font-mono,monospace);font-size:var(--text-14,.875rem);overflow-wrap:anywhere}
`;

// Checks the HTTPS address every 5 s until this browser trusts it; then offers it and remembers.
const TRUST_SCRIPT = `
(() => {
  const status = document.getElementById('trust-status');
  const target = status && status.dataset.httpsUrl;
  if (!target) return;
  const text = status.querySelector('p');
  const check = () => fetch(target + '${CA_PROBE_PATH}', { mode: 'no-cors', cache: 'no-store' }).then(
    () => {
      document.cookie = '${TRUST_COOKIE}=${TRUST_COOKIE_VALUE}; Max-Age=2592000; Path=/; SameSite=Lax';
      status.dataset.state = 'trusted';
      text.textContent = 'This browser trusts studyhall. From now on it opens the secure address by itself.';
      const link = document.getElementById('open-secure');
      link.hidden = false;
    },
    () => {
      status.dataset.state = 'untrusted';
      text.textContent = 'This browser does not trust studyhall yet. Install the certificate (below); this page checks again every few seconds.';
      setTimeout(check, 5000);
    },
  );
  check();
})();
`;

export interface CaPageFacts {
  mode: HttpsMode;
  offReason?: string | undefined;
  fingerprint?: string | undefined;
  /** The HTTPS address for the host this page was opened at. */
  httpsUrl?: string | undefined;
  /** This page as a phone on the network opens it (the QR code). */
  pageUrlForPhones?: string | undefined;
  /** The page itself came over HTTPS. */
  secure: boolean;
  /** The names the CA may vouch for, when it is name-constrained. */
  scope?: { dns: string[]; networks: string[] } | undefined;
  nonce: string;
}

const STEPS: { platform: string; steps: SafeHtml[] }[] = [
  {
    platform: 'Android (phones and tablets)',
    steps: [
      html`Tap <strong>Download the certificate</strong>. It is saved as <code>studyhall-ca.crt</code>.`,
      html`Open <strong>Settings › Security &amp; privacy › More security settings › Encryption &amp; credentials › Install a certificate › CA certificate</strong> (older phones: <strong>Settings › Security › Install from storage</strong>; the search in Settings finds “CA certificate”).`,
      html`Tap <strong>Install anyway</strong> and pick <code>studyhall-ca.crt</code> from Downloads. Android asks for a screen lock if the phone has none.`,
      html`Chrome and the studyhall remote app trust it at once. Firefox for Android: Settings › About Firefox, tap the logo five times, then turn on “Use third party CA certificates” in Secret Settings.`,
    ],
  },
  {
    platform: 'iPhone and iPad',
    steps: [
      html`Open this page in <strong>Safari</strong>, tap <strong>Download the certificate</strong> and allow the download (“Profile Downloaded”).`,
      html`Open <strong>Settings › General › VPN &amp; Device Management</strong>, tap <strong>studyhall local CA</strong>, then <strong>Install</strong> (three times) and enter the passcode.`,
      html`Open <strong>Settings › General › About › Certificate Trust Settings</strong> and turn on full trust for <strong>studyhall local CA</strong>. Without this last step Safari still warns.`,
    ],
  },
  {
    platform: 'Chromebook',
    steps: [
      html`Download the certificate.`,
      html`Open <code>chrome://certificate-manager</code> (older ChromeOS: Settings › Privacy and security › Security › Manage certificates › Authorities).`,
      html`Choose <strong>Import</strong>, pick <code>studyhall-ca.crt</code>, and tick <strong>Trust this certificate for identifying websites</strong>.`,
    ],
  },
  {
    platform: 'Windows',
    steps: [
      html`Download the certificate and open <code>studyhall-ca.crt</code>; compare the SHA-256 fingerprint under Details with the one on this page.`,
      html`Choose <strong>Install Certificate › Current User › Place all certificates in the following store › Browse › Trusted Root Certification Authorities</strong>, then <strong>Finish</strong> and <strong>Yes</strong>.`,
      html`Edge, Chrome and Firefox (which reads the Windows store) trust it after a restart of the browser.`,
    ],
  },
  {
    platform: 'macOS',
    steps: [
      html`Download the certificate and open <code>studyhall-ca.crt</code>: Keychain Access adds it to the login keychain.`,
      html`In Keychain Access, open <strong>studyhall local CA</strong>, unfold <strong>Trust</strong> and set <strong>When using this certificate</strong> to <strong>Always Trust</strong>; close the window and enter your password.`,
      html`Safari and Chrome trust it at once. Firefox: Settings › Privacy &amp; Security › Certificates › View Certificates › Authorities › Import.`,
    ],
  },
  {
    platform: 'Linux',
    steps: [
      html`Download the <a href="${CA_PEM_PATH}">PEM form</a> (<code>studyhall-ca.pem</code>).`,
      html`For the whole system (Debian, Ubuntu): <code>sudo cp studyhall-ca.pem /usr/local/share/ca-certificates/studyhall-ca.crt &amp;&amp; sudo update-ca-certificates</code>.`,
      html`Chrome and Chromium keep their own list: <code>chrome://certificate-manager</code> › Import, or <code>certutil -d sql:$HOME/.pki/nssdb -A -t "C,," -n "studyhall local CA" -i studyhall-ca.pem</code> (package libnss3-tools). Firefox: Settings › Privacy &amp; Security › Certificates › View Certificates › Authorities › Import.`,
    ],
  },
];

function statusCard(facts: CaPageFacts): SafeHtml {
  if (facts.secure) {
    return html`<div class="card status" data-state="trusted" role="status"><p>You opened this page at the secure address: this browser trusts studyhall.</p></div>`;
  }
  return html`<div class="card status" id="trust-status" role="status" aria-live="polite" data-https-url="${facts.httpsUrl ?? ''}">
<p>${facts.httpsUrl ? 'Checking whether this browser trusts studyhall…' : 'Install the certificate (below), then open the secure address the server shows.'}</p>
${facts.httpsUrl ? html`<p><a class="button" id="open-secure" href="${facts.httpsUrl}/" hidden>Open ${facts.httpsUrl}</a></p>` : ''}
</div>`;
}

function body(facts: CaPageFacts): SafeHtml {
  if (facts.mode === 'off') {
    return html`<h1>studyhall over HTTPS</h1>
<div class="card"><p>This server does not serve HTTPS: ${facts.offReason ?? 'HTTPS is off'}. There is nothing to install.</p>
<p class="muted">The app works at its plain-HTTP address, without offline use, notifications, push alerts or installing it.</p></div>`;
  }
  if (facts.mode === 'own-certificate') {
    return html`<h1>studyhall over HTTPS</h1>
${statusCard(facts)}
<div class="card"><p>This server uses a certificate of its own (set by whoever runs it), not a studyhall certificate authority: there is nothing to install here. If your browser warns at the secure address, ask whoever runs the server.</p></div>`;
  }
  return html`<h1>Trust studyhall on this device</h1>
<p>Install studyhall’s certificate once on each device, and the secure address opens without a warning. Only then can the app work offline, show notifications, send start alerts and be installed.</p>
${statusCard(facts)}
<div class="card get">
<div>
<p><a class="button" href="${CA_DER_PATH}" download="studyhall-ca.crt">Download the certificate</a></p>
<p>SHA-256 fingerprint (your device shows it before installing; they must be the same):</p>
<p class="fingerprint" id="fingerprint">${facts.fingerprint ?? ''}</p>
<p class="muted">Also as <a href="${CA_PEM_PATH}">PEM</a>.</p>
</div>
${
  facts.pageUrlForPhones
    ? html`<figure class="qr-figure"><div class="qr" role="img" aria-label="QR code of ${facts.pageUrlForPhones}">${raw(renderSVG(facts.pageUrlForPhones))}</div>
<figcaption class="muted">On a phone: scan to open this page<br><code>${facts.pageUrlForPhones}</code></figcaption></figure>`
    : ''
}
</div>
<h2>Install it</h2>
${STEPS.map(
  ({ platform, steps }) =>
    html`<details><summary><h3>${platform}</h3></summary><ol>${steps.map((step) => html`<li>${step}</li>`)}</ol></details>`,
)}
<h2>What you trust</h2>
<p>The certificate lets this studyhall server prove that it is the server at the address you typed. ${
    facts.scope
      ? html`It can vouch only for local names and addresses (${facts.scope.dns.map((name, index) => html`${index ? ', ' : ''}<code>${name === 'local' ? '*.local' : name}</code>`)}, and the private networks of a school or home), never for a site on the internet.`
      : 'It could vouch for any address.'
  } Its key never leaves the server. You can remove it at any time where you installed it.</p>`;
}

export function renderCaPage(facts: CaPageFacts): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Trust studyhall on this device</title>
<style nonce="${facts.nonce}">${raw(TOKENS)}${raw(STYLE)}</style>
</head>
<body>
<main id="main">
${body(facts)}
</main>
${facts.mode !== 'off' && !facts.secure && facts.httpsUrl ? html`<script nonce="${facts.nonce}">${raw(TRUST_SCRIPT)}</script>` : ''}
</body>
</html>
`.text;
}
