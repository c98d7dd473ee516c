// The frame of every admin page: a skip link, the navigation (current page marked), the page, and
// a footer naming the session. Semantic HTML first: without the style block it is still a page
// with a list of links, headings, tables and forms. The style block and the one script (keyboard
// shortcuts: g then a letter) carry the response's nonce; nothing else inline may run.
import type { AdminSession } from './admin-cookie.ts';
import { html, raw, type SafeHtml } from './html.ts';

export interface NavItem {
  href: string;
  label: string;
  /** The letter after `g` that opens it. */
  key: string;
}

export const NAV: NavItem[] = [
  { href: '/__admin/verify', label: 'Verify', key: 'v' },
  { href: '/__admin/patch', label: 'Patch', key: 'p' },
  { href: '/__admin/sync', label: 'Sync', key: 's' },
  { href: '/__admin/storage', label: 'Storage', key: 'o' },
  { href: '/__admin/users', label: 'Users', key: 'u' },
  { href: '/__admin/reports', label: 'Reports', key: 't' },
  { href: '/__admin/audit', label: 'Audit log', key: 'a' },
  { href: '/__admin/roles', label: 'Roles', key: 'r' },
  { href: '/__admin/sessions', label: 'Sessions', key: 'e' },
  { href: '/__admin/outbox', label: 'Outbox', key: 'm' },
  { href: '/__admin/browser-proof', label: 'Browser proof', key: 'b' },
];

// Tokens first, components use only them. Contrast: every text colour is at least 4.5:1 on its
// background in both themes.
const STYLE = `
:root{--bg:#fff;--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--subtle:#f6f8fa;--accent:#0969da;--accent-fg:#fff;
--ok:#1a7f37;--bad:#cf222e;--warn:#9a6700;--bad-bg:#ffebe9;--ok-bg:#dafbe1;--focus:#0969da;
--s1:4px;--s2:8px;--s3:12px;--s4:16px;--s6:24px;--t12:12px;--t14:14px;--t16:16px;--t20:20px;--radius:6px;
--mono:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,monospace}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--subtle:#161b22;
--accent:#4493f8;--accent-fg:#0d1117;--ok:#3fb950;--bad:#ff7b72;--warn:#d29922;--bad-bg:#3c1618;--ok-bg:#12261e;--focus:#4493f8}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:var(--t14)/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:var(--s2);top:var(--s2);background:var(--bg);padding:var(--s2);z-index:2}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:var(--s2) var(--s4);padding:var(--s2) var(--s4);border-bottom:1px solid var(--line);background:var(--subtle)}
header.top .brand{font-weight:600;white-space:nowrap}
header.top nav ul{display:flex;flex-wrap:wrap;gap:var(--s1);list-style:none;margin:0;padding:0}
header.top nav a{display:inline-block;padding:var(--s1) var(--s2);border-radius:var(--radius);color:var(--fg);text-decoration:none}
header.top nav a:hover{background:var(--line)}
header.top nav a[aria-current=page]{background:var(--bg);box-shadow:inset 0 -2px 0 var(--accent);font-weight:600}
header.top .session{margin-left:auto;display:flex;align-items:center;gap:var(--s2);color:var(--muted);font-size:var(--t12)}
main{max-width:1200px;margin:0 auto;padding:var(--s4)}
h1{font-size:var(--t20);margin:0 0 var(--s2)}h2{font-size:var(--t16);margin:var(--s6) 0 var(--s2)}
p{margin:0 0 var(--s3);max-width:75ch}.muted{color:var(--muted)}
.scroll{overflow-x:auto;margin:0 0 var(--s4)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;vertical-align:top;padding:var(--s1) var(--s2);border-bottom:1px solid var(--line)}
th{font-size:var(--t12);color:var(--muted);font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}
tr.row-bad td{background:var(--bad-bg)}
.status-ok{color:var(--ok);font-weight:600;white-space:nowrap}.status-bad{color:var(--bad);font-weight:600;white-space:nowrap}
code,pre,textarea,.mono{font-family:var(--mono);font-size:var(--t12)}
td code{overflow-wrap:anywhere}td code.id{white-space:nowrap;overflow-wrap:normal}
pre{background:var(--subtle);border:1px solid var(--line);border-radius:var(--radius);padding:var(--s2);overflow:auto;max-height:24em;white-space:pre-wrap;word-break:break-word}
details{margin:0 0 var(--s2)}summary{cursor:pointer;padding:var(--s1) 0}
.summary-line{display:flex;flex-wrap:wrap;gap:var(--s2) var(--s4);align-items:baseline}
.banner{border:1px solid var(--line);border-left:4px solid var(--accent);border-radius:var(--radius);padding:var(--s2) var(--s3);margin:0 0 var(--s4)}
.banner-bad{border-left-color:var(--bad)}.banner-ok{border-left-color:var(--ok)}
form.stack{display:grid;gap:var(--s3);max-width:40rem;margin:0 0 var(--s4)}
form.inline{display:inline}
label{display:grid;gap:var(--s1);font-weight:600}label.check{display:flex;gap:var(--s2);align-items:flex-start;font-weight:400}
label .hint{font-weight:400;color:var(--muted);font-size:var(--t12)}
input[type=text],input[type=password],input[type=email],input[type=search],select,textarea{font:inherit;font-weight:400;color:var(--fg);background:var(--bg);border:1px solid var(--line);border-radius:var(--radius);padding:var(--s1) var(--s2);min-height:32px;width:100%}
textarea{min-height:8em;font-family:var(--mono);font-size:var(--t12)}
input[type=checkbox]{width:16px;height:16px;margin-top:2px}
fieldset{display:grid;gap:var(--s2);border:1px solid var(--line);border-radius:var(--radius);padding:var(--s3);margin:0}
fieldset label:not(.check){margin-left:calc(16px + var(--s2))}legend{font-weight:600;padding:0 var(--s1)}
button,.button{font:inherit;display:inline-flex;align-items:center;gap:var(--s1);min-height:32px;padding:var(--s1) var(--s3);border-radius:var(--radius);border:1px solid var(--line);background:var(--subtle);color:var(--fg);cursor:pointer;text-decoration:none}
button:hover,.button:hover{border-color:var(--muted)}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--accent-fg)}
button.danger{background:var(--bg);border-color:var(--bad);color:var(--bad)}
button.link{border:0;background:none;padding:0;min-height:0;color:var(--accent);text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:var(--s2);align-items:center;margin:0 0 var(--s3)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:var(--s1) var(--s4);margin:0 0 var(--s4)}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0}
.field-error{color:var(--bad);font-weight:400;font-size:var(--t12)}
footer{max-width:1200px;margin:0 auto;padding:var(--s4);color:var(--muted);font-size:var(--t12);border-top:1px solid var(--line)}
kbd{font-family:var(--mono);font-size:var(--t12);border:1px solid var(--line);border-bottom-width:2px;border-radius:3px;padding:0 3px}
@media (max-width:640px){main{padding:var(--s2)}header.top{padding:var(--s2)}header.top .session{margin-left:0;width:100%}th,td{padding:var(--s1)}
footer{display:none}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{position:absolute;left:-9999px}
table.stack tr{border-bottom:1px solid var(--line);padding:var(--s1) 0}
table.stack td{border:0;padding:2px var(--s1);display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:var(--s2);overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label);color:var(--muted);font-size:var(--t12);font-weight:600}
table.stack td:empty{display:none}
table.stack td.num{text-align:left}}
`;

