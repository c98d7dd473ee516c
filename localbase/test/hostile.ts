// Shared pieces of the property tests: arbitraries for hostile input (arbitrary JSON that is deep,
// huge, odd unicode or made of prototype keys; query strings; paths; header-safe garbage) and the
// one thing every answer must be: a success or an API error in the family's own shape, never a
// 5xx, and never later than the deadline.
import { fc } from '@fast-check/vitest';
import { expect } from 'vitest';

/** Longer than any honest request takes here; a request still open by then counts as a hang. */
export const ANSWER_DEADLINE_MS = 20_000;

/** Property runs per property: enough to walk the grammar, small enough for a 2-core CI box. */
export const RUNS = Number(process.env.PROPERTY_RUNS ?? 60);

export type Family = 'rest' | 'auth' | 'storage';

export interface Answer {
  status: number;
  contentType: string;
  text: string;
}

export async function call(url: string, init: RequestInit): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_DEADLINE_MS) });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

const errorShapes: Record<Family, (body: Record<string, unknown>) => boolean> = {
  rest: (body) =>
    typeof body.code === 'string' && typeof body.message === 'string' && 'details' in body && 'hint' in body,
  auth: (body) =>
    (typeof body.code === 'string' && typeof body.message === 'string') ||
    (typeof body.code === 'number' && typeof body.error_code === 'string' && typeof body.msg === 'string'),
  storage: (body) =>
    typeof body.statusCode === 'string' &&
    typeof body.code === 'string' &&
    typeof body.error === 'string' &&
    typeof body.message === 'string',
};

/** The API gateway's refusal of a missing or unknown API key, the same in front of every family. */
const isApiKeyRefusal = (status: number, body: Record<string, unknown>) =>
  status === 401 && typeof body.message === 'string' && typeof body.hint === 'string' && Object.keys(body).length === 2;

/** Every status each family answered in this file's runs: a property that only ever saw refusals proves little. */
export const seen: Record<Family, Set<number>> = { rest: new Set(), auth: new Set(), storage: new Set() };

/** A success, or a 4xx whose body is the family's JSON error. `what` names the request in failures. */
export function expectApiAnswer(family: Family, answer: Answer, what: string): void {
  seen[family].add(answer.status);
  expect(answer.status, `${what} -> ${answer.status} ${answer.text.slice(0, 300)}`).toBeLessThan(500);
  if (answer.status < 400) return;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    throw new Error(`${what} -> ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`);
  }
  const fields = body as Record<string, unknown>;
  expect(
    errorShapes[family](fields) || isApiKeyRefusal(answer.status, fields),
    `${what} -> ${answer.status} ${answer.text.slice(0, 300)}`,
  ).toBe(true);
}

/** Strings from every corner of unicode, lone surrogates and NUL included. */
export const oddText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff',
    '\u202e',
    '\ufeff',
    '%00',
    '\\u0000',
    '😀'.repeat(50),
    '"',
    "'",
    '\\',
    '',
  ),
);

/** JSON text nested past the parser's limit, or just inside it. */
const deepJson = fc
  .tuple(fc.integer({ min: 200, max: 12_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth));

/** Objects whose keys are the ones that poison naive JavaScript: written as text, as an attacker sends them. */
const prototypeJson = fc
  .tuple(
    fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
    fc.jsonValue({ maxDepth: 2 }),
  )
  .map(([key, value]) => `{"${key}":${JSON.stringify(value) ?? 'null'},"constructor":{"prototype":{"polluted":true}}}`);

const hugeJson = fc.integer({ min: 100_000, max: 2_000_000 }).map((size) => JSON.stringify({ blob: 'x'.repeat(size) }));

const numbersJson = fc.constantFrom(
  '1e308',
  '-1e308',
  '1e-400',
  '123456789012345678901234567890',
  '-0',
  '[1e999]',
  '{"n": 9007199254740993}',
);

/** Text of a JSON body: ordinary values, deep, huge, prototype keys, odd numbers, or not JSON at all. */
export const hostileJsonText = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value) ?? 'null') },
  {
    weight: 2,
    arbitrary: fc
      .dictionary(oddText, fc.oneof(oddText, fc.jsonValue({ maxDepth: 2 })))
      .map((value) => JSON.stringify(value)),
  },
  { weight: 1, arbitrary: deepJson },
  { weight: 1, arbitrary: prototypeJson },
  { weight: 1, arbitrary: hugeJson },
  { weight: 1, arbitrary: numbersJson },
  { weight: 1, arbitrary: fc.string() },
);

/** Printable ASCII only: what a header may carry (fetch refuses anything else before sending). */
export const headerText = fc
  .string({ unit: 'binary-ascii', maxLength: 80 })
  .map((text) => text.replace(/[^\x20-\x7e]/g, '').trim());

/** Percent-encodes every byte of the UTF-8 text except unreserved characters and, when asked, '/'. */
export function encodePath(text: string, keepSlash = true): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const char = String.fromCharCode(byte);
    out +=
      /[A-Za-z0-9\-._~]/.test(char) || (keepSlash && char === '/')
        ? char
        : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
