// The path every decision about a request is made on: the fences, the rate limits, the proxy's
// intercepts, the storage headers. A request can spell one path many ways (`/%61pi/x`, `/API/x`,
// `//api/x`, `/x/../api/x`, `/auth/v1/%74oken`), and the router, the static file server and a
// backend each undo some of those spellings. So decisions never look at the raw URL: they look at
// the path decoded once (as the router and the backends decode it), with backslashes read as
// slashes, duplicate slashes folded, dot segments resolved, and letters in lower case. Lower case
// because the router matches case-sensitively (`/API/x` reaches no /api route and must still be
// fenced) while a backend may not: a decision taken case-blind covers both readings.
// The raw URL is still what is forwarded; only the decision uses this form.

export interface DecidedUrl {
  /** Decoded once, `\` read as `/`, `//` folded, `.`/`..` resolved, lower case; always starts with `/`. */
  path: string;
  /** The raw query string (without `?`); read it with URLSearchParams, which decodes it. */
  query: string;
}

const HEX_PAIR = /^[0-9a-f]{2}$/i;

/** Decodes every valid %XX escape exactly once, as UTF-8; invalid escapes and bytes stay as they are. */
export function percentDecodeOnce(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let index = 0; index < text.length; index++) {
    const pair = text.slice(index + 1, index + 3);
    if (text[index] === '%' && HEX_PAIR.test(pair)) {
      bytes.push(Number.parseInt(pair, 16));
      index += 2;
      continue;
    }
    const codePoint = text.codePointAt(index) ?? 0;
    if (codePoint > 0xffff) index++;
    bytes.push(...Buffer.from(String.fromCodePoint(codePoint), 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 3986 5.2.4 on already split segments: `.` disappears, `..` removes the segment before it. */
function withoutDotSegments(segments: string[]): string[] {
  const kept: string[] = [];
  for (const segment of segments) {
    if (segment === '.') continue;
    if (segment === '..') kept.pop();
    else kept.push(segment);
  }
  return kept;
}

export function decideUrl(rawUrl: string): DecidedUrl {
  const queryAt = rawUrl.indexOf('?');
  const rawPath = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
  const query = queryAt === -1 ? '' : rawUrl.slice(queryAt + 1);
  const decoded = percentDecodeOnce(rawPath).replace(/\\/g, '/').toLowerCase();
  const segments = decoded.split('/');
  const trailingSlash = decoded.length > 1 && decoded.endsWith('/');
  const kept = withoutDotSegments(segments.filter((segment) => segment !== ''));
  const path = `/${kept.join('/')}${trailingSlash && kept.length > 0 ? '/' : ''}`;
  return { path, query };
}

/** The rest of a decided path under `prefix` (`/__backend` of `/__backend/auth/v1/token` is `/auth/v1/token`). */
export function pathUnder(prefix: string, decidedPath: string): string | undefined {
  if (decidedPath === prefix) return '/';
  return decidedPath.startsWith(`${prefix}/`) ? decidedPath.slice(prefix.length) : undefined;
}
