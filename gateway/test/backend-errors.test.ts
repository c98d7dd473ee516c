// The one place backend failures are mapped (backend-errors.ts): every code in the registry of raised
// codes answers the status the registry gives it, a client error is never a 5xx, and a broken
// backend is never the caller's fault.
import { fc } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RAISED_CODES, type RaisedCode } from '#contracts/raised-codes.ts';
import { BackendError } from '../src/backend/backend-client.ts';
import { toGatewayError } from '../src/backend/backend-errors.ts';

describe('codes the database raises', () => {
  // Which codes exist is tools/contracts/raised-codes.test.ts's to check, against the migrations.
  it('answers every registered code with its status and code, whichever of its SQLSTATEs it came with', () => {
    for (const [code, entry] of Object.entries(RAISED_CODES) as [string, RaisedCode][]) {
      for (const sqlstate of entry.sqlstates) {
        const mapped = toGatewayError(new BackendError(400, sqlstate, code, 'a hint'));
        expect([mapped.statusCode, mapped.code], `${code} (${sqlstate})`).toEqual([
          entry.status,
          entry.gatewayCode ?? code,
        ]);
        expect(mapped.details.backend_code).toBe(sqlstate);
      }
    }
  });

  it('answers a device token the database refused as invalid_device_token, not the 401 invalid_token', () => {
    const mapped = toGatewayError(
      new BackendError(400, 'P0063', 'invalid_token', 'a push token is 1 to 4096 characters'),
    );
    expect(mapped).toMatchObject({ statusCode: 400, code: 'invalid_device_token' });
  });

  it("takes only the registry's own keys for a code, never an inherited name", () => {
    for (const message of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(toGatewayError(new BackendError(400, 'P0001', message, null))).toMatchObject({
        statusCode: 400,
        code: 'rejected',
      });
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