// `g` then a letter opens a page (like GitHub and Linear); ignored while typing in a field.
const SHORTCUTS_SCRIPT = `
(() => {
  let armed = 0;
  document.addEventListener('keydown', (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    if (event.key === 'g') { armed = Date.now(); return; }
    if (Date.now() - armed > 1500) return;
    armed = 0;
    const link = document.querySelector('header.top nav a[data-key="' + CSS.escape(event.key) + '"]');
    if (link instanceof HTMLAnchorElement) { event.preventDefault(); link.click(); }
  });
})();
`;

export interface PageOptions {
  title: string;
  /** The nav item this page belongs to (its href), if any. */
  current?: string;
  nonce: string;
  session?: AdminSession | undefined;
  body: SafeHtml;
  /** Page scripts, each placed in its own nonce'd <script> after the content. */
  scripts?: string[];
}

function describeSubject(subject: string): string {
  if (subject === 'secret') return 'the admin secret';
  const account = /^user:[0-9a-f-]{36}:(.*)$/.exec(subject);
  return account?.[1] ? account[1] : subject;
}

function clock(epochS: number): string {
  return new Date(epochS * 1000).toISOString().slice(11, 16);
}

export function renderPage(options: PageOptions): SafeHtml {
  const session = options.session;
  const header = session
    ? html`<header class="top">
  <span class="brand">studyhall admin</span>
  <nav aria-label="Admin console"><ul>${NAV.map(
    (item) =>
      html`<li><a href="${item.href}" data-key="${item.key}"${options.current === item.href ? raw(' aria-current="page"') : ''}>${item.label}</a></li>`,
  )}</ul></nav>
  <div class="session"><span>Signed in with ${describeSubject(session.subject)} until ${clock(session.expiresAtS)} UTC</span>
    <form class="inline" method="post" action="/__admin/logout"><button class="link" type="submit">Log out</button></form></div>
</header>`
    : html`<header class="top"><span class="brand">studyhall admin</span></header>`;
  const footer = session
    ? html`<footer>Keyboard: ${NAV.map((item) => html`<kbd>g</kbd> <kbd>${item.key}</kbd> ${item.label.toLowerCase()} · `)}<kbd>Tab</kbd> moves through every control.</footer>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${options.title} · studyhall admin</title>
<style nonce="${options.nonce}">${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main" tabindex="-1">
${options.body}
</main>
${footer}
${session ? html`<script nonce="${options.nonce}">${raw(SHORTCUTS_SCRIPT)}</script>` : ''}
${(options.scripts ?? []).map((script) => html`<script nonce="${options.nonce}">${raw(script)}</script>`)}
</body>
</html>
`;
}

/** "3 checks failed" / "1 check failed": counts in sentences. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** 1536 -> "1.5 KiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** An ISO timestamp as "2026-11-23 14:05 UTC" (minutes are enough on these pages). */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** "HeadlessChrome 156 on Linux" from a User-Agent string; the string itself when it is not recognised. */
export function shortUserAgent(userAgent: string): string {
  const browser = /(Edg|HeadlessChrome|Chrome|Firefox|Version)\/(\d+)/.exec(userAgent);
  const system = /(Windows|Android|iPhone|iPad|Mac OS X|Linux|CrOS)/.exec(userAgent)?.[1];
  if (!browser) return userAgent.slice(0, 80);
  const name = browser[1] === 'Edg' ? 'Edge' : browser[1] === 'Version' ? 'Safari' : browser[1];
  return `${name} ${browser[2]}${system ? ` on ${system === 'Mac OS X' ? 'macOS' : system}` : ''}`;
}
