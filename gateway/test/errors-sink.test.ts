import { mkdir, readdir, readFile, rm, stat, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_ERRORS_LOG, ERRORS_BODY_LIMIT } from '../src/routes/errors-sink.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;
let baseUrl: string;
let logFile: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  logFile = path.join(gateway.logDir, BROWSER_ERRORS_LOG);
});
afterAll(() => gateway.close());

/** A JSON report whose serialised size is exactly `bytes`. */
function reportOfSize(bytes: number): string {
  const skeleton = JSON.stringify({ message: '' });
  return JSON.stringify({ message: 'x'.repeat(bytes - skeleton.length) });
}

async function readLines(): Promise<string[]> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean);
}

describe('POST /__errors', () => {
  it('refuses 1 MB + 1 byte with 413 over a real socket and writes nothing', async () => {
    const body = reportOfSize(ERRORS_BODY_LIMIT + 1);
    expect(Buffer.byteLength(body)).toBe(1024 * 1024 + 1);
    const response = await fetch(`${baseUrl}/__errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
    await expect(stat(logFile)).rejects.toThrow();
  });

  it('accepts exactly 1 MB and appends it as one JSON line', async () => {
    const body = reportOfSize(ERRORS_BODY_LIMIT);
    const response = await fetch(`${baseUrl}/__errors`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(202);
    const lines = await readLines();
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0] ?? '');
    expect(entry.report.message).toHaveLength(ERRORS_BODY_LIMIT - JSON.stringify({ message: '' }).length);
    expect(entry).toHaveProperty('received_at');
  });

  it('keeps 40 concurrent 64 KB reports on 40 whole lines', async () => {
    const before = (await readLines()).length;
    await Promise.all(
      Array.from({ length: 40 }, (_, index) =>
        fetch(`${baseUrl}/__errors`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ index, stack: String(index % 10).repeat(64 * 1024) }),
        }),
      ),
    );
    const lines = (await readLines()).slice(before);
    expect(lines).toHaveLength(40);
    const indexes = lines.map((line) => {
      const { report } = JSON.parse(line);
      expect(report.stack).toBe(String(report.index % 10).repeat(64 * 1024));
      return report.index;
    });
    expect(new Set(indexes).size).toBe(40);
  });

  it('accepts a sendBeacon text/plain report', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: '/__errors',
      headers: { 'content-type': 'text/plain' },
      payload: '{"message":"beacon"}',
    });
    expect(response.statusCode).toBe(202);
    expect((await readLines()).at(-1)).toContain('"beacon"');
  });

  it('refuses a body that is not a JSON object with the JSON error body', async () => {
    for (const payload of ['[1,2]', '"text"', '{not json']) {
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__errors',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error).toMatch(/invalid_(request|json)/);
    }
  });
});

describe('a neighbour filling the disk', () => {
  it('limits reports per address: the 6th within the window is 429 and writes nothing', async () => {
    const limited = await startTestGateway({ rateLimits: { errorReports: { max: 5, windowMs: 60_000 } } });
    try {
      const report = (remoteAddress: string, index: number) =>
        limited.app.inject({
          method: 'POST',
          url: '/__errors',
          remoteAddress,
          payload: { message: `report ${index}` },
        });
      for (let index = 1; index <= 5; index++) expect((await report('192.168.1.30', index)).statusCode).toBe(202);
      const sixth = await report('192.168.1.30', 6);
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json()).toMatchObject({ error: 'rate_limited', limit: 5 });
      expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
      // The same spelled differently is the same budget.
      expect(
        (await limited.app.inject({ method: 'POST', url: '/__ERRORS', remoteAddress: '192.168.1.30', payload: {} }))
          .statusCode,
      ).toBeGreaterThanOrEqual(400);
      expect((await report('192.168.1.31', 7)).statusCode).toBe(202);
      const text = await readFile(path.join(limited.logDir, BROWSER_ERRORS_LOG), 'utf8');
      expect(text).not.toContain('report 6');
      expect(text.trim().split('\n')).toHaveLength(6);
    } finally {
      await limited.close();
    }
  });

  it('rotates the log by size and keeps only a few old files, every line whole', async () => {
    const rotating = await startTestGateway({
      errorLog: { maxBytes: 20_000, keepFiles: 2 },
      rateLimits: { errorReports: { max: 1_000, windowMs: 60_000 } },
    });
    try {
      for (let index = 0; index < 120; index++) {
        const response = await rotating.app.inject({
          method: 'POST',
          url: '/__errors',
          payload: { index, stack: 's'.repeat(1_000) },
        });
        expect(response.statusCode).toBe(202);
      }
      const file = path.join(rotating.logDir, BROWSER_ERRORS_LOG);
      const names = (await readdir(rotating.logDir)).filter((name) => name.startsWith(BROWSER_ERRORS_LOG)).sort();
      expect(names).toEqual([BROWSER_ERRORS_LOG, `${BROWSER_ERRORS_LOG}.1`, `${BROWSER_ERRORS_LOG}.2`]);
      let kept: number[] = [];
      for (const name of [`${BROWSER_ERRORS_LOG}.2`, `${BROWSER_ERRORS_LOG}.1`, BROWSER_ERRORS_LOG]) {
        const info = await stat(path.join(rotating.logDir, name));
        expect(info.size, name).toBeLessThanOrEqual(20_000);
        const lines = (await readFile(path.join(rotating.logDir, name), 'utf8')).trim().split('\n');
        kept = kept.concat(lines.map((line) => JSON.parse(line).report.index));
      }
      // The newest reports survive, in order, with no gap: the oldest ones were dropped whole.
      expect(kept.at(-1)).toBe(119);
      expect(kept).toEqual(Array.from({ length: kept.length }, (_, offset) => 120 - kept.length + offset));
      expect((await stat(file)).size).toBeGreaterThan(0);
    } finally {
      await rotating.close();
    }
  });

  it('keeps serving when the log cannot be written (ENOSPC), answers 503, and logs the failure once', async () => {
    const logLines: string[] = [];
    const full = await startTestGateway({
      logger: { level: 'info', stream: { write: (line: string) => logLines.push(line) } },
      rateLimits: { errorReports: { max: 1_000, windowMs: 60_000 } },
    });
    try {
      const file = path.join(full.logDir, BROWSER_ERRORS_LOG);
      await mkdir(full.logDir, { recursive: true });
      await symlink('/dev/full', file); // every write to /dev/full fails with ENOSPC
      for (let attempt = 0; attempt < 3; attempt++) {
        const response = await full.app.inject({
          method: 'POST',
          url: '/__errors',
          payload: { message: `lost ${attempt}` },
        });
        expect(response.statusCode).toBe(503);
        expect(response.json()).toMatchObject({ error: 'error_log_unavailable' });
      }
      expect((await full.app.inject({ url: '/api/version' })).statusCode).toBe(200);
      const failures = logLines.filter((line) => line.includes('cannot write browser-errors.log'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain('ENOSPC');
      // Space again: reports are kept, and the recovery is logged.
      await rm(file);
      expect(
        (await full.app.inject({ method: 'POST', url: '/__errors', payload: { message: 'kept' } })).statusCode,
      ).toBe(202);
      expect(await readFile(file, 'utf8')).toContain('"kept"');
      expect(logLines.some((line) => line.includes('writable again'))).toBe(true);
    } finally {
      await full.close();
    }
  });
});
