-- The audit log a page at a time, for the console's Audit log page: newest first, keyset paged
-- (each page starts after the last entry of the one before, so a page deep in a long log costs
-- what the first one does, and an entry written meanwhile shifts nothing), filtered by an action
-- or a family of them (`resolve_report` is every resolution) and by a person (as the actor, the
-- console's admin the row names, or the account acted on). Rules: docs/database.md#moderation-audit-log.
-- Idempotent: part of community-patch-v6.sql.

-- Indexes ----------------------------------------------------------------------------------------

-- The page order, with the id to break ties between entries of one transaction (one `at`).
create index if not exists admin_audit_log_at_id_idx on public.admin_audit_log (at desc, id desc);
drop index if exists public.admin_audit_log_at_idx;
create index if not exists admin_audit_log_actor_idx on public.admin_audit_log (actor_id)
  where actor_id is not null;
create index if not exists admin_audit_log_console_admin_idx on public.admin_audit_log ((detail ->> 'console_admin'))
  where detail ? 'console_admin';

-- RPCs -------------------------------------------------------------------------------------------

-- Invoker rights: the table's own policy decides, so an admin reads it and nobody else does (the
-- service role, as always, reads everything).
create or replace function public.admin_audit_entries(
  p_action text default null,
  p_person text default null,
  p_before bigint default null,
  p_limit integer default 100
) returns setof public.admin_audit_log
language plpgsql
stable
security invoker
set search_path = ''
as $$
declare
  v_person uuid;
  v_limit integer := least(greatest(coalesce(p_limit, 100), 1), 500);
begin
  -- A person is an account id, or a console subject without one (`secret`: the owner).
  if p_person ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then
    v_person := p_person::uuid;
  end if;
  return query
    select l.* from public.admin_audit_log l
    where (p_action is null or l.action = p_action or left(l.action, char_length(p_action) + 1) = p_action || ':')
      and (p_person is null
           or (v_person is not null and (l.actor_id = v_person or l.target_user_id = v_person
                                         or l.detail ->> 'console_admin' like 'user:' || v_person::text || ':%'))
           or (v_person is null and l.detail ->> 'console_admin' = p_person))
      and (p_before is null
           or (l.at, l.id) < (select b.at, b.id from public.admin_audit_log b where b.id = p_before))
    order by l.at desc, l.id desc
    limit v_limit;
end
$$;
comment on function public.admin_audit_entries(text, text, bigint, integer) is
  'rpc: (admins) audit log entries newest first, after entry p_before, of an action (or family) and a person.';

-- Grants -----------------------------------------------------------------------------------------

revoke execute on function public.admin_audit_entries(text, text, bigint, integer) from public, anon;
grant execute on function public.admin_audit_entries(text, text, bigint, integer) to authenticated, service_role;
