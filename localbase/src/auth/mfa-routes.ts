// Multi-factor authentication with TOTP, in GoTrue's shapes: POST /factors (enroll), POST
// /factors/:id/challenge, POST /factors/:id/verify (answers a new aal2 session) and DELETE
// /factors/:id. Phone and WebAuthn factors answer GoTrue's "enroll is disabled" refusals.
//
// A code is accepted in the current 30-second step or one either side (GoTrue's skew of 1), and
// once: the step of the last accepted code is kept with the factor, and a code of that step or an
// earlier one is refused, so a code seen over a shoulder or in a log cannot be replayed within its
// 90 seconds of validity. The factor row is locked while a code is checked, so two verifications
// racing with one code cannot both pass.
import type { FastifyInstance } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { renderSVG } from 'uqr';
import { z } from 'zod';
import { withOwnerTransaction } from '../request-transaction.ts';
import type { AuthContext, SignedInCaller } from './context.ts';
import { AuthError, userNotFound, validationFailed } from './errors.ts';
import { parse } from './input.ts';
import {
  acceptCode,
  createChallenge,
  deleteChallenge,
  deleteFactor,
  findChallenge,
  findOwnedFactor,
  insertTotpFactor,
  lockFactors,
  MAX_FACTORS,
  type FactorRow,
} from './mfa-factors.ts';
import {
  buildSession,
  downgradeSessionsOfFactor,
  endSessionsBelowAal2,
  recordSessionMethod,
  reissueRefreshToken,
  sessionAssurance,
  sessionIsAal2,
} from './sessions.ts';
import { findUserById } from './users.ts';

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
/** pquerna/otp's default secret size, which GoTrue uses: 20 bytes, 32 base32 characters. */
const TOTP_SECRET_BYTES = 20;

const enrollBody = z
  .object({
    factor_type: z.string().optional(),
    friendly_name: z.string().max(255).optional(),
    issuer: z.string().max(255).optional(),
  })
  .passthrough();
const verifyBody = z.object({ challenge_id: z.string().optional(), code: z.string().optional() }).passthrough();
const factorParams = z.object({ id: z.string() });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const factorNotFound = () => new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
const insufficientAal = (status: number, message: string) => new AuthError(status, 'insufficient_aal', message);
const verificationFailed = () => new AuthError(422, 'mfa_verification_failed', 'Invalid TOTP code entered');

function totpOf(secret: string, issuer: string, label: string): TOTP {
  return new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
}

/** The 30-second step the code belongs to (now or one either side), or undefined when it is wrong. */
function stepOfCode(secret: string, code: string, now: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const totp = totpOf(secret, '', '');
  const delta = totp.validate({ token: code, timestamp: now, window: 1 });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}

