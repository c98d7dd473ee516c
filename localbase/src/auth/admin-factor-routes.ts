// The admin API's MFA factor routes (supabase-js `auth.admin.mfa`), service role only as GoTrue
// guards all of /admin: GET /admin/users/:id/factors lists every factor of the user (verified or
// not), DELETE /admin/users/:id/factors/:factor_id deletes one, whatever the user's own session
// level: it is how a user who lost her authenticator gets back in. As GoTrue does, the sessions
// the factor raised go back to aal1 (their refresh answers an aal1 token); once no verified factor
// is left, a password sign-in is all she needs.
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { withOwnerTransaction } from '../request-transaction.ts';
import type { AuthContext } from './context.ts';
import { AuthError, userNotFound } from './errors.ts';
import { parse } from './input.ts';
import { deleteFactor, findOwnedFactor } from './mfa-factors.ts';
import { downgradeSessionsOfFactor } from './sessions.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const userParams = z.object({ id: z.string() });
const factorParams = z.object({ id: z.string(), factor_id: z.string() });

const factorNotFound = () => new AuthError(404, 'mfa_factor_not_found', 'Factor not found');

/** GoTrue answers a path id that is not a UUID with 404 `validation_failed`. */
function pathUuid(value: string, name: string): string {
  if (!UUID.test(value)) throw new AuthError(404, 'validation_failed', `${name} must be an UUID`);
  return value.toLowerCase();
}

/** A factor as GoTrue serialises it (the same fields as the user's `factors`; never the secret). */
const FACTOR_JSON = `jsonb_build_object('id', f.id, 'friendly_name', f.friendly_name,
  'factor_type', f.factor_type, 'status', f.status, 'created_at', f.created_at,
  'updated_at', f.updated_at, 'last_challenged_at', f.last_challenged_at)`;

async function userExists(client: pg.PoolClient, userId: string): Promise<boolean> {
  const { rowCount } = await client.query('select 1 from auth.users where id = $1', [userId]);
  return rowCount === 1;
}

async function factorsOf(client: pg.PoolClient, userId: string): Promise<unknown[]> {
  const { rows } = await client.query<{ factor: unknown }>(
    `select ${FACTOR_JSON} as factor from _localbase.mfa_factors f where f.user_id = $1 order by f.created_at, f.id`,
    [userId],
  );
  return rows.map((row) => row.factor);
}

async function factorJson(client: pg.PoolClient, factorId: string): Promise<unknown> {
  const { rows } = await client.query<{ factor: unknown }>(
    `select ${FACTOR_JSON} as factor from _localbase.mfa_factors f where f.id = $1`,
    [factorId],
  );
  return rows[0]?.factor;
}

export async function adminFactorRoutes(app: FastifyInstance, context: AuthContext): Promise<void> {
  const { pool } = context;

  app.get('/admin/users/:id/factors', async (request) => {
    await context.requireServiceRole(request);
    const userId = pathUuid(parse(userParams, request.params).id, 'user_id');
    return withOwnerTransaction(pool, async (client) => {
      if (!(await userExists(client, userId))) throw userNotFound();
      return factorsOf(client, userId);
    });
  });

  app.delete('/admin/users/:id/factors/:factor_id', async (request) => {
    await context.requireServiceRole(request);
    const params = parse(factorParams, request.params);
    const userId = pathUuid(params.id, 'user_id');
    return withOwnerTransaction(pool, async (client) => {
      if (!(await userExists(client, userId))) throw userNotFound();
      const factorId = pathUuid(params.factor_id, 'factor_id');
      // Locked: a verification of this factor racing the deletion waits, then finds it gone.
      const factor = await findOwnedFactor(client, userId, factorId, true);
      if (!factor) throw factorNotFound();
      const answer = await factorJson(client, factor.id);
      await downgradeSessionsOfFactor(client, factor.id);
      await deleteFactor(client, factor.id);
      return answer;
    });
  });
}
