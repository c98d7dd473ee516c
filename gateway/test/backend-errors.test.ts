// The one place backend failures are mapped (backend-errors.ts): every code the migrations raise is
// known, a client error is never a 5xx, and a broken backend is never the caller's fault.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { BackendError } from '../src/backend/backend-client.ts';
import { DATABASE_RAISED_CODES, toGatewayError } from '../src/backend/backend-errors.ts';

async function raisedInMigrations(): Promise<Array<{ code: string; sqlstate: string; file: string }>> {
  const dir = path.join(repoRoot, 'supabase', 'migrations');
  const raised: Array<{ code: string; sqlstate: string; file: string }> = [];
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.sql'))) {
    const sql = await readFile(path.join(dir, file), 'utf8');
    for (const match of sql.matchAll(/raise\s+exception\s+'([a-z_]+)'\s+using\s+errcode\s*=\s*'(P0\d{3})'/gi)) {
      raised.push({ code: match[1] as string, sqlstate: match[2] as string, file });
    }
  }
  return raised;
}

describe('codes the database raises', () => {
  it('maps every code any migration raises, to a 4xx named after it', async () => {
    const raised = await raisedInMigrations();
    expect(raised.length).toBeGreaterThan(40);
    for (const { code, sqlstate, file } of raised) {
      expect(DATABASE_RAISED_CODES[code], `${code} (${sqlstate}) raised in ${file} has no mapping`).toBeDefined();
      const mapped = toGatewayError(new BackendError(400, sqlstate, code, 'a hint'));
      expect(mapped.statusCode, code).toBeGreaterThanOrEqual(400);
      expect(mapped.statusCode, code).toBeLessThan(500);
      expect(mapped.details.backend_code).toBe(sqlstate);
    }
  });

  it('answers a taken handle with 409 handle_taken and the hint as the sentence', () => {
    const mapped = toGatewayError(new BackendError(400, 'P0011', 'handle_taken', 'choose another handle'));
    expect(mapped).toMatchObject({ statusCode: 409, code: 'handle_taken', message: 'Choose another handle.' });
  });

  it('keeps a P0 raise it does not know yet a client error', () => {
    for (const sqlstate of ['P0001', 'P0002', 'P0003', 'P0099']) {
      expect(toGatewayError(new BackendError(400, sqlstate, 'something_new', null)).statusCode).toBeLessThan(500);
    }
  });
});

describe('SQLSTATE classes and HTTP statuses', () => {
  it.each([
    ['22001', 400, 'invalid_value'],
    ['22P02', 400, 'invalid_value'],
    ['22P05', 400, 'invalid_value'],
    ['23502', 400, 'invalid_value'],
    ['23514', 400, 'invalid_value'],
    ['23505', 409, 'conflict'],
    ['23503', 409, 'conflict'],
    ['42501', 403, 'forbidden'],
    ['PGRST116', 404, 'not_found'],
    ['PGRST301', 401, 'invalid_token'],
    ['email_exists', 409, 'email_taken'],
    ['invalid_credentials', 401, 'invalid_credentials'],
    ['weak_password', 400, 'weak_password'],
    ['request_too_large', 413, 'payload_too_large'],
    ['over_request_rate_limit', 429, 'rate_limited'],
  ])('%s is %i %s', (code, status, error) => {
    const mapped = toGatewayError(new BackendError(400, code, 'from the backend'));
    expect([mapped.statusCode, mapped.code]).toEqual([status, error]);
  });

  it('never answers 5xx for a backend 4xx, whatever its code', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 400, max: 499 }),
        fc.string({ maxLength: 12 }),
        fc.string(),
        (status, code, message) => {
          const mapped = toGatewayError(new BackendError(status, code, message));
          const unreachable =
            [
              'backend_unavailable',
              'backend_timeout',
              'backend_schema_missing',
              'service_key_missing',
              'request_timeout',
            ].includes(code) ||
            code === 'PGRST202' ||
            code === 'PGRST205' ||
            code === '42883' ||
            code === '42P01';
          if (!unreachable) expect(mapped.statusCode).toBeLessThan(500);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('answers 502 for a backend 5xx that names no client error, never 500', () => {
    fc.assert(
      fc.property(fc.integer({ min: 500, max: 599 }), (status) => {
        const mapped = toGatewayError(new BackendError(status, `http_${status}`, 'boom'));
        expect(mapped.statusCode).toBe(status === 504 ? 504 : 502);
      }),
    );
  });
});
