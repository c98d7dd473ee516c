// The frame of every admin page: a skip link, the navigation (current page marked), the page, and
// a footer naming the session. Semantic HTML first: without the style block it is still a page
// with a list of links, headings, tables and forms, and without scripts every time reads in UTC
// with its date. The style block and the two scripts (times in the browser's zone, times.ts; keyboard
// shortcuts: g then a letter) carry the response's nonce; nothing else inline may run.
import type { AdminSession } from './admin-cookie.ts';
import { DESIGN_TOKENS_CSS } from './design-tokens.ts';
import { html, raw, type SafeHtml } from './html.ts';
import { subjectName } from './people.ts';
import { formatTime, LOCAL_TIME_SCRIPT } from './times.ts';

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

// The app's tokens (contracts/design-tokens.css) first; the console's components use only them, so
// its buttons, fields and colours are the app's, light and dark. Quiet and dense like Primer: one
// accent for the primary action of an area, every other button in the secondary look, and a
// dangerous one in that look too, its text in the danger colour (its name says what it does, and a
// confirmation stands before it).
const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:var(--color-surface);color:var(--color-text);font:var(--text-14)/var(--leading-text) var(--font-sans)}
a{color:var(--color-accent)}
:focus-visible{outline:var(--focus-ring-width) solid var(--color-focus);outline-offset:2px}
.skip{position:absolute;left:-9999px}.skip:focus{left:var(--space-2);top:var(--space-2);background:var(--color-surface);padding:var(--space-2);z-index:2}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:var(--space-2) var(--space-4);padding:var(--space-2) var(--space-4);border-bottom:var(--border-width) solid var(--color-border);background:var(--color-bg)}
header.top .brand{font-weight:var(--weight-bold);white-space:nowrap}
header.top nav ul{display:flex;flex-wrap:wrap;gap:var(--space-1);list-style:none;margin:0;padding:0}
header.top nav a{display:inline-block;padding:var(--space-1) var(--space-2);border-radius:var(--radius-1);color:var(--color-text);text-decoration:none}
header.top nav a:hover{background:var(--color-surface-2)}
header.top nav a[aria-current=page]{background:var(--color-surface);box-shadow:inset 0 -2px 0 var(--color-accent);font-weight:var(--weight-bold)}
header.top .session{margin-left:auto;display:flex;flex-wrap:wrap;align-items:center;gap:var(--space-2);color:var(--color-text-muted);font-size:var(--text-12)}
main{max-width:75rem;margin:0 auto;padding:var(--space-4)}
h1{font-size:var(--text-20);margin:0 0 var(--space-2)}h2{font-size:var(--text-16);margin:var(--space-6) 0 var(--space-2)}
p{margin:0 0 var(--space-3);max-width:75ch}.muted{color:var(--color-text-muted)}
.scroll{overflow-x:auto;margin:0 0 var(--space-4)}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{text-align:left;vertical-align:top;padding:var(--space-1) var(--space-2);border-bottom:var(--border-width) solid var(--color-border)}
th{font-size:var(--text-12);color:var(--color-text-muted);font-weight:var(--weight-bold);white-space:nowrap}
td.num,th.num{text-align:right;white-space:nowrap}
tr.row-bad td{background:var(--color-danger-soft)}
.status-ok{color:var(--color-success);font-weight:var(--weight-bold);white-space:nowrap}.status-bad{color:var(--color-danger);font-weight:var(--weight-bold);white-space:nowrap}
code,pre,textarea,.mono{font-family:var(--font-mono);font-size:var(--text-12)}
td code{overflow-wrap:anywhere}td code.id{white-space:nowrap;overflow-wrap:normal}
pre{background:var(--color-bg);border:var(--border-width) solid var(--color-border);border-radius:var(--radius-1);padding:var(--space-2);overflow:auto;max-height:24em;white-space:pre-wrap;word-break:break-word}
details{margin:0 0 var(--space-2)}summary{cursor:pointer;padding:var(--space-1) 0}
.summary-line{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-4);align-items:baseline}
.banner{border:var(--border-width) solid var(--color-border);border-left:4px solid var(--color-accent);border-radius:var(--radius-1);padding:var(--space-2) var(--space-3);margin:0 0 var(--space-4)}
.banner-bad{border-left-color:var(--color-danger)}.banner-ok{border-left-color:var(--color-success)}
form.stack{display:grid;gap:var(--space-3);max-width:40rem;margin:0 0 var(--space-4)}
form.inline{display:inline}
form.filters{display:flex;flex-wrap:wrap;gap:var(--space-2) var(--space-3);align-items:flex-start;margin:0 0 var(--space-4)}
form.filters .actions{margin:0;padding-top:calc(var(--text-14) * var(--leading-text) + var(--space-1))}
td time{white-space:nowrap}
form.filters label{min-width:12rem;flex:1 1 12rem;max-width:22rem}
label{display:grid;gap:var(--space-1);font-weight:var(--weight-bold)}label.check{display:flex;gap:var(--space-2);align-items:flex-start;font-weight:var(--weight-regular)}
label .hint,.hint{font-weight:var(--weight-regular);color:var(--color-text-muted);font-size:var(--text-12)}
input[type=text],input[type=password],input[type=email],input[type=search],select,textarea{font:inherit;font-weight:var(--weight-regular);color:var(--color-text);background:var(--color-surface);border:var(--border-width) solid var(--color-border-strong);border-radius:var(--radius-2);padding:var(--space-1) var(--space-2);min-height:2.25rem;width:100%}
textarea{min-height:8em;font-family:var(--font-mono);font-size:var(--text-12)}
input[type=checkbox],input[type=radio]{width:16px;height:16px;margin-top:2px;accent-color:var(--color-accent)}
fieldset{display:grid;gap:var(--space-2);border:var(--border-width) solid var(--color-border);border-radius:var(--radius-2);padding:var(--space-3);margin:0}
fieldset label:not(.check){margin-left:calc(16px + var(--space-2))}legend{font-weight:var(--weight-bold);padding:0 var(--space-1)}
button,.button{font:inherit;font-weight:var(--weight-medium);display:inline-flex;align-items:center;justify-content:center;gap:var(--space-2);min-height:2.25rem;padding:0 var(--space-4);border-radius:var(--radius-2);border:var(--border-width) solid var(--color-border-strong);background:var(--color-surface);color:var(--color-text);cursor:pointer;text-decoration:none}
button:hover,.button:hover{background:var(--color-surface-2);color:var(--color-text)}
button.primary{background:var(--color-accent);border-color:var(--color-accent);color:var(--color-on-accent)}
button.primary:hover{background:var(--color-accent-hover);border-color:var(--color-accent-hover);color:var(--color-on-accent)}
button.danger{color:var(--color-danger)}
button.danger:hover{background:var(--color-danger-soft);color:var(--color-danger)}
button.link{border:0;background:none;padding:0;min-height:0;font-weight:var(--weight-regular);color:var(--color-accent);text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:var(--space-2);align-items:center;margin:0 0 var(--space-3)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:var(--space-1) var(--space-4);margin:0 0 var(--space-4)}dl.facts dt{color:var(--color-text-muted)}dl.facts dd{margin:0}
.field-error{color:var(--color-danger);font-weight:var(--weight-regular);font-size:var(--text-12)}
.pager{display:flex;flex-wrap:wrap;gap:var(--space-4);align-items:baseline}
footer{max-width:75rem;margin:0 auto;padding:var(--space-4);color:var(--color-text-muted);font-size:var(--text-12);border-top:var(--border-width) solid var(--color-border)}
kbd{font-family:var(--font-mono);font-size:var(--text-12);border:var(--border-width) solid var(--color-border);border-bottom-width:2px;border-radius:3px;padding:0 3px}
@media (max-width:640px){main{padding:var(--space-2)}header.top{padding:var(--space-2)}header.top .session{margin-left:0;width:100%}th,td{padding:var(--space-1)}
button,.button{min-height:var(--touch-target)}
footer{display:none}
table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
table.stack thead{position:absolute;left:-9999px}
table.stack tr{border-bottom:var(--border-width) solid var(--color-border);padding:var(--space-1) 0}
table.stack td{border:0;padding:2px var(--space-1);display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:var(--space-2);overflow-wrap:anywhere}
table.stack td::before{content:attr(data-label);color:var(--color-text-muted);font-size:var(--text-12);font-weight:var(--weight-bold)}
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

export function renderPage(options: PageOptions): SafeHtml {
  const session = options.session;
  const header = session
    ? html`<header class="top">
  <span class="brand">studyhall admin</span>
  <nav aria-label="Admin console"><ul>${NAV.map(
    (item) =>
      html`<li><a href="${item.href}" data-key="${item.key}"${options.current === item.href ? raw(' aria-current="page"') : ''}>${item.label}</a></li>`,
  )}</ul></nav>
  <div class="session"><span>Signed in as ${subjectName(session.subject)} until ${formatTime(new Date(session.expiresAtS * 1000).toISOString())}</span>
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
<style nonce="${options.nonce}">${raw(DESIGN_TOKENS_CSS)}${raw(STYLE)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
${header}
<main id="main" tabindex="-1">
${options.body}
</main>
${footer}
<script nonce="${options.nonce}">${raw(LOCAL_TIME_SCRIPT)}</script>
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

/** "HeadlessChrome 156 on Linux" from a User-Agent string; the string itself when it is not recognised. */
export function shortUserAgent(userAgent: string): string {
  const browser = /(Edg|HeadlessChrome|Chrome|Firefox|Version)\/(\d+)/.exec(userAgent);
  const system = /(Windows|Android|iPhone|iPad|Mac OS X|Linux|CrOS)/.exec(userAgent)?.[1];
  if (!browser) return userAgent.slice(0, 80);
  const name = browser[1] === 'Edg' ? 'Edge' : browser[1] === 'Version' ? 'Safari' : browser[1];
  return `${name} ${browser[2]}${system ? ` on ${system === 'Mac OS X' ? 'macOS' : system}` : ''}`;
}
