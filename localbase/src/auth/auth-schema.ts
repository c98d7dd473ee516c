// localbase's own auth tables, beside GoTrue's auth schema (which stays as the bundles create it):
// the one-time tokens of e-mail links and codes, the outbox that keeps mail when no SMTP server is
// configured (both deleted with their account), and what GoTrue keeps in auth.mfa_factors / mfa_challenges / mfa_amr_claims (the
// TOTP factors with their secrets, their challenges, and how each session was authenticated). Installed at boot like the session guard (installed-sql.ts), never in a
// bundle; only the database owner reads them (no grants to the API roles).
import type pg from 'pg';
import { installIfChanged } from '../installed-sql.ts';

const AUTH_SCHEMA_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;

-- One live token per user and purpose: issuing a new one replaces the older (unique user_id, type).
-- Only digests are stored: sha256 of the link secret, and of the user id, purpose and 6-digit code.
-- An address change has two purposes, one per address that confirms it (email_change_new,
-- email_change_current).
create table if not exists _localbase.auth_tokens (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  type text not null,
  token_hash text not null unique,
  otp_hash text not null,
  new_email text,
  redirect_to text,
  failed_attempts integer not null default 0,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  unique (user_id, type)
);
revoke all on _localbase.auth_tokens from public;
-- A data directory from before the change had one 'email_change' purpose, for the new address.
alter table _localbase.auth_tokens drop constraint if exists auth_tokens_type_check;
update _localbase.auth_tokens set type = 'email_change_new' where type = 'email_change';
alter table _localbase.auth_tokens add constraint auth_tokens_type_check check (type in
  ('signup', 'invite', 'magiclink', 'recovery', 'email_change_new', 'email_change_current', 'reauthentication'));

-- Mail that would have been sent, as the Supabase CLI's Inbucket/Mailpit keeps it. Each message
-- belongs to the account it was sent for (to her address, or to the one she is moving to) and goes
-- with it: however the account is deleted (delete_my_account, the auth admin API, the console, SQL),
-- her address and her links leave the outbox in the same transaction.
create table if not exists _localbase.outbox (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  to_address text not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  link text,
  created_at timestamptz not null default now()
);
-- An outbox made before user_id: its mail is tied to the account it was addressed to, and what
-- names no account any more (mail of an account already deleted) goes.
alter table _localbase.outbox add column if not exists user_id uuid references auth.users (id) on delete cascade;
update _localbase.outbox o set user_id = u.id from auth.users u
 where o.user_id is null and lower(o.to_address) in (lower(u.email), lower(u.email_change));
delete from _localbase.outbox where user_id is null;
alter table _localbase.outbox alter column user_id set not null;
create index if not exists outbox_created_at_idx on _localbase.outbox (created_at desc);
create index if not exists outbox_user_id_idx on _localbase.outbox (user_id);
revoke all on _localbase.outbox from public;`;

// GoTrue keeps the TOTP secret in plain text unless told to encrypt it; here only the database
// owner can read it at all. last_step is the 30-second step of the last code accepted, so that a
// code (or an older one) cannot be used twice.
const MFA_SCHEMA_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;

create table if not exists _localbase.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type text not null check (factor_type = 'totp'),
  status text not null check (status in ('unverified', 'verified')),
  secret text not null,
  last_step bigint,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_challenged_at timestamptz
);
create index if not exists mfa_factors_user_id_idx on _localbase.mfa_factors (user_id, created_at);
revoke all on _localbase.mfa_factors from public;

create table if not exists _localbase.mfa_challenges (
  id uuid primary key,
  factor_id uuid not null references _localbase.mfa_factors (id) on delete cascade,
  created_at timestamptz not null default now(),
  verified_at timestamptz
);
revoke all on _localbase.mfa_challenges from public;

create table if not exists _localbase.session_amr (
  session_id uuid not null references auth.sessions (id) on delete cascade,
  method text not null,
  authenticated_at timestamptz not null default now(),
  primary key (session_id, method)
);
revoke all on _localbase.session_amr from public;`;

export async function installAuthSchema(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'auth-tokens-and-outbox',
    sql: AUTH_SCHEMA_SQL,
    tables: ['_localbase.auth_tokens', '_localbase.outbox'],
    functions: [],
  });
  await installIfChanged(pool, {
    name: 'auth-mfa',
    sql: MFA_SCHEMA_SQL,
    tables: ['_localbase.mfa_factors', '_localbase.mfa_challenges', '_localbase.session_amr'],
    functions: [],
  });
}
