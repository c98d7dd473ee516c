// The `Prefer` header (RFC 7240) as PostgREST reads it; several headers or comma-separated items.
import type { Resolution } from './sql.ts';

export interface Preferences {
  returnRepresentation: boolean;
  count: boolean;
  resolution: Resolution;
}

export function parsePrefer(header: string | string[] | undefined): Preferences {
  const items = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
  const resolution = items.find((item) => item.startsWith('resolution='))?.slice('resolution='.length);
  return {
    returnRepresentation: items.includes('return=representation'),
    // planned and estimated are answered exactly: localbase tables are small.
    count: items.some((item) => /^count=(exact|planned|estimated)$/.test(item)),
    resolution: resolution === 'merge-duplicates' || resolution === 'ignore-duplicates' ? resolution : undefined,
  };
}

/** supabase-js `.single()` / `.maybeSingle()`-with-single: one object, not an array. */
export function wantsSingleObject(accept: string | undefined): boolean {
  return (accept ?? '').toLowerCase().includes('application/vnd.pgrst.object+json');
}
