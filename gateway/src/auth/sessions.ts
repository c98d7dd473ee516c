// The auth calls behind signup, login and check: GoTrue's endpoints, with the session validated.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { GatewayError } from '../http-errors.ts';
import type { Credentials } from './credentials.ts';

export const sessionSchema = z
  .object({
    access_token: z.string().min(1),
    refresh_token: z.string().min(1),
    expires_in: z.number(),
    expires_at: z.number().optional(),
    token_type: z.string(),
    user: z.object({ id: z.string(), email: z.string().optional() }).loose(),
  })
  .loose();

export type Session = z.infer<typeof sessionSchema>;

export async function passwordGrant(backend: BackendClient, credentials: Credentials): Promise<Session> {
  try {
    const { body } = await backend.request('/auth/v1/token?grant_type=password', {
      credential: { anon: true },
      body: { email: credentials.username, password: credentials.password },
    });
    return sessionSchema.parse(body);
  } catch (error) {
    if (error instanceof BackendError && (error.code === 'invalid_credentials' || error.code === 'invalid_grant' || error.status === 400)) {
      throw new GatewayError(401, 'invalid_credentials', 'The e-mail or password is wrong.');
    }
    throw error;
  }
}

/**
 * Creates the account. With the service key the admin API creates it already confirmed (a local
 * server has no mailbox to confirm from); without it the public signup is used, and a project that
 * requires e-mail confirmation answers without a session.
 */
export async function createAccount(backend: BackendClient, credentials: Credentials): Promise<Session | null> {
  try {
    if (backend.hasServiceRole) {
      await backend.request('/auth/v1/admin/users', {
        credential: { serviceRole: true },
        body: { email: credentials.username, password: credentials.password, email_confirm: true },
      });
      return passwordGrant(backend, credentials);
    }
    const { body } = await backend.request('/auth/v1/signup', {
      credential: { anon: true },
      body: { email: credentials.username, password: credentials.password },
    });
    const session = sessionSchema.safeParse(body);
    return session.success ? session.data : null;
  } catch (error) {
    if (error instanceof BackendError && ['email_exists', 'user_already_exists'].includes(error.code)) {
      throw new GatewayError(409, 'email_taken', 'An account with this e-mail already exists; log in instead.');
    }
    if (error instanceof BackendError && error.code === 'weak_password') {
      throw new GatewayError(400, 'weak_password', error.message);
    }
    throw error;
  }
}

const adminUserPage = z.object({ users: z.array(z.object({ email: z.string().nullish() }).loose()) }).loose();

/** Whether an e-mail is registered, asked of the admin API (never by trying a password). */
export async function isEmailRegistered(backend: BackendClient, email: string): Promise<boolean> {
  const perPage = 1000;
  for (let page = 1; ; page++) {
    const { body } = await backend.request(`/auth/v1/admin/users?page=${page}&per_page=${perPage}`, { credential: { serviceRole: true } });
    const { users } = adminUserPage.parse(body);
    if (users.some((user) => user.email?.toLowerCase() === email)) return true;
    if (users.length < perPage) return false;
  }
}