export async function mfaRoutes(app: FastifyInstance, context: AuthContext): Promise<void> {
  const { pool } = context;

  /** The signed-in caller, unless anonymous: anonymous users cannot have factors (GoTrue). */
  async function permanentUser(request: Parameters<AuthContext['signedInUser']>[0]): Promise<SignedInCaller> {
    const caller = await context.signedInUser(request);
    if (caller.claims.is_anonymous === true) {
      throw new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions');
    }
    return caller;
  }

  function factorId(params: unknown): string {
    const { id } = parse(factorParams, params);
    if (!UUID.test(id)) throw new AuthError(404, 'validation_failed', 'factor_id must be an UUID');
    return id.toLowerCase();
  }

  app.post('/factors', async (request) => {
    const caller = await permanentUser(request);
    const body = parse(enrollBody, request.body);
    if (body.factor_type === 'phone') {
      throw new AuthError(422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
    }
    if (body.factor_type === 'webauthn') {
      throw new AuthError(422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
    }
    if (body.factor_type !== 'totp') throw validationFailed('factor_type needs to be totp, phone, or webauthn');
    const friendlyName = body.friendly_name ?? '';
    if (friendlyName.includes('\u0000')) throw validationFailed('friendly_name must not contain NUL characters');
    const issuer = body.issuer || new URL(context.redirects.siteUrl).host;
    const secret = new Secret({ size: TOTP_SECRET_BYTES }).base32;

    const { id, email } = await withOwnerTransaction(pool, async (client) => {
      const user = await findUserById(client, caller.userId);
      if (!user) throw userNotFound();
      const factors = await lockFactors(client, caller.userId);
      if (factors.some((factor) => (factor.friendly_name ?? '') === friendlyName)) {
        throw new AuthError(
          422,
          'mfa_factor_name_conflict',
          `A factor with the friendly name ${JSON.stringify(friendlyName)} for this user already exists`,
        );
      }
      const verified = factors.filter((factor) => factor.status === 'verified').length;
      if (factors.length >= MAX_FACTORS || verified >= MAX_FACTORS) {
        throw new AuthError(
          422,
          'too_many_enrolled_mfa_factors',
          'Maximum number of verified factors reached, unenroll to continue',
        );
      }
      if (verified > 0 && !(await sessionIsAal2(client, caller.sessionId))) {
        throw insufficientAal(403, 'AAL2 required to enroll a new factor');
      }
      return { id: await insertTotpFactor(client, caller.userId, friendlyName, secret), email: user.email ?? '' };
    });
    const uri = totpOf(secret, issuer, email).toString();
    return {
      id,
      type: 'totp',
      friendly_name: friendlyName,
      totp: { qr_code: renderSVG(uri), secret, uri },
    };
  });

  app.post('/factors/:id/challenge', async (request) => {
    const caller = await permanentUser(request);
    const id = factorId(request.params);
    return withOwnerTransaction(pool, async (client) => {
      const factor = await findOwnedFactor(client, caller.userId, id);
      if (!factor) throw factorNotFound();
      const challenge = await createChallenge(client, factor.id);
      return { id: challenge.id, type: factor.factor_type, expires_at: challenge.expiresAt };
    });
  });

  app.post('/factors/:id/verify', async (request) => {
    const caller = await permanentUser(request);
    const id = factorId(request.params);
    const body = parse(verifyBody, request.body);
    if (!body.code) throw validationFailed('Code needs to be non-empty');
    const code = body.code;
    const challengeId = body.challenge_id ?? '';
    // An expired challenge is deleted, and that must commit: the refusal is thrown after it.
    const outcome = await withOwnerTransaction(pool, async (client) => {
      const factor: FactorRow | undefined = await findOwnedFactor(client, caller.userId, id, true);
      if (!factor) throw factorNotFound();
      const challenge = UUID.test(challengeId) ? await findChallenge(client, factor.id, challengeId) : undefined;
      if (!challenge) {
        throw new AuthError(422, 'mfa_factor_not_found', 'MFA factor with the provided challenge ID not found');
      }
      // GoTrue answers a spent challenge with this code and message (it compares IP addresses there too).
      if (challenge.verified) {
        throw new AuthError(422, 'mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.');
      }
      if (challenge.expired) {
        await deleteChallenge(client, challenge.id);
        return { expired: challenge.id } as const;
      }
      const step = stepOfCode(factor.secret, code, Date.now());
      if (step === undefined || (factor.last_step !== null && step <= factor.last_step)) throw verificationFailed();
      await acceptCode(client, factor, challenge.id, step);
      await recordSessionMethod(client, caller.sessionId, 'totp', factor.id);
      await endSessionsBelowAal2(client, caller.userId, caller.sessionId);
      const user = await findUserById(client, caller.userId);
      if (!user) throw userNotFound();
      const refreshToken = await reissueRefreshToken(client, caller.userId, caller.sessionId);
      const assurance = await sessionAssurance(client, caller.sessionId);
      return { session: await buildSession(context.signing, user.user, caller.sessionId, refreshToken, assurance) };
    });
    if ('expired' in outcome) {
      throw new AuthError(
        422,
        'mfa_challenge_expired',
        `MFA challenge ${outcome.expired} has expired, verify against another challenge or create a new challenge.`,
      );
    }
    return outcome.session;
  });

  app.delete('/factors/:id', async (request) => {
    const caller = await permanentUser(request);
    const id = factorId(request.params);
    return withOwnerTransaction(pool, async (client) => {
      const factor = await findOwnedFactor(client, caller.userId, id, true);
      if (!factor) throw factorNotFound();
      if (factor.status === 'verified' && !(await sessionIsAal2(client, caller.sessionId))) {
        throw insufficientAal(422, 'AAL2 required to unenroll verified factor');
      }
      await downgradeSessionsOfFactor(client, factor.id);
      await deleteFactor(client, factor.id);
      return { id: factor.id };
    });
  });
}
