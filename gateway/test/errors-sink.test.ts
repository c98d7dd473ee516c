import { readFile, stat } from 'node:fs/promises';
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
    const response = await fetch(`${baseUrl}/__errors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
    await expect(stat(logFile)).rejects.toThrow();
  });

  it('accepts exactly 1 MB and appends it as one JSON line', async () => {
    const body = reportOfSize(ERRORS_BODY_LIMIT);
    const response = await fetch(`${baseUrl}/__errors`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
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
    const response = await gateway.app.inject({ method: 'POST', url: '/__errors', headers: { 'content-type': 'text/plain' }, payload: '{"message":"beacon"}' });
    expect(response.statusCode).toBe(202);
    expect((await readLines()).at(-1)).toContain('"beacon"');
  });

  it('refuses a body that is not a JSON object with the JSON error body', async () => {
    for (const payload of ['[1,2]', '"text"', '{not json']) {
      const response = await gateway.app.inject({ method: 'POST', url: '/__errors', headers: { 'content-type': 'application/json' }, payload });
      expect(response.statusCode, payload).toBe(400);
      expect(response.json().error).toMatch(/invalid_(request|json)/);
    }
  });
});
