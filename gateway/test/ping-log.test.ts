// The app's liveness ping (every 2-3 s per open tab) answers without a request log line; other
// routes still log theirs.
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { installErrorHandling } from '../src/error-handler.ts';
import smallRoutes from '../src/routes/small-routes.ts';

describe('GET /__app/ping', () => {
  it('answers and writes no info line to the log, while /api/version does', async () => {
    const lines: { msg?: string; req?: { url?: string }; reqId?: string }[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = Fastify({ logger: { level: 'info', stream } });
    // The routes declare zod schemas: the gateway's compilers read them, as buildGateway sets them.
    installErrorHandling(app);
    await app.register(smallRoutes, { repoDir: process.cwd(), ai: { openai: false, gemini: false } });
    const ping = await app.inject({ url: '/__app/ping' });
    expect(ping.statusCode).toBe(200);
    expect(ping.json()).toMatchObject({ ok: true });
    expect(lines.filter((line) => line.msg === 'incoming request' || line.msg === 'request completed')).toEqual([]);

    await app.inject({ url: '/api/version' });
    expect(lines.some((line) => line.msg === 'incoming request' && line.req?.url === '/api/version')).toBe(true);
    await app.close();
  });
});
