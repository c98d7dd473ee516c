// Request bodies of the Data API, by Content-Type, as PostgREST takes them: JSON (an object, or an
// array of objects with the same keys unless `columns` names them), CSV with a header line (NULL
// is null), form fields, and for a function of one unnamed parameter the raw text, XML or bytes.
import type { FastifyInstance } from 'fastify';
import { installJsonParser, JSON_BODY_LIMIT_BYTES } from '../json-body.ts';
import { invalidBody } from './errors.ts';

/** A body the JSON parser did not take: its Content-Type and text. */
export interface RawBody {
  raw: true;
  contentType: string;
  text: string;
}

export function isRawBody(body: unknown): body is RawBody {
  return typeof body === 'object' && body !== null && (body as RawBody).raw === true;
}

/** JSON through the shared parser; everything else kept as text for the routes to read. */
export function installRestBodyParsers(app: FastifyInstance): void {
  installJsonParser(app);
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: JSON_BODY_LIMIT_BYTES }, (request, body, done) => {
    done(null, {
      raw: true,
      contentType: String(request.headers['content-type'] ?? ''),
      text: String(body),
    } satisfies RawBody);
  });
}

export type MediaKind = 'json' | 'csv' | 'form' | 'text' | 'xml' | 'octet' | 'other';

export function mediaKind(contentType: string | undefined): MediaKind {
  const essence = (contentType ?? 'application/json').split(';')[0]?.trim().toLowerCase() ?? '';
  switch (essence) {
    case 'application/json':
    case '':
      return 'json';
    case 'text/csv':
      return 'csv';
    case 'application/x-www-form-urlencoded':
      return 'form';
    case 'text/plain':
      return 'text';
    case 'text/xml':
      return 'xml';
    case 'application/octet-stream':
      return 'octet';
    default:
      return 'other';
  }
}

export interface TablePayload {
  /** The body as JSON text, an object or an array of objects. */
  json: string;
  isObject: boolean;
  /** The keys to write: the `columns` parameter, else the (uniform) keys of the body. */
  columns: string[];
}

function objectKeys(value: unknown): string[] | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : undefined;
}

/** A body for POST/PATCH/PUT on a table. */
export function tablePayload(
  body: unknown,
  contentType: string | undefined,
  columns: string[] | undefined,
): TablePayload {
  const kind = mediaKind(contentType);
  let value: unknown;
  if (kind === 'json') value = body;
  else if (kind === 'csv') value = csvRows(rawText(body));
  else if (kind === 'form') value = Object.fromEntries(new URLSearchParams(rawText(body)));
  else throw invalidBody(`Content-Type not acceptable: ${essenceOf(contentType)}`);
  if (value === undefined) throw invalidBody('Empty or invalid json');
  if (columns !== undefined) {
    if (!Array.isArray(value) && objectKeys(value) === undefined) throw invalidBody('Empty or invalid json');
    return { json: JSON.stringify(value), isObject: !Array.isArray(value), columns };
  }
  if (Array.isArray(value)) {
    const first = value[0];
    if (first === undefined) return { json: '[]', isObject: false, columns: [] };
    const keys = objectKeys(first);
    const canonical = keys === undefined ? undefined : [...keys].sort().join('\0');
    const uniform = canonical !== undefined && value.every((row) => objectKeys(row)?.sort().join('\0') === canonical);
    if (!uniform || !keys) throw invalidBody('All object keys must match');
    return { json: JSON.stringify(value), isObject: false, columns: keys };
  }
  const keys = objectKeys(value);
  if (keys === undefined) throw invalidBody('Empty or invalid json');
  return { json: JSON.stringify(value), isObject: true, columns: keys };
}

function essenceOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim() ?? '';
}

function rawText(body: unknown): string {
  return isRawBody(body) ? body.text : '';
}

export type RpcPayload =
  | { kind: 'json'; json: string; keys: string[] }
  | { kind: 'form'; values: Map<string, string[]> }
  | { kind: 'raw'; media: 'text' | 'xml' | 'octet'; text: string | null };

/** A body for POST /rpc/fn: named arguments, or the raw body for a single unnamed parameter. */
export function rpcPayload(body: unknown, contentType: string | undefined): RpcPayload {
  const kind = mediaKind(contentType);
  if (kind === 'json') {
    const value = body === undefined ? {} : body;
    const keys = objectKeys(value);
    if (keys === undefined) {
      // A function of one unnamed json parameter takes any JSON; the routes decide.
      return { kind: 'json', json: JSON.stringify(value), keys: [] };
    }
    return { kind: 'json', json: JSON.stringify(value), keys };
  }
  if (kind === 'form') {
    const values = new Map<string, string[]>();
    for (const [key, value] of new URLSearchParams(rawText(body))) values.set(key, [...(values.get(key) ?? []), value]);
    return { kind: 'form', values };
  }
  if (kind === 'text' || kind === 'xml' || kind === 'octet')
    return { kind: 'raw', media: kind, text: isRawBody(body) ? body.text : null };
  throw invalidBody(`Content-Type not acceptable: ${essenceOf(contentType)}`);
}

/** RFC 4180 CSV with a header line into objects; the bare word NULL is null. */
export function csvRows(text: string): Record<string, string | null>[] {
  const records = parseCsv(text);
  const header = records.shift();
  if (!header) return [];
  return records
    .filter((record) => !(record.length === 1 && record[0]?.value === ''))
    .map((record) => {
      if (record.length !== header.length) throw invalidBody('All lines must have same number of fields');
      return Object.fromEntries(
        header.map((name, index) => {
          const cell = record[index] as { value: string; quoted: boolean };
          return [name.value, !cell.quoted && cell.value === 'NULL' ? null : cell.value];
        }),
      );
    });
}

function parseCsv(text: string): { value: string; quoted: boolean }[][] {
  const records: { value: string; quoted: boolean }[][] = [];
  let record: { value: string; quoted: boolean }[] = [];
  let value = '';
  let quoted = false;
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (inQuotes) {
      if (char === '"' && text[i + 1] === '"') {
        value += '"';
        i++;
      } else if (char === '"') inQuotes = false;
      else value += char;
    } else if (char === '"') {
      inQuotes = true;
      quoted = true;
    } else if (char === ',') {
      record.push({ value, quoted });
      value = '';
      quoted = false;
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      record.push({ value, quoted });
      records.push(record);
      record = [];
      value = '';
      quoted = false;
    } else value += char;
  }
  if (inQuotes) throw invalidBody('unterminated quoted field in CSV');
  if (value !== '' || quoted || record.length > 0) {
    record.push({ value, quoted });
    records.push(record);
  }
  return records;
}
