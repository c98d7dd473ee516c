// Property: whatever path, object name, content type, body or JSON storage is sent, it answers with
// a success or a Storage error (`{statusCode, code, error, message}`), never a 5xx, never a hang,
// and a refused upload leaves nothing behind in staging.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { managementQuery, signedUpClient } from '../clients.ts';
import { call, encodePath, expectApiAnswer, headerText, hostileJsonText, oddText, RUNS, seen } from '../hostile.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let userToken: string;
let userId: string;

beforeAll(async () => {
  const user = await signedUpClient(localbase, 'prop-storage');
  userId = user.id;
  userToken = (await user.client.auth.getSession()).data.session?.access_token as string;
  const bucket = await managementQuery(
    localbase,
    `insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
     values ('limited', 'limited', true, 2048, array['image/png', 'image/*', 'text/plain'])`,
  );
  expect(bucket.status).toBe(201);
});

const bucket = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('avatars', 'group-icons', 'study-material', 'backups', 'limited') },
  { weight: 1, arbitrary: oddText },
);
/** Mostly inside the caller's own folder (where policies let writes through), sometimes anywhere. */
const objectPath = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .array(fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme', minLength: 1 })), {
        minLength: 1,
        maxLength: 3,
      })
      .map((parts) => `${userId}/${parts.join('/')}`),
  },
  { weight: 1, arbitrary: oddText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '..',
      '../..',
      '%2e%2e/x',
      '/',
      '//x',
      'a/../../b',
      `${'x'.repeat(1100)}`,
      '.emptyFolderPlaceholder',
      'a\\b',
      '?x',
      '#x',
    ),
  },
);
const contentType = fc.oneof(
  fc.constantFrom(
    'image/png',
    'image/jpeg',
    'text/plain',
    'text/html',
    'image/svg+xml',
    'application/json',
    'application/octet-stream',
    'multipart/form-data',
    'multipart/form-data; boundary=xyz',
    'image',
    '*/*',
    '',
    'application/x-www-form-urlencoded',
  ),
  headerText,
);
const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 4096 }),
  fc.string().map((text) => new TextEncoder().encode(text)),
  fc.constant(new Uint8Array(3000)),
);
const who = fc.constantFrom('user', 'anon', 'none', 'service_role');

function headersFor(caller: string, extra: Record<string, string>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (caller === 'user') Object.assign(headers, { apikey: localbase.anonKey, authorization: `Bearer ${userToken}` });
  if (caller === 'anon') headers.apikey = localbase.anonKey;
  if (caller === 'service_role')
    Object.assign(headers, { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` });
  for (const [name, value] of Object.entries(extra)) if (value !== '') headers[name] = value;
  return headers;
}

async function stagingEntries(): Promise<number> {
  return readdir(path.join(localbase.dataDir, 'storage', '.staging')).then(
    (names) => names.length,
    () => 0,
  );
}

const timeout = 30 * RUNS * 100 + 60_000;
const objectUrl = (route: string, bucketId: string, name: string) =>
  `${localbase.url}/storage/v1/object/${route}${encodePath(bucketId, false)}/${encodePath(name)}`;

describe('storage under arbitrary input', () => {
  test.prop(
    [who, fc.constantFrom('POST', 'PUT', 'POST-upsert'), bucket, objectPath, contentType, bytes, fc.boolean()],
    { numRuns: RUNS * 3 },
  )(
    'answers any upload with a success or a Storage error, never a 5xx, leaving nothing in staging',
    async (caller, mode, bucketId, name, type, body, multipart) => {
      let payload: BodyInit = new Uint8Array(body);
      const extra: Record<string, string> = { 'content-type': type, 'x-upsert': mode === 'POST-upsert' ? 'true' : '' };
      if (multipart) {
        const form = new FormData();
        form.append('cacheControl', '60');
        form.append('', new Blob([new Uint8Array(body)], { type: type.replace(/[^\x20-\x7e]/g, '') }), 'file');
        payload = form;
        delete extra['content-type'];
      }
      const url = objectUrl('', bucketId, name);
      const answer = await call(url, {
        method: mode === 'PUT' ? 'PUT' : 'POST',
        body: payload,
        headers: headersFor(caller, extra),
      });
      expectApiAnswer(
        'storage',
        answer,
        `${mode} ${url} as ${caller} (${type}, ${body.length} bytes${multipart ? ', multipart' : ''})`,
      );
      expect(await stagingEntries()).toBe(0);
    },
    timeout,
  );

  test.prop(
    [
      who,
      fc.constantFrom('', 'authenticated/', 'public/', 'info/', 'sign/'),
      bucket,
      objectPath,
      fc.constantFrom('', '?download', '?download=x%20y', '?download=%00'),
    ],
    { numRuns: RUNS * 2 },
  )(
    'answers any download with the object or a Storage error, never a 5xx',
    async (caller, route, bucketId, name, query) => {
      const url = objectUrl(route, bucketId, name) + query;
      const answer = await call(url, { headers: headersFor(caller, {}) });
      expectApiAnswer('storage', answer, `GET ${url} as ${caller}`);
    },
    timeout,
  );

  test.prop(
    [
      who,
      fc.constantFrom(
        'POST /object/list/',
        'DELETE /object/',
        'POST /bucket',
        'GET /bucket/',
        'POST /object/move',
        'PUT /bucket/',
      ),
      bucket,
      hostileJsonText,
      contentType,
    ],
    {
      numRuns: RUNS * 2,
    },
  )(
    'answers any JSON to list, remove and bucket routes with a success or a Storage error, never a 5xx',
    async (caller, route, bucketId, body, type) => {
      const [method, prefix] = route.split(' ') as [string, string];
      const url = `${localbase.url}/storage/v1${prefix}${prefix.endsWith('/') ? encodePath(bucketId, false) : ''}`;
      const answer = await call(url, {
        method,
        body: method === 'GET' ? undefined : body,
        headers: headersFor(caller, { 'content-type': type || 'application/json' }),
      });
      expectApiAnswer('storage', answer, `${method} ${url} as ${caller}: ${body.slice(0, 120)}`);
    },
    timeout,
  );

  test('reached both successes and refusals (the generators are not all garbage)', () => {
    expect([...seen.storage].some((status) => status < 300)).toBe(true);
    expect([...seen.storage].some((status) => status >= 400)).toBe(true);
  });

  test('still stores and serves an ordinary upload after all of it', async () => {
    const url = objectUrl('', 'limited', 'after/all.png');
    const stored = await call(url, {
      method: 'POST',
      body: new Uint8Array([1, 2, 3]),
      headers: headersFor('service_role', { 'content-type': 'image/png', 'x-upsert': 'true' }),
    });
    expect(stored.status).toBe(200);
    const served = await fetch(objectUrl('public/', 'limited', 'after/all.png'));
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3]));
  });
});
