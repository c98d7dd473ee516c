// An ADMIN_EMAIL account may also prove its address itself: a session that a link mailed to the
// account's address started (a recovery, magic or invite link, or the link confirming an address
// change) shows that whoever signs in reads that mailbox. The backend names how a session started
// in its access token's `amr`; the token is trusted only after the backend accepted it
// (/auth/v1/user, admin-login.ts).
//
// Why not `email_confirmed_at`: localbase confirms every sign-up at once, and the gateway's own
// sign-up with a service key creates accounts already confirmed on a hosted project too, so it
// proves nothing here. Why only where an address cannot change without its own link: a proof
// holds for the address the link went to, but the token names the account's address now. A hosted
// GoTrue with `mailer_autoconfirm: true` changes an address at once (PUT /user), so a squatter
// could prove her own mailbox, then take the ADMIN_EMAIL address while her session keeps its
// `amr`. localbase always mails the new address first (docs/localbase.md), and so does GoTrue
// with `mailer_autoconfirm: false` (its /auth/v1/settings says which).
//
// Which methods: `recovery`, `invite` and `email_change` are links by mail only. `otp` is also
// a magic link or an e-mail code, but on GoTrue it is an SMS code as well (phone sign-in), so it
// counts only on localbase, which has no phone sign-in.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';

const MAIL_ONLY_METHODS: ReadonlySet<string> = new Set(['recovery', 'invite', 'email_change']);
const LOCALBASE_MAIL_METHODS: ReadonlySet<string> = new Set([...MAIL_ONLY_METHODS, 'otp', 'magiclink']);

const amrClaims = z.object({ amr: z.array(z.object({ method: z.string() }).loose()).optional() }).loose();

/** The `amr` methods of an access token the backend has already accepted (its payload, not re-verified). */
export function sessionMethods(accessToken: string): string[] {
  const payload = accessToken.split('.')[1];
  if (!payload) return [];
  try {
    const claims = amrClaims.safeParse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
    return claims.success ? (claims.data.amr ?? []).map((entry) => entry.method) : [];
  } catch {
    return [];
  }
}

const authSettings = z.object({ mailer_autoconfirm: z.boolean().optional() }).loose();

/** Whether an account's address changes only once a link mailed to the new address is followed. */
export async function addressChangeNeedsMail(backend: BackendClient, embedded: boolean): Promise<boolean> {
  if (embedded) return true;
  let body: unknown;
  try {
    body = (await backend.request('/auth/v1/settings', { method: 'GET', credential: { anon: true } })).body;
  } catch (error) {
    // A backend that cannot say counts as one that changes addresses at once: the owner's
    // confirmation on the Roles page still works.
    if (error instanceof BackendError) return false;
    throw error;
  }
  const settings = authSettings.safeParse(body);
  return settings.success && settings.data.mailer_autoconfirm === false;
}

/**
 * The method by which this session proves the account's current address, or undefined when it
 * does not (a password or refresh-only session, a backend where addresses change at once).
 */
export async function mailboxProof(
  backend: BackendClient,
  accessToken: string,
  embedded: boolean,
): Promise<string | undefined> {
  const accepted = embedded ? LOCALBASE_MAIL_METHODS : MAIL_ONLY_METHODS;
  const method = sessionMethods(accessToken).find((name) => accepted.has(name));
  if (method === undefined) return undefined;
  return (await addressChangeNeedsMail(backend, embedded)) ? method : undefined;
}
