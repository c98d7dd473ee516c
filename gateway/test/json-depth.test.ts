// JSON nesting measured before parsing: a loop, not recursion, so 10,000 (or 1,000,000) levels are
// refused with 400 invalid_json by every JSON route, and 256 levels still parse.
import { fc, it } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { jsonNestingDepth, MAX_JSON_DEPTH } from '../src/security/json-body.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

const TOKEN = `e30.${Buffer.from(JSON.stringify({ sub: '11111111-2222-3333-4444-555555555555' })).toString('base64url')}.sig`;

function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === 'object') return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const nestedArrays = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const nestedObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('jsonNestingDepth', () => {
  it.prop([fc.json({ depthSize: 'large' })], { numRuns: 1_000 })(
    'agrees with the depth of the parsed value for any JSON, strings with brackets and escapes included',
    (text) => {
      expect(jsonNestingDepth(text)).toBe(depthOf(JSON.parse(text)));
    },
  );

  it('skips brackets and escaped quotes inside strings', () => {
    expect(jsonNestingDepth('{"a":"[[[{{{\\\\\\"]]"}')).toBe(1);
  });

  it('measures a million levels without a stack', () => {
    expect(jsonNestingDepth(nestedArrays(1_000_000))).toBe(1_000_000);
    expect(jsonNestingDepth(nestedArrays(1_000_000), MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
  });
});

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    rateLimits: { credentials: { max: 10_000, windowMs: 60_000 }, errorReports: { max: 10_000, windowMs: 60_000 } },
  });
});
afterAll(() => gateway.close());

const JSON_ROUTES = [
  '/__errors',
  '/__auth/signup',
  '/__auth/login',
  '/__auth/check',
  '/__auth/profile',
  '/__auth/backup',
  '/__auth/snapshot',
  '/__auth/import',
  '/__auth/restore-best-backup',
  '/__leaderboard',
  '/__pip/state',
  '/api/pip/action',
];

describe('every JSON route', () => {
  it.each(JSON_ROUTES)(
    'POST %s refuses deep nesting (10,000 levels, or 1,000 within a small limit) with 400 invalid_json',
    async (url) => {
      // The timer relay's bodies are limited to a few KiB: 1,000 levels fit, 10,000 are a 413 first.
      const depth = url.includes('pip') ? 1_000 : 10_000;
      for (const payload of [
        nestedArrays(depth),
        nestedObjects(depth / 2),
        `{"payload":${nestedObjects(depth / 2)}}`,
      ]) {
        const response = await gateway.app.inject({
          method: 'POST',
          url,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
          payload,
        });
        expect(response.statusCode, url).toBe(400);
        expect(response.json()).toMatchObject({ error: 'invalid_json', max_depth: MAX_JSON_DEPTH });
      }
    },
  );

  it('refuses it in a sendBeacon (text/plain) error report too', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/__errors',
      headers: { 'content-type': 'text/plain' },
      payload: nestedObjects(10_000),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_json');
  });

  it('parses 256 levels and refuses 257', async () => {
    const at = await gateway.app.inject({
      method: 'POST',
      url: '/__errors',
      headers: { 'content-type': 'application/json' },
      payload: `{"stack":${nestedObjects(MAX_JSON_DEPTH - 1)}}`,
    });
    expect(at.statusCode).toBe(202);
    const over = await gateway.app.inject({
      method: 'POST',
      url: '/__errors',
      headers: { 'content-type': 'application/json' },
      payload: `{"stack":${nestedObjects(MAX_JSON_DEPTH)}}`,
    });
    expect(over.statusCode).toBe(400);
  });

  it('refuses prototype keys as invalid JSON, never merging them into an object', async () => {
    for (const payload of ['{"__proto__":{"polluted":true}}', '{"constructor":{"prototype":{"polluted":true}}}']) {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__errors',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error).toBe('invalid_json');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
