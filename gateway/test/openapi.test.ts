// The OpenAPI document (docs/api.md#the-reference): the committed docs/openapi.json is what the
// routes generate today, it is a valid OpenAPI 3.1 document, the public copy leaves out the admin
// console, and an answer goes out through its route schema (a field the schema does not name is
// dropped, a request that fails the schema is the gateway's own 400).
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installErrorHandling } from '#gateway/src/error-handler.ts';
import { withErrorBody } from '#gateway/src/route-schemas.ts';
import { readCommittedDocument, renderOpenApiDocument } from '#tools/docs/openapi-document.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

describe('docs/openapi.json', () => {
  let generated: string;
  beforeAll(async () => {
    generated = await renderOpenApiDocument();
  });

  it('is what the routes generate (npm run docs:api writes it)', async () => {
    expect(await readCommittedDocument(), 'docs/openapi.json is stale: run npm run docs:api').toBe(generated);
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(JSON.parse(generated));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(JSON.parse(generated).openapi).toBe('3.1.0');
  });
});

describe('GET /api/openapi.json', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(() => gateway.close());

  it('answers the document without the admin console, and without the proxied backend', async () => {
    const response = await gateway.app.inject({ url: '/api/openapi.json' });
    expect(response.statusCode).toBe(200);
    const paths = Object.keys(response.json().paths);
    expect(paths).toContain('/__auth/login');
    expect(paths).toContain('/api/health');
    expect(paths.filter((route) => route.startsWith('/__admin'))).toEqual([]);
    expect(paths.filter((route) => route.startsWith('/__backend'))).toEqual([]);
  });

  it('keeps the whole document, admin routes included, behind the console sign-in', async () => {
    const response = await gateway.app.inject({
      url: '/__admin/openapi.json',
      headers: { accept: 'application/json' },
    });
    // The console's gate answers first: here admin mode is off, so nobody gets past it.
    expect(response.statusCode).toBe(403);
    expect(response.json().error).toBe('admin_mode_not_ready');
    expect(response.body).not.toContain('/__admin/users');
  });
});

describe('an answer and a request through the route schemas', () => {
  const answer = z.object({ ok: z.literal(true) });
  const routes: FastifyPluginAsyncZod = async (app) => {
    // The handler hands back more than its schema names, as a mistake would.
    app.get('/leaky', { schema: { response: withErrorBody({ 200: answer }) } }, async () => {
      const internal = { ok: true as const, password_hash: 'not for the wire' };
      return internal;
    });
    app.post(
      '/strict',
      { schema: { body: z.object({ name: z.string().min(3) }), response: withErrorBody({ 200: answer }) } },
      async () => ({ ok: true as const }),
    );
  };

  async function app() {
    const server = Fastify();
    installErrorHandling(server);
    await server.register(routes);
    return server;
  }

  it('drops a field the schema does not name', async () => {
    const server = await app();
    const response = await server.inject({ url: '/leaky' });
    expect(response.json()).toEqual({ ok: true });
    expect(response.body).not.toContain('password_hash');
    await server.close();
  });

  it('refuses a body that fails the schema with the gateway error body, naming the field', async () => {
    const server = await app();
    const response = await server.inject({ method: 'POST', url: '/strict', payload: { name: 'x' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request', problems: [expect.stringMatching(/^name: /)] });
    expect(response.json().message).toMatch(/^name: /);
    await server.close();
  });
});
