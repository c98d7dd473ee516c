// localbase's own auth tables, beside GoTrue's auth schema (which stays as the bundles create it):
// the one-time tokens of e-mail links and codes, and the outbox that keeps mail when no SMTP
// server is configured. Installed at boot like the session guard (installed-sql.ts), never in a
// bundle; only the database owner reads them (no grants to the API roles).
import type pg from 'pg';
import { installIfChanged } from '../installed-sql.ts';

const AUTH_SCHEMA_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;

-- One live token per user and purpose: issuing a new one replaces the older (unique user_id, type).
-- Only digests are stored: sha256 of the link secret, and of the user id, purpose and 6-digit code.
create table if not exists _localbase.auth_tokens (
  id bigint generated always as identity primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  type text not null check (type in ('signup', 'invite', 'magiclink', 'recovery', 'email_change', 'reauthentication')),
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

-- Mail that would have been sent, as the Supabase CLI's Inbucket/Mailpit keeps it.
create table if not exists _localbase.outbox (
  id bigint generated always as identity primary key,
  to_address text not null,
  subject text not null,
  text_body text not null,
  html_body text not null,
  link text,
  created_at timestamptz not null default now()
);
create index if not exists outbox_created_at_idx on _localbase.outbox (created_at desc);
revoke all on _localbase.outbox from public;`;

export async function installAuthSchema(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'auth-tokens-and-outbox',
    sql: AUTH_SCHEMA_SQL,
    tables: ['_localbase.auth_tokens', '_localbase.outbox'],
    functions: [],
  });
}
