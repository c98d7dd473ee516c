// auth.users and auth.identities as GoTrue writes them, and the User object GoTrue answers with.
// Everything here runs as the database owner, like GoTrue's own connection.
import { randomBytes, randomUUID } from 'node:crypto';
import bcrypt from 'bcryptjs';
import type pg from 'pg';

/** GoTrue's default cost; bcrypt reads at most 72 bytes, which is why passwords stop there. */
export const BCRYPT_COST = 10;
/** bcrypt's least cost: for a server whose passwords are throwaway (LocalbaseOptions.passwordHashCost). */
export const BCRYPT_MIN_COST = 4;
const BCRYPT_MAX_COST = 31;
const INSTANCE_ID = '00000000-0000-0000-0000-000000000000';

export interface NewUser {
  email: string;
  userMetadata: Record<string, unknown>;
  appMetadata: Record<string, unknown>;
  confirmed: boolean;
}

export interface UserRow {
  id: string;
  /** Null for an anonymous user. */
  email: string | null;
  encrypted_password: string | null;
  /** banned_until is in the future. */
  banned: boolean;
  confirmed: boolean;
  is_anonymous: boolean;
  user: Record<string, unknown>;
}

// The User JSON is built by Postgres from the row, so timestamps keep GoTrue's ISO format.
const USER_JSON = `json_build_object(
    'id', u.id, 'aud', u.aud, 'role', u.role, 'email', coalesce(u.email, ''),
    'email_confirmed_at', u.email_confirmed_at, 'phone', coalesce(u.phone, ''),
    'confirmed_at', u.confirmed_at, 'last_sign_in_at', u.last_sign_in_at,
    'app_metadata', coalesce(u.raw_app_meta_data, '{}'::jsonb),
    'user_metadata', coalesce(u.raw_user_meta_data, '{}'::jsonb),
    'identities', coalesce((select json_agg(json_build_object(
        'identity_id', i.id, 'id', i.provider_id, 'user_id', i.user_id,
        'identity_data', i.identity_data, 'provider', i.provider, 'email', i.email,
        'last_sign_in_at', i.last_sign_in_at, 'created_at', i.created_at, 'updated_at', i.updated_at)
        order by i.created_at)
      from auth.identities i where i.user_id = u.id), '[]'::json),
    'created_at', u.created_at, 'updated_at', u.updated_at, 'is_anonymous', u.is_anonymous)::jsonb
  || jsonb_strip_nulls(jsonb_build_object('new_email', nullif(u.email_change, ''),
    'email_change_sent_at', u.email_change_sent_at, 'banned_until', u.banned_until, 'invited_at', u.invited_at))
  || coalesce((select jsonb_build_object('factors', jsonb_agg(jsonb_build_object(
        'id', f.id, 'friendly_name', f.friendly_name, 'factor_type', f.factor_type, 'status', f.status,
        'created_at', f.created_at, 'updated_at', f.updated_at, 'last_challenged_at', f.last_challenged_at)
        order by f.created_at, f.id))
      from _localbase.mfa_factors f where f.user_id = u.id having count(*) > 0), '{}'::jsonb)`;

const USER_SELECT = `select u.id, u.email, u.encrypted_password, u.is_anonymous, coalesce(u.banned_until > now(), false) as banned,
  u.email_confirmed_at is not null as confirmed, ${USER_JSON} as "user" from auth.users u`;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** A stored hash bcrypt can check: `$2a$`/`$2b$`/`$2y$`, a two-digit cost, 53 characters of salt and digest. */
const BCRYPT_HASH = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

/**
 * A bcrypt hash of a password nobody knows (a random one, never kept), at the cost real passwords
 * are hashed with: comparing against it costs what comparing against a user's hash costs, since
 * bcrypt's work depends on the cost alone. A constant rather than made at start, where it was
 * 70-150 ms of the server's thread in every start; knowing it tells nothing, and a match against it
 * never counts (PasswordHashing.matches).
 */
const DUMMY_PASSWORD_HASH = `$2b$${String(BCRYPT_COST).padStart(2, '0')}$DusoEGaXtojQbJMyA5u78Oa2mRw4cMsmAXeX/FuUUwd8YbF6pYPGW`;

/** How a server hashes and checks passwords, at one bcrypt cost. */
export interface PasswordHashing {
  readonly cost: number;
  hash(password: string): Promise<string>;
  /**
   * Whether `password` is the account's. Always one bcrypt comparison of this cost, whether or not
   * there is an account (`hash` undefined: no user with that e-mail, or a deleted one) or it has a
   * password (null: created without one) or a hash bcrypt can read: the time a wrong password takes
   * must not tell whether the e-mail is registered. Only a real hash can match.
   */
  matches(password: string, hash: string | null | undefined): Promise<boolean>;
  /** The hash a password is compared with when there is no usable one. */
  readonly dummyHash: string;
}

