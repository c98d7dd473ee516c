-- Which ADMIN_EMAIL / ADMIN_EMAILS accounts the owner has confirmed. An e-mail in those settings
-- unlocks the admin console only for the account it was confirmed for: anyone can sign up with an
-- address (nothing sends mail to it), so an address alone proves nothing. The owner confirms an
-- account while signed in to the console with ADMIN_SECRET; the row names the account's user id
-- and the address it had, so an account deleted and registered again with the same address (a new
-- id) is not confirmed, and neither is one whose address changed since. Service role only.
-- Rules: docs/database.md#admin-console.
--
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

-- Tables -----------------------------------------------------------------------------------------

create table if not exists public.admin_email_confirmations (
  user_id uuid primary key references public.users (id) on delete cascade,
  email text not null check (email = lower(email) and char_length(email) between 3 and 254),
  confirmed_by text not null check (char_length(confirmed_by) <= 320),
  confirmed_at timestamptz not null default now()
);

-- Policies ---------------------------------------------------------------------------------------

-- No policies: only the service role (which bypasses row-level security) reads or writes it.
alter table public.admin_email_confirmations enable row level security;

revoke all on public.admin_email_confirmations from public, anon, authenticated;
grant select, insert, update, delete on public.admin_email_confirmations to service_role;
