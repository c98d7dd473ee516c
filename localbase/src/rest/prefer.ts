// The `Prefer` header (RFC 7240) as PostgREST reads it (ApiRequest/Preferences.hs): every Prefer
// header, split on commas; for each preference the first recognised value wins; anything not
// recognised is collected, and refused with PGRST122 only under `handling=strict`. `tx=commit`
// and `tx=rollback` are always recognised, but honoured only when db-tx-end allows an override
// (`commit-allow-override`, `rollback-allow-override`); otherwise they are ignored, as PostgREST
// ignores them, never refused.

export type Resolution = 'merge-duplicates' | 'ignore-duplicates';
export type Representation = 'full' | 'headers-only' | 'minimal';
export type CountPreference = 'exact' | 'planned' | 'estimated';
export type TransactionPreference = 'commit' | 'rollback';
/** PostgREST's db-tx-end. */
export type TxEnd = 'commit' | 'commit-allow-override' | 'rollback' | 'rollback-allow-override';

export interface Preferences {
  resolution: Resolution | undefined;
  representation: Representation | undefined;
  count: CountPreference | undefined;
  missing: 'default' | 'null' | undefined;
  handling: 'strict' | 'lenient' | undefined;
  timezone: string | undefined;
  maxAffected: number | undefined;
  /** `tx=`, only when db-tx-end lets a request choose; else undefined. */
  transaction: TransactionPreference | undefined;
  /** Items neither recognised nor valid, in the order given (PGRST122 lists them). */
  invalid: string[];
}

const RESOLUTIONS: Record<string, Resolution> = {
  'resolution=merge-duplicates': 'merge-duplicates',
  'resolution=ignore-duplicates': 'ignore-duplicates',
};
const REPRESENTATIONS: Record<string, Representation> = {
  'return=representation': 'full',
  'return=headers-only': 'headers-only',
  'return=minimal': 'minimal',
};
const COUNTS: Record<string, CountPreference> = {
  'count=exact': 'exact',
  'count=planned': 'planned',
  'count=estimated': 'estimated',
};
const MISSING: Record<string, 'default' | 'null'> = { 'missing=default': 'default', 'missing=null': 'null' };
const HANDLING: Record<string, 'strict' | 'lenient'> = { 'handling=strict': 'strict', 'handling=lenient': 'lenient' };
const TRANSACTION: Record<string, TransactionPreference> = { 'tx=commit': 'commit', 'tx=rollback': 'rollback' };

const RECOGNISED = new Set([
  ...Object.keys(RESOLUTIONS),
  ...Object.keys(REPRESENTATIONS),
  ...Object.keys(COUNTS),
  ...Object.keys(MISSING),
  ...Object.keys(HANDLING),
  ...Object.keys(TRANSACTION),
]);

/** Haskell's readMaybe for an Int64: digits with an optional minus, nothing else. */
function readInteger(text: string): number | undefined {
  return /^-?\d+$/.test(text) ? Number(text) : undefined;
}

/**
 * Reads all Prefer headers. `timezones` is the set of names PostgreSQL knows (pg_timezone_names):
 * an unknown time zone is ignored, and is invalid under strict handling.
 */
export function parsePrefer(
  header: string | string[] | undefined,
  timezones: ReadonlySet<string>,
  txEnd: TxEnd = 'commit',
): Preferences {
  const items = (Array.isArray(header) ? header : header === undefined ? [] : [header])
    .flatMap((value) => value.split(','))
    .map((item) => item.trim());
  const first = <T>(table: Record<string, T>) => {
    for (const item of items) if (Object.hasOwn(table, item)) return table[item];
    return undefined;
  };
  const prefixed = (prefix: string) => items.find((item) => item.startsWith(prefix))?.slice(prefix.length);
  const timezone = prefixed('timezone=');
  const timezoneAccepted = timezone !== undefined && timezones.has(timezone);
  const maxAffectedText = prefixed('max-affected=');
  return {
    resolution: first(RESOLUTIONS),
    representation: first(REPRESENTATIONS),
    count: first(COUNTS),
    missing: first(MISSING),
    handling: first(HANDLING),
    timezone: timezoneAccepted ? timezone : undefined,
    maxAffected: maxAffectedText === undefined ? undefined : readInteger(maxAffectedText),
    transaction: txEnd.endsWith('-allow-override') ? first(TRANSACTION) : undefined,
    invalid: items.filter(
      (item) =>
        !RECOGNISED.has(item) &&
        !(item.startsWith('timezone=') && timezoneAccepted) &&
        !item.startsWith('max-affected='),
    ),
  };
}

export type PreferenceApplication = 'read' | 'insert' | 'update' | 'upsert' | 'delete' | 'call';

/**
 * The Preference-Applied header: what this kind of request honoured, in PostgREST's order.
 * `resolutionApplies` is false for an insert into a table without a primary key or on_conflict.
 */
export function preferenceApplied(
  prefs: Preferences,
  kind: PreferenceApplication,
  resolutionApplies = true,
): string | undefined {
  const values: string[] = [];
  const strict = prefs.handling === 'strict';
  if (kind === 'insert' && resolutionApplies && prefs.resolution) values.push(`resolution=${prefs.resolution}`);
  if ((kind === 'insert' || kind === 'update') && prefs.missing) values.push(`missing=${prefs.missing}`);
  if (kind !== 'read' && kind !== 'call' && prefs.representation) values.push(representationText(prefs.representation));
  if (prefs.count) values.push(`count=${prefs.count}`);
  if (prefs.transaction) values.push(`tx=${prefs.transaction}`);
  if (prefs.handling) values.push(`handling=${prefs.handling}`);
  if (prefs.timezone) values.push(`timezone=${prefs.timezone}`);
  if ((kind === 'update' || kind === 'delete' || kind === 'call') && strict && prefs.maxAffected !== undefined) {
    values.push(`max-affected=${prefs.maxAffected}`);
  }
  return values.length === 0 ? undefined : values.join(', ');
}

function representationText(representation: Representation): string {
  return representation === 'full'
    ? 'return=representation'
    : representation === 'minimal'
      ? 'return=minimal'
      : 'return=headers-only';
}

/** Whether a request's transaction ends in a rollback: its `tx=` preference, else db-tx-end. */
export function rollsBack(prefs: Preferences, txEnd: TxEnd): boolean {
  return prefs.transaction === undefined ? txEnd.startsWith('rollback') : prefs.transaction === 'rollback';
}
