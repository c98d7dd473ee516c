// Content negotiation: the `Accept` header read as PostgREST reads it (wai's parseHttpAccept: by
// quality, then specificity), each type mapped to what localbase can produce. JSON (array, object
// with `.single()`, either with nulls stripped) and CSV are produced; anything else the client
// lists is skipped, and when nothing is left the answer is 406 PGRST107, as PostgREST gives it
// for a type it has no handler for. Query plans (`application/vnd.pgrst.plan`) are produced only
// when db-plan-enabled is on, for a `for` type that is itself produced; off, as in PostgREST's
// default configuration, their media type counts as not produced.
import { mediaTypeUnavailable } from './errors.ts';
import type { BodyHandler } from './sql.ts';

export type BodyProduced =
  { kind: 'json'; stripNulls: boolean } | { kind: 'single'; stripNulls: boolean } | { kind: 'csv' };

export type PlanFormat = 'json' | 'text';
/** EXPLAIN's options, in PostgREST's order. */
export const PLAN_OPTIONS = ['analyze', 'verbose', 'settings', 'buffers', 'wal'] as const;
export type PlanOption = (typeof PLAN_OPTIONS)[number];

/** The query plan of the statement that would produce `for`. */
export interface PlanProduced {
  kind: 'plan';
  format: PlanFormat;
  options: PlanOption[];
  for: BodyProduced;
  /** The media type as PostgREST prints it (its Content-Type). */
  mime: string;
}

export type Produced = BodyProduced | PlanProduced;

interface AcceptedType {
  /** What PostgREST prints for it in the 406 message. */
  mime: string;
  produced: Produced | undefined;
}

/** Splits on commas, drops spaces and the q parameter, sorts by quality then specificity (stable). */
export function parseAccept(header: string): string[] {
  return header
    .split(',')
    .map((item, index) => {
      const compact = item.replace(/ /g, '');
      const q = compact.indexOf(';q=');
      const type = q < 0 ? compact : compact.slice(0, q);
      const qualityText = q < 0 ? '' : (compact.slice(q + 3).split(';')[0] ?? '');
      const quality = /^\d+(\.\d+)?([eE][-+]?\d+)?$/.test(qualityText) ? Number(qualityText) : 1;
      const specificity = (type.match(/;/g)?.length ?? 0) - (type.match(/\*/g)?.length ?? 0);
      return { type, quality, specificity, index };
    })
    .sort((a, b) => b.quality - a.quality || b.specificity - a.specificity || a.index - b.index)
    .map((entry) => entry.type);
}

function parameters(type: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of type.split(';').slice(1)) {
    const eq = part.indexOf('=');
    if (eq > 0)
      map.set(
        part.slice(0, eq).trim().toLowerCase(),
        part
          .slice(eq + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return map;
}

/** PostgREST's decodeMediaType, reduced to what decides the answer. */
function decode(type: string, plans: boolean): AcceptedType {
  const [essence = ''] = type.split(';');
  const lower = essence.trim().toLowerCase();
  const params = parameters(type);
  const stripped = params.get('nulls') === 'stripped';
  switch (lower) {
    case 'application/json':
      return { mime: 'application/json', produced: { kind: 'json', stripNulls: false } };
    case '*/*':
      return { mime: '*/*', produced: { kind: 'json', stripNulls: false } };
    case 'text/csv':
      return { mime: 'text/csv', produced: { kind: 'csv' } };
    case 'application/vnd.pgrst.object+json':
    case 'application/vnd.pgrst.object':
      return {
        mime: `application/vnd.pgrst.object+json${stripped ? ';nulls=stripped' : ''}`,
        produced: { kind: 'single', stripNulls: stripped },
      };
    case 'application/vnd.pgrst.array+json':
    case 'application/vnd.pgrst.array':
      return stripped
        ? { mime: 'application/vnd.pgrst.array+json;nulls=stripped', produced: { kind: 'json', stripNulls: true } }
        : { mime: 'application/json', produced: { kind: 'json', stripNulls: false } };
    case 'application/vnd.pgrst.plan':
    case 'application/vnd.pgrst.plan+text':
    case 'application/vnd.pgrst.plan+json': {
      const format: PlanFormat = lower.endsWith('+json') ? 'json' : 'text';
      const forType = decode(params.get('for') ?? 'application/json', false);
      const given = (params.get('options') ?? '').split('|');
      const options = PLAN_OPTIONS.filter((option) => given.includes(option));
      const mime = `application/vnd.pgrst.plan+${format}; for="${forType.mime}"${options.length > 0 ? `; options=${options.join('|')}` : ''}`;
      const produced: PlanProduced | undefined =
        plans && forType.produced !== undefined && forType.produced.kind !== 'plan'
          ? { kind: 'plan', format, options, for: forType.produced, mime }
          : undefined;
      return { mime, produced };
    }
    case 'application/geo+json':
    case 'text/plain':
    case 'text/xml':
    case 'application/openapi+json':
    case 'application/x-www-form-urlencoded':
    case 'application/octet-stream':
      return { mime: lower, produced: undefined };
    default:
      return { mime: type, produced: undefined };
  }
}

/** The first accepted type localbase produces; 406 PGRST107 listing all of them when none. */
export function negotiate(accept: string | undefined, plans = false): Produced {
  const accepted = accept === undefined || accept.trim() === '' ? ['*/*'] : parseAccept(accept);
  const decoded = accepted.map((type) => decode(type, plans));
  const chosen = decoded.find((type) => type.produced !== undefined);
  if (!chosen?.produced) throw mediaTypeUnavailable(decoded.map((type) => type.mime));
  return chosen.produced;
}

export const CONTENT_TYPES: Record<Produced['kind'], (produced: Produced) => string> = {
  json: (p) =>
    p.kind === 'json' && p.stripNulls
      ? 'application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8'
      : 'application/json; charset=utf-8',
  single: (p) =>
    p.kind === 'single' && p.stripNulls
      ? 'application/vnd.pgrst.object+json;nulls=stripped; charset=utf-8'
      : 'application/vnd.pgrst.object+json; charset=utf-8',
  csv: () => 'text/csv; charset=utf-8',
  plan: (p) => (p.kind === 'plan' ? `${p.mime}; charset=utf-8` : ''),
};

export function contentTypeOf(produced: Produced): string {
  return CONTENT_TYPES[produced.kind](produced);
}

export function handlerFor(produced: Produced): BodyHandler {
  if (produced.kind === 'plan') return handlerFor(produced.for);
  return produced.kind === 'csv' ? { kind: 'csv' } : { kind: produced.kind, stripNulls: produced.stripNulls };
}
