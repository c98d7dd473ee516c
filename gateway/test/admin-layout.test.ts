// The console's frame: its styles use only the app's shared tokens (contracts/design-tokens.css),
// times are `<time>` elements in UTC with the date for the browser to show in its own zone, the
// header names the owner's sign-in, and people are named, never "her".
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import type { AdminSession } from '../src/admin/admin-cookie.ts';
import { html } from '../src/admin/html.ts';
import { renderPage } from '../src/admin/layout.ts';
import { OWNER_NAME, studentName, subjectName } from '../src/admin/people.ts';
import { formatTime, timeAgo } from '../src/admin/times.ts';

const page = (session?: AdminSession) =>
  renderPage({ title: 'Test', nonce: 'n0nce', body: html`<h1>Test</h1>`, session }).text;

describe('the console frame', () => {
  it('styles only with tokens the shared design tokens define', async () => {
    const tokens = await readFile(path.join(repoRoot, 'contracts', 'design-tokens.css'), 'utf8');
    const defined = new Set([...tokens.matchAll(/(?<![\w-])(--[a-z0-9-]+)\s*:/g)].map((match) => match[1]));
    const style = /<style nonce="n0nce">([\s\S]*?)<\/style>/.exec(page())?.[1] ?? '';
    expect(style.startsWith(tokens)).toBe(true);
    const own = style.slice(tokens.length);
    const used = [...new Set([...own.matchAll(/var\((--[a-z0-9-]+)/g)].map((match) => match[1]))];
    expect(used.length).toBeGreaterThan(20);
    expect(used.filter((name) => !defined.has(name))).toEqual([]);
    // No colour of its own: every colour comes from a token.
    expect(own.match(/#[0-9a-f]{3,8}\b|rgb\(/gi)).toBeNull();
  });

  it('names the owner and shows when the session ends as a time the browser converts', () => {
    const expiresAtS = Date.parse('2026-11-27T20:13:00Z') / 1000;
    const text = page({ subject: 'secret', issuedAtS: expiresAtS - 43_200, expiresAtS });
    expect(text).toContain(
      'Signed in as the owner (admin secret) until <time datetime="2026-11-27T20:13:00.000Z">2026-11-27 20:13 UTC</time>',
    );
    expect(
      page({ subject: 'user:11111111-1111-4111-8111-111111111111:dee@example.com', issuedAtS: 1, expiresAtS }),
    ).toContain('Signed in as dee@example.com until');
    // The script that converts times runs on every page, signed in or not, with the page's nonce.
    for (const text of [page(), page({ subject: 'secret', issuedAtS: 1, expiresAtS })])
      expect(text).toMatch(/<script nonce="n0nce">\s*\(\(\) => \{\s*const format = new Intl\.DateTimeFormat/);
  });
});

describe('times', () => {
  it('render in UTC with the date, inside a <time> holding the exact instant', () => {
    expect(formatTime('2026-11-27T08:13:59.123Z').text).toBe(
      '<time datetime="2026-11-27T08:13:59.123Z">2026-11-27 08:13 UTC</time>',
    );
    expect(formatTime(null).text).toBe('—');
    expect(formatTime('not a time').text).toBe('not a time');
  });

  it('say how long ago in words', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    const ago = (seconds: number) => timeAgo(new Date(now - seconds * 1000).toISOString(), now);
    expect([ago(5), ago(60), ago(179), ago(3_600), ago(7_300), ago(86_400), ago(3 * 86_400)]).toEqual([
      'just now',
      '1 minute ago',
      '2 minutes ago',
      '1 hour ago',
      '2 hours ago',
      '1 day ago',
      '3 days ago',
    ]);
    expect(timeAgo(new Date(now + 30_000).toISOString(), now)).toBe('just now');
  });
});

describe('people', () => {
  it('are named by who they are', () => {
    const id = '22222222-2222-4222-8222-222222222222';
    expect(subjectName('secret')).toBe(OWNER_NAME);
    expect(OWNER_NAME).toBe('the owner (admin secret)');
    expect(subjectName(`user:${id}:ben@example.com`)).toBe('ben@example.com');
    expect(subjectName(id, new Map([[id, 'ann@example.com']]))).toBe('ann@example.com');
    expect(subjectName(id)).toBe('an account (22222222)');
    expect(subjectName('service_role')).toBe('the service role');
    expect(studentName({ email: 'ben@example.com', handle: 'ben' })).toBe('ben@example.com');
    expect(studentName({ email: null, handle: 'ben' })).toBe('@ben');
    expect(studentName({})).toBe('this student');
  });
});
