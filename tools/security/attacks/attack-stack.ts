// The stack the attack tests replay reported requests against: a localbase (in `npm test`, a
// database of the file's own on the run's PostgreSQL 15) behind a real gateway, students signed
// up through `/__auth/signup`, and raw requests to `/__backend/...` carrying a student's own access token,
// exactly what a student with her token and curl could send.
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';

export interface Student {
  id: string;
  email: string;
  token: string;
}

export interface AttackStack {
  localbase: Localbase;
  gateway: TestGateway;
  /** Signs a student up through the gateway, as the app does. */
  signUp(name: string): Promise<Student>;
  /** A request through the gateway's backend proxy, with the anon key and the student's token. */
  backend(
    student: Student | null,
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** A gateway route with the student's token. */
  route(student: Student, method: 'GET' | 'POST', url: string, body?: unknown): Promise<LightMyRequestResponse>;
  /** A query as the database owner, for what the attacker cannot see. */
  owner<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** `passwordHashCost`: bcrypt's cost in localbase (the test stacks' least unless given). */
export async function startAttackStack(options: { passwordHashCost?: number } = {}): Promise<AttackStack> {
  const localbase = await startLocalbaseStack(options);
  const gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    ...RELAXED_DEADLINES,
  });
  const backend: AttackStack['backend'] = (student, method, url, body, headers = {}) =>
    gateway.app.inject({
      method: method as 'GET',
      url: `/__backend${url}`,
      headers: {
        apikey: localbase.anonKey,
        ...(student ? { authorization: `Bearer ${student.token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    localbase,
    gateway,
    async signUp(name) {
      const email = `${name}@example.com`;
      const response = await gateway.app.inject({
        method: 'POST',
        url: '/__auth/signup',
        payload: { username: email, password: `${name}-password-1` },
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json();
      return { id: body.user.id, email, token: body.session.access_token };
    },
    backend,
    route: (student, method, url, body) =>
      gateway.app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${student.token}` },
        ...(body === undefined ? {} : { payload: body as object }),
      }),
    owner: async <T>(sql: string, params: unknown[] = []) =>
      (await localbase.database.pool.query(sql, params)).rows as T[],
    close: async () => {
      await gateway.close();
      await localbase.close();
    },
  };
}
