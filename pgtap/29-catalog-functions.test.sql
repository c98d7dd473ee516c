-- Catalog rules for every function and policy, present and future: each public function the API
-- roles can execute says why (rpc: or policy helper:), anon executes only the signed-out list,
-- and no policy reads group_members directly (it would recurse through group_members' own policy).
begin;
select plan(4);

create temp table api_functions as
select p.oid, p.oid::regprocedure::text as signature,
       has_function_privilege('anon', p.oid, 'execute') as anon_executes,
       coalesce(obj_description(p.oid, 'pg_proc'), '') as comment
from pg_proc p
where p.pronamespace = 'public'::regnamespace
  -- functions an extension installed are the extension's business, not a migration's
  and not exists (select 1 from pg_depend d
                  where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
  and (has_function_privilege('anon', p.oid, 'execute')
       or has_function_privilege('authenticated', p.oid, 'execute'));

select is(
  array(select signature from api_functions
        where comment not like 'rpc:%' and comment not like 'policy helper:%' order by 1),
  '{}'::text[],
  'every public function the API roles can execute has a comment starting rpc: or policy helper:');

-- Adding a function here is a decision a reviewer sees: it must make sense for a signed-out caller.
select is(
  array(select signature from api_functions where anon_executes order by 1),
  array[
    'backup_richness(jsonb)',          -- pure function of its argument (a generated column uses it)
    'community_preview_invite(text)',  -- the invite landing page, before sign-in
    'get_invite_details(text)'         -- the same, under its other name
  ],
  'anon executes only the functions meant for signed-out callers');

select is(
  array(select format('%s on %I.%I', policyname, schemaname, tablename)
        from pg_policies
        where schemaname in ('public', 'storage')
          and (coalesce(qual, '') ~ 'group_members' or coalesce(with_check, '') ~ 'group_members')
        order by 1),
  '{}'::text[],
  'no policy expression mentions group_members (membership goes through the definer helpers)');

select is(
  array(select p.oid::regprocedure::text
        from pg_proc p
        where p.proname in ('_is_group_member', '_has_group_role', 'my_group_ids')
          and (not p.prosecdef or p.provolatile <> 's'
               or not coalesce(p.proconfig, '{}') @> array['search_path=""'])
        order by 1),
  '{}'::text[],
  'the membership helpers are security definer, stable, with an empty search_path');

select * from finish();
rollback;
