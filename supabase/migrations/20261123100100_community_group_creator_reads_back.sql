-- A new private group is readable by its creator in the statement that creates it.
-- `insert into groups ... returning` (supabase-js `.insert().select()`, PostgREST
-- `Prefer: return=representation`) checks the select policy on the new row before the after-insert
-- trigger has added the creator as owner, so "id in my groups" cannot match yet and the whole
-- insert failed with an RLS error. The extra branch holds only while member_count is 0, which is
-- only inside the creating statement: every group keeps at least its last owner from then on, so a
-- creator who later hands the group over and leaves is an outsider like any other.
-- Rules: docs/database.md#groups.

drop policy if exists "anyone signed in reads public groups and their own" on public.groups;
create policy "anyone signed in reads public groups and their own" on public.groups
  for select to authenticated
  using (
    visibility = 'public'
    or id in (select private.my_group_ids())
    or (member_count = 0 and created_by = (select auth.uid()))
  );
