// TOTP factors and their challenges in _localbase.mfa_factors / mfa_challenges (auth-schema.ts),
// with GoTrue's rules: a factor is unverified until a code of it is verified once; a challenge
// lives 300 s and is spent by the one verification that succeeds.
import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/** GoTrue's MFA_CHALLENGE_EXPIRY_DURATION and MFA_FACTOR_EXPIRY_DURATION defaults. */
export const CHALLENGE_LIFETIME_SECONDS = 300;
export const UNVERIFIED_FACTOR_LIFETIME_SECONDS = 300;
/** GoTrue's MFA_MAX_ENROLLED_FACTORS and MFA_MAX_VERIFIED_FACTORS defaults. */
export const MAX_FACTORS = 10;

export interface FactorRow {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: 'totp';
  status: 'unverified' | 'verified';
  secret: string;
  /** The 30-second step of the last code accepted. */
  last_step: number | null;
}

export interface ChallengeRow {
  id: string;
  verified: boolean;
  expired: boolean;
}

export async function hasVerifiedFactor(client: pg.PoolClient, userId: string): Promise<boolean> {
  const { rows } = await client.query<{ found: boolean }>(
    `select exists (select 1 from _localbase.mfa_factors where user_id = $1 and status = 'verified') as found`,
    [userId],
  );
  return rows[0]?.found === true;
}

/**
 * The user's factors after dropping unverified ones older than their lifetime (as GoTrue does before
 * an enrollment), locked: concurrent enrollments of one user queue up behind each other.
 */
export async function lockFactors(
  client: pg.PoolClient,
  userId: string,
): Promise<{ friendly_name: string | null; status: string }[]> {
  await client.query('select 1 from auth.users where id = $1 for update', [userId]);
  await client.query(
    `delete from _localbase.mfa_factors
     where user_id = $1 and status = 'unverified' and created_at < now() - make_interval(secs => $2)`,
    [userId, UNVERIFIED_FACTOR_LIFETIME_SECONDS],
  );
  const { rows } = await client.query<{ friendly_name: string | null; status: string }>(
    'select friendly_name, status from _localbase.mfa_factors where user_id = $1',
    [userId],
  );
  return rows;
}

export async function insertTotpFactor(
  client: pg.PoolClient,
  userId: string,
  friendlyName: string,
  secret: string,
): Promise<string> {
  const id = randomUUID();
  await client.query(
    `insert into _localbase.mfa_factors (id, user_id, friendly_name, factor_type, status, secret)
     values ($1, $2, nullif($3, ''), 'totp', 'unverified', $4)`,
    [id, userId, friendlyName, secret],
  );
  return id;
}

/** The user's factor `factorId`, locked (`forUpdate`) when it is about to be verified or deleted. */
export async function findOwnedFactor(
  client: pg.PoolClient,
  userId: string,
  factorId: string,
  forUpdate = false,
): Promise<FactorRow | undefined> {
  const { rows } = await client.query<FactorRow>(
    `select id, user_id, friendly_name, factor_type, status, secret, last_step::float8 as last_step
     from _localbase.mfa_factors where id = $1 and user_id = $2 ${forUpdate ? 'for update' : ''}`,
    [factorId, userId],
  );
  return rows[0];
}

export async function createChallenge(
  client: pg.PoolClient,
  factorId: string,
): Promise<{ id: string; expiresAt: number }> {
  const id = randomUUID();
  const { rows } = await client.query<{ expires_at: number }>(
    `insert into _localbase.mfa_challenges (id, factor_id) values ($1, $2)
     returning extract(epoch from created_at + make_interval(secs => $3))::bigint::float8 as expires_at`,
    [id, factorId, CHALLENGE_LIFETIME_SECONDS],
  );
  await client.query('update _localbase.mfa_factors set last_challenged_at = now() where id = $1', [factorId]);
  return { id, expiresAt: rows[0]?.expires_at ?? 0 };
}

export async function findChallenge(
  client: pg.PoolClient,
  factorId: string,
  challengeId: string,
): Promise<ChallengeRow | undefined> {
  const { rows } = await client.query<ChallengeRow>(
    `select id, verified_at is not null as verified,
       created_at + make_interval(secs => $3) < now() as expired
     from _localbase.mfa_challenges where id = $1 and factor_id = $2 for update`,
    [challengeId, factorId, CHALLENGE_LIFETIME_SECONDS],
  );
  return rows[0];
}

export async function deleteChallenge(client: pg.PoolClient, challengeId: string): Promise<void> {
  await client.query('delete from _localbase.mfa_challenges where id = $1', [challengeId]);
}

/**
 * Spends the challenge and records the accepted code's step; the factor becomes verified, and the
 * user's other unverified factors go (GoTrue's DeleteUnverifiedFactors).
 */
export async function acceptCode(
  client: pg.PoolClient,
  factor: FactorRow,
  challengeId: string,
  step: number,
): Promise<void> {
  await client.query('update _localbase.mfa_challenges set verified_at = now() where id = $1', [challengeId]);
  await client.query(
    `update _localbase.mfa_factors set status = 'verified', last_step = $2, updated_at = now() where id = $1`,
    [factor.id, step],
  );
  await client.query(
    `delete from _localbase.mfa_factors where user_id = $1 and id <> $2 and status = 'unverified' and factor_type = 'totp'`,
    [factor.user_id, factor.id],
  );
}

export async function deleteFactor(client: pg.PoolClient, factorId: string): Promise<void> {
  await client.query('delete from _localbase.mfa_factors where id = $1', [factorId]);
}
