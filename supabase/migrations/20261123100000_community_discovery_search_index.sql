-- Community discovery search and table-wide chat reads: trigram indexes so a search term finds its
-- groups without reading every group, and the chat read policy in the once-per-statement form.
-- Rules: docs/database.md#invites-and-join-requests (discovery); targets in tools/bench/README-community-groups.md.
--
-- Idempotent: this file is part of community-patch-v6.sql, applied repeatedly to live projects.

-- Indexes ----------------------------------------------------------------------------------------

-- Hosted projects keep extensions in the `extensions` schema. The operator class is named with its
-- schema, like every name here, so the indexes build whatever the session's search_path is.
create extension if not exists pg_trgm with schema extensions;

-- Discovery matches `name ilike '%term%' or slug ilike '%term%'`: a btree cannot serve an infix
-- match, a trigram index can (a BitmapOr of the two, then a sort of the few matches).
-- fastupdate off: with it on, new rows wait in a pending list that every search reads in full
-- until a vacuum merges it (10k fresh groups made a rare-term search 9 ms instead of under 2 ms).
-- Groups are written rarely and read on every search, so each insert or rename pays instead.
create index if not exists groups_name_trgm_idx on public.groups
  using gin (name extensions.gin_trgm_ops) with (fastupdate = off);
create index if not exists groups_slug_trgm_idx on public.groups
  using gin (slug extensions.gin_trgm_ops) with (fastupdate = off);

-- Helpers ----------------------------------------------------------------------------------------

-- The same query as before, in PL/pgSQL: a SQL function is planned again on every statement that
-- calls it, a PL/pgSQL one keeps its plan for the session, which makes the once-per-statement
-- call cheaper for every policy and RPC that uses it.
create or replace function private.my_group_ids() returns setof uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return query select m.group_id from public.group_members m where m.user_id = (select auth.uid());
end
$$;

-- Policies ---------------------------------------------------------------------------------------

-- The caller's groups are read once per statement and hashed; the per-row helper cost a definer
-- call per candidate row (3.2x the service_role time for 50 messages). "members post as
-- themselves" keeps the per-row check: an insert is one row, so one helper call.
drop policy if exists "members read their group's messages" on public.group_chat_messages;
create policy "members read their group's messages" on public.group_chat_messages
  for select to authenticated
  using (group_id in (select private.my_group_ids()));

-- RPCs -------------------------------------------------------------------------------------------

-- Unchanged in what it returns. PL/pgSQL with custom plans lets the planner see the search term:
-- an empty term drops the filter, a rare term takes the trigram indexes, and a common one keeps
-- walking groups_discovery_order_idx in order and stops after a page. (A SQL function is planned
-- with the term unknown, so the `term = '' or ...` branch hid the indexes.)
create or replace function public.community_discover_groups(
  p_search text default null, p_limit integer default 20, p_offset integer default 0
) returns table (
  id uuid, slug text, name text, description text, icon_url text, exam_name text, exam_date date,
  subjects text[], visibility text, join_policy text, member_count integer, is_member boolean
)
language plpgsql
stable
security definer
set search_path = ''
set plan_cache_mode = force_custom_plan
as $$
begin
  return query
    with mine as (select private.my_group_ids() as group_id)
    select g.id, g.slug, g.name, g.description, g.icon_url, g.exam_name, g.exam_date, g.subjects,
           g.visibility, g.join_policy, g.member_count, g.id in (select m.group_id from mine m)
    from public.groups g
    where (g.visibility = 'public' or g.id in (select m.group_id from mine m))
      and g.archived_at is null
      and (coalesce(btrim(p_search), '') = ''
           or g.name ilike '%' || btrim(p_search) || '%'
           or g.slug ilike '%' || btrim(p_search) || '%')
    order by g.member_count desc, g.id
    limit least(greatest(coalesce(p_limit, 20), 1), 100)
    offset greatest(coalesce(p_offset, 0), 0);
end
$$;
comment on function public.community_discover_groups(text, integer, integer) is
  'rpc: public groups plus the caller''s private groups, filtered by a search term; never another private group.';
