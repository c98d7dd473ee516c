// Every route the gateway adds declares its contract (gateway/src/route-schemas.ts): a schema for
// each part of the request it takes (a body for methods that carry one, the parameters of a path
// with `:name` or `*`) and its answers. A route that answers no JSON declares its content type or,
// when it is the backend proxy, is hidden from the OpenAPI document on purpose. The first block
// proves the check can fail; the second runs it over a gateway built as the other tests build it.
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { installErrorHandling } from '#gateway/src/error-handler.ts';
import { installOpenApi, type DeclaredRoute } from '#gateway/src/openapi/openapi-routes.ts';
import { withErrorBody } from '#gateway/src/route-schemas.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** What a route leaves undeclared, one line per route: empty when its contract is whole. */
function undeclared(routes: DeclaredRoute[]): string[] {
  const problems: string[] = [];
  for (const { method, url, schema } of routes) {
    const missing: string[] = [];
    if (!schema?.response && !schema?.hide) missing.push('response');
    if (BODY_METHODS.has(method) && !schema?.body && !schema?.hide) missing.push('body');
    if (/[:*]/.test(url) && !schema?.params) missing.push('params');
    if (missing.length) problems.push(`${method} ${url}: no ${missing.join(', ')} schema`);
  }
  return problems;
}

describe('the route-contract check', () => {
  it('names a route added without schemas, and passes one that declares them', async () => {
    const app = Fastify();
    installErrorHandling(app);
    await installOpenApi(app);
    app.post('/planted/:id', async () => ({ ok: true }));
    app.post(
      '/declared/:id',
      {
        schema: {
          params: z.object({ id: z.string() }),
          body: z.object({ name: z.string() }),
          response: withErrorBody({ 200: z.object({ ok: z.boolean() }) }),
        },
      },
      async () => ({ ok: true }),
    );
    await app.ready();
    expect(undeclared(app.declaredRoutes)).toEqual(['POST /planted/:id: no response, body, params schema']);
    await app.close();
  });
});

describe('every gateway route', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
    await gateway.app.ready();
  });
  afterAll(() => gateway.close());

  it('declares its request and its answers, the admin console included', () => {
    expect(gateway.app.declaredRoutes.length).toBeGreaterThan(60);
    expect(gateway.app.declaredRoutes.filter(({ url }) => url.startsWith('/__admin/')).length).toBeGreaterThan(40);
    expect(undeclared(gateway.app.declaredRoutes)).toEqual([]);
  });
});
