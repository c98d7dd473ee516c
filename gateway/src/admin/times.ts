// Times on the console's pages. The server does not know the viewer's time zone (Accept-Language
// names a language, not a zone), so each time is rendered as `<time datetime="<ISO>">` holding the
// UTC time with its date, which reads correctly without JavaScript, and LOCAL_TIME_SCRIPT rewrites
// it into the browser's own zone and locale, keeping the UTC text as its title. Ages ("3 minutes
// ago") do not depend on a zone and are written by the server.
import { html, type SafeHtml } from './html.ts';

/** "2026-11-23 14:05 UTC" as a `<time>` element; "—" for no time. */
export function formatTime(iso: string | null | undefined): SafeHtml {
  if (!iso) return html`—`;
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return html`${iso}`;
  const utc = `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return html`<time datetime="${date.toISOString()}">${utc}</time>`;
}

/** How long ago, in words: "just now", "3 minutes ago", "2 hours ago", "4 days ago". */
export function timeAgo(iso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.round((nowMs - Date.parse(iso)) / 1000));
  if (seconds < 60) return 'just now';
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    const count = Math.floor(seconds / size);
    if (count >= 1) return `${count} ${name}${count === 1 ? '' : 's'} ago`;
  }
  return 'just now';
}

// Runs on every page, after the content.
export const LOCAL_TIME_SCRIPT = `
(() => {
  const format = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
  for (const element of document.querySelectorAll('time[datetime]')) {
    const date = new Date(element.getAttribute('datetime'));
    if (Number.isNaN(date.getTime())) continue;
    element.title = element.textContent;
    element.textContent = format.format(date);
  }
})();
`;
