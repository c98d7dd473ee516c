-- The Web Push identity (VAPID key pair and contact) that every gateway on the database signs with.
-- A browser's push subscription accepts only pushes signed with the key it subscribed with, so
-- servers that share a database must share the key: the first server to ask stores the pair it
-- offers (its DATA_DIR's), every later one gets that same pair back. Idempotent: part of
-- community-patch-v6.sql. Rules: docs/database.md#gateway-shared-state.

create table if not exists private.gateway_push_identity (
  singleton boolean primary key default true,
  public_key text not null,
  private_key text not null,
  subject text not null,
  created_at timestamptz not null default now(),
  constraint gateway_push_identity_one_row check (singleton),
  constraint gateway_push_identity_public_key check (public_key ~ '^[A-Za-z0-9_-]{80,100}$'),
  constraint gateway_push_identity_private_key check (private_key ~ '^[A-Za-z0-9_-]{40,50}$'),
  constraint gateway_push_identity_subject check (subject ~ '^(mailto:|https://)' and char_length(subject) <= 320)
);
revoke all on private.gateway_push_identity from public, anon, authenticated, service_role;

-- The stored identity; the one offered is stored first when there is none yet.
create or replace function public.gateway_push_identity(p_public_key text, p_private_key text, p_subject text)
returns jsonb
language plpgsql
security definer
set search_path = ''
as $$
declare
  v_row private.gateway_push_identity%rowtype;
begin
  if p_public_key is null or p_public_key !~ '^[A-Za-z0-9_-]{80,100}$'
     or p_private_key is null or p_private_key !~ '^[A-Za-z0-9_-]{40,50}$'
     or p_subject is null or p_subject !~ '^(mailto:|https://)' or char_length(p_subject) > 320 then
    raise exception 'invalid_push_identity' using errcode = 'P0113',
      hint = 'offer a VAPID key pair in URL-safe base64 and a mailto: or https: subject';
  end if;
  insert into private.gateway_push_identity (public_key, private_key, subject)
    values (p_public_key, p_private_key, p_subject)
  on conflict (singleton) do nothing;
  select * into v_row from private.gateway_push_identity;
  return jsonb_build_object('public_key', v_row.public_key, 'private_key', v_row.private_key, 'subject', v_row.subject);
end
$$;
comment on function public.gateway_push_identity(text, text, text) is
  'service: the VAPID identity every gateway on this database signs pushes with; the first offer is kept.';

revoke execute on function public.gateway_push_identity(text, text, text) from public, anon, authenticated;
grant execute on function public.gateway_push_identity(text, text, text) to service_role;
