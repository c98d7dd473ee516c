// Ranges as PostgREST reads and reports them: `limit`/`offset` and the `Range` header for the top
// level, `Content-Range`, and the status a partial or impossible range gets.
import { invalidRange, putLimitNotAllowed } from './errors.ts';
import type { QueryParams, RangeParam } from './query-types.ts';

/**
 * The top-level range: `limit`/`offset` intersected with a `Range: a-b` header (GET only);
 * `limit=0` is allowed, any other empty range is 416 PGRST103.
 */
export function topLevelRange(method: string, params: QueryParams, rangeHeader: string | undefined): RangeParam {
  const query = params.ranges.get('') ?? { offset: 0, limit: undefined };
  const fromHeader = method === 'GET' ? parseRangeHeader(rangeHeader) : undefined;
  if (method === 'PUT' && (query.limit !== undefined || query.offset !== 0)) throw putLimitNotAllowed();
  if (query.limit === 0) return { offset: query.offset, limit: 0 };
  let lower = query.offset;
  let upper = query.limit === undefined ? Infinity : query.offset + query.limit - 1;
  if (fromHeader) {
    lower = Math.max(lower, fromHeader.lower);
    upper = Math.min(upper, fromHeader.upper);
  }
  if (upper < lower) {
    throw invalidRange(
      fromHeader && fromHeader.upper < fromHeader.lower
        ? 'The lower boundary must be lower than or equal to the upper boundary in the Range header.'
        : 'Limit should be greater than or equal to zero.',
    );
  }
  return { offset: lower, limit: upper === Infinity ? undefined : upper - lower + 1 };
}

function parseRangeHeader(value: string | undefined): { lower: number; upper: number } | undefined {
  const match = value === undefined ? null : /^(\d+)-(\d*)$/.exec(value);
  if (!match) return undefined;
  return { lower: Number(match[1]), upper: match[2] === '' ? Infinity : Number(match[2]) };
}

export function contentRange(lower: number, returned: number, total: number | undefined): string {
  const upper = lower + returned - 1;
  const range = total !== 0 && lower <= upper ? `${lower}-${upper}` : '*';
  return `${range}/${total === undefined ? '*' : total}`;
}

export function rangeStatus(lower: number, returned: number, total: number | undefined): number {
  if (total === undefined) return 200;
  if (lower > total) return 416;
  if (returned < total) return 206;
  return 200;
}

/**
 * The status and body of a read or a call over rows, from its range: an offset past the rows is
 * 416 with PostgREST's error body in JSON instead of the rows; otherwise `rangeStatus`.
 */
export function rangedAnswer(
  lower: number,
  returned: number,
  total: number | undefined,
  headers: Record<string, string>,
  body: string | undefined,
): { status: number; headers: Record<string, string>; body: string | undefined } {
  const status = rangeStatus(lower, returned, total);
  if (status !== 416) return { status, headers, body };
  const refusal = invalidRange(`An offset of ${lower} was requested, but there are only ${total ?? 0} rows.`);
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json; charset=utf-8' },
    body: JSON.stringify(refusal.body()),
  };
}