export function passwordHashing(cost: number = BCRYPT_COST): PasswordHashing {
  if (!Number.isInteger(cost) || cost < BCRYPT_MIN_COST || cost > BCRYPT_MAX_COST)
    throw new Error(
      `passwordHashCost must be a whole number from ${BCRYPT_MIN_COST} to ${BCRYPT_MAX_COST}, not ${cost}`,
    );
  // At another cost than GoTrue's the dummy is made once here: at the least cost that is about a
  // millisecond, and only a server with throwaway passwords runs at it.
  const dummyHash =
    cost === BCRYPT_COST ? DUMMY_PASSWORD_HASH : bcrypt.hashSync(randomBytes(24).toString('base64'), cost);
  return {
    cost,
    dummyHash,
    hash: (password) => bcrypt.hash(password, cost),
    async matches(password, hash) {
      const usable = typeof hash === 'string' && BCRYPT_HASH.test(hash);
      const matches = await bcrypt.compare(password, usable ? hash : dummyHash);
      return usable && matches;
    },
  };
}

/** Inserts the user and its e-mail identity; a duplicate e-mail surfaces as 23505 for the caller. */
export async function insertUser(client: pg.PoolClient, user: NewUser, passwordHash: string | null): Promise<string> {
  const id = randomUUID();
  const appMetadata = { provider: 'email', providers: ['email'], ...user.appMetadata };
  await client.query(
    `insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
       raw_app_meta_data, raw_user_meta_data, created_at, updated_at, is_anonymous, is_sso_user)
     values ($1, $2, 'authenticated', 'authenticated', $3, $4, case when $5 then now() end,
       $6, $7, now(), now(), false, false)`,
    [INSTANCE_ID, id, user.email, passwordHash, user.confirmed, appMetadata, user.userMetadata],
  );
  await client.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     values ($1, $2, $3, 'email', now(), now(), now())`,
    [id, id, { sub: id, email: user.email, email_verified: user.confirmed, phone_verified: false }],
  );
  return id;
}

/**
 * Inserts an anonymous user, as GoTrue's anonymous sign-in does: no e-mail, no password, no
 * identity, `is_anonymous` true and the `anonymous` provider in app_metadata.
 */
export async function insertAnonymousUser(
  client: pg.PoolClient,
  userMetadata: Record<string, unknown>,
): Promise<string> {
  const id = randomUUID();
  await client.query(
    `insert into auth.users (instance_id, id, aud, role, raw_app_meta_data, raw_user_meta_data,
       created_at, updated_at, is_anonymous, is_sso_user)
     values ($1, $2, 'authenticated', 'authenticated', $3, $4, now(), now(), true, false)`,
    [INSTANCE_ID, id, { provider: 'anonymous', providers: ['anonymous'] }, userMetadata],
  );
  return id;
}

export async function findUserByEmail(client: pg.PoolClient, email: string): Promise<UserRow | undefined> {
  const result = await client.query<UserRow>(`${USER_SELECT} where u.email = $1 and u.deleted_at is null`, [email]);
  return result.rows[0];
}

export async function findUserById(client: pg.PoolClient, id: string): Promise<UserRow | undefined> {
  const result = await client.query<UserRow>(`${USER_SELECT} where u.id = $1 and u.deleted_at is null`, [id]);
  return result.rows[0];
}

export async function recordSignIn(client: pg.PoolClient, userId: string): Promise<void> {
  await client.query('update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1', [userId]);
}

export async function setPassword(client: pg.PoolClient, userId: string, passwordHash: string): Promise<void> {
  await client.query('update auth.users set encrypted_password = $2, updated_at = now() where id = $1', [
    userId,
    passwordHash,
  ]);
}

/**
 * Merges top-level keys into raw_user_meta_data (or raw_app_meta_data), as GoTrue does: a key
 * given as null is removed.
 */
export async function mergeMetadata(
  client: pg.PoolClient,
  userId: string,
  column: 'raw_user_meta_data' | 'raw_app_meta_data',
  changes: Record<string, unknown>,
): Promise<void> {
  await client.query(
    `update auth.users set ${column} = (coalesce(${column}, '{}'::jsonb) || $2::jsonb)
       - coalesce((select array_agg(key) from jsonb_each($2::jsonb) where value = 'null'::jsonb), '{}'::text[]),
       updated_at = now()
     where id = $1`,
    [userId, JSON.stringify(changes)],
  );
}

/** Marks the e-mail address confirmed (the first confirmation counts), in the user and its identity. */
export async function confirmEmail(client: pg.PoolClient, userId: string): Promise<void> {
  await client.query(
    `update auth.users set email_confirmed_at = coalesce(email_confirmed_at, now()), updated_at = now() where id = $1`,
    [userId],
  );
  await client.query(
    `update auth.identities set identity_data = identity_data || '{"email_verified": true}'::jsonb, updated_at = now()
     where user_id = $1 and provider = 'email'`,
    [userId],
  );
}

/**
 * Records a pending change of address (shown as `new_email` until it is confirmed), with no
 * confirmation counted yet (GoTrue's email_change_confirm_status).
 */
export async function recordEmailChangeRequest(client: pg.PoolClient, userId: string, newEmail: string): Promise<void> {
  await client.query(
    `update auth.users set email_change = $2, email_change_sent_at = now(), email_change_confirm_status = 0,
       updated_at = now()
     where id = $1`,
    [userId, newEmail],
  );
}

/**
 * Counts the first of the two confirmations of a pending address change; false when one was
 * already counted (this one is then the second). The row lock orders two confirmations at once.
 */
export async function countFirstEmailChangeConfirmation(client: pg.PoolClient, userId: string): Promise<boolean> {
  const counted = await client.query(
    `update auth.users set email_change_confirm_status = 1, updated_at = now()
     where id = $1 and coalesce(email_change_confirm_status, 0) = 0`,
    [userId],
  );
  return (counted.rowCount ?? 0) > 0;
}

/** The users waiting to change their address to `email` (its code is checked against each). */
export async function findUsersByPendingEmail(client: pg.PoolClient, email: string): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `select id from auth.users where email_change = $1 and deleted_at is null order by email_change_sent_at desc`,
    [email],
  );
  return rows.map((row) => row.id);
}

/**
 * Switches the account to `email` (confirmed); a taken address surfaces as 23505 for the caller.
 * An anonymous user who gets an address this way becomes a permanent one, with an e-mail identity
 * (GoTrue's email change verification).
 */
export async function changeEmail(client: pg.PoolClient, userId: string, email: string): Promise<void> {
  await client.query(
    `update auth.users set email = $2, email_change = '', email_change_sent_at = null, email_change_confirm_status = 0,
       email_confirmed_at = now(), is_anonymous = false, updated_at = now()
     where id = $1`,
    [userId, email],
  );
  const updated = await client.query(
    `update auth.identities
     set identity_data = identity_data || jsonb_build_object('email', $2::text, 'email_verified', true), updated_at = now()
     where user_id = $1 and provider = 'email'`,
    [userId, email],
  );
  if ((updated.rowCount ?? 0) > 0) return;
  await client.query(
    `insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
     values ($1, $2, $3, 'email', now(), now(), now())`,
    [userId, userId, { sub: userId, email, email_verified: true, phone_verified: false }],
  );
  // app_metadata.providers lists the user's identities' providers, as GoTrue recomputes it.
  await client.query(
    `update auth.users set raw_app_meta_data = coalesce(raw_app_meta_data, '{}'::jsonb)
       || jsonb_build_object('providers', (select jsonb_agg(distinct provider) from auth.identities where user_id = $1))
     where id = $1`,
    [userId],
  );
}

/** Bans until `now() + seconds` (null: lifts the ban). */
export async function setBan(client: pg.PoolClient, userId: string, seconds: number | null): Promise<void> {
  await client.query(
    `update auth.users set banned_until = case when $2::double precision is null then null
       else now() + make_interval(secs => $2::double precision) end, updated_at = now()
     where id = $1`,
    [userId, seconds],
  );
}

export async function listUsers(
  client: pg.PoolClient,
  page: number,
  perPage: number,
): Promise<{ users: Record<string, unknown>[]; total: number }> {
  const total = await client.query<{ total: number }>(
    'select count(*)::integer as total from auth.users where deleted_at is null',
  );
  const rows = await client.query<{ user: Record<string, unknown> }>(
    `${USER_SELECT} where u.deleted_at is null order by u.created_at desc, u.id desc limit $1 offset $2`,
    [perPage, (page - 1) * perPage],
  );
  return { users: rows.rows.map((row) => row.user), total: total.rows[0]?.total ?? 0 };
}

/** Records that the user was invited (GoTrue's invited_at, shown in the User JSON). */
export async function markInvited(client: pg.PoolClient, userId: string): Promise<void> {
  await client.query('update auth.users set invited_at = now(), updated_at = now() where id = $1', [userId]);
}

/** Deletes the user; sessions, refresh tokens and identities go with it (on delete cascade). */
export async function deleteUser(client: pg.PoolClient, id: string): Promise<boolean> {
  const result = await client.query('delete from auth.users where id = $1', [id]);
  return (result.rowCount ?? 0) > 0;
}
