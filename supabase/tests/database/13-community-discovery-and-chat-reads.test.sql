-- Discovery search over the trigram indexes, and direct reads of group_chat_messages through the
-- once-per-statement policy: what each person finds, and what they never see.
begin;
select plan(20);

select tests.create_user('owner');
select tests.create_user('member');
select tests.create_user('outsider');

select tests.authenticate_as('owner');
insert into public.groups (name, visibility, join_policy, created_by) values
  ('Anatomy Circle', 'private', 'open', tests.get_user_id('owner')),
  ('Physics Hall', 'public', 'open', tests.get_user_id('owner'));
select tests.authenticate_as('outsider');
insert into public.groups (name, join_policy, created_by) values ('Chemistry Lab', 'open', tests.get_user_id('outsider'));

select tests.authenticate_as_service_role();
create temp table dg as select id, name from public.groups;
grant select on dg to public;

select tests.authenticate_as('member');
select public.community_join_group((select id from dg where name = 'Anatomy Circle'));
select public.community_send_group_message((select id from dg where name = 'Anatomy Circle'), 'first');
select public.community_send_group_message((select id from dg where name = 'Anatomy Circle'), 'second');
select tests.authenticate_as('owner');
select public.community_send_group_message((select id from dg where name = 'Physics Hall'), 'welcome');
select tests.authenticate_as('outsider');
select public.community_send_group_message((select id from dg where name = 'Chemistry Lab'), 'hello lab');

-- The index and how discovery is planned.
select tests.authenticate_as_service_role();
select is((select n.nspname::text from pg_extension e join pg_namespace n on n.oid = e.extnamespace
           where e.extname = 'pg_trgm'), 'extensions', 'pg_trgm is installed in the extensions schema');
select is(array(select i.indexname::text from pg_indexes i join pg_class c on c.oid = format('%I.%I', i.schemaname, i.indexname)::regclass
                where i.schemaname = 'public' and i.tablename = 'groups' and i.indexdef ~ 'gin_trgm_ops'
                  and c.reloptions @> array['fastupdate=off'] order by 1),
  array['groups_name_trgm_idx', 'groups_slug_trgm_idx'],
  'groups has a trigram index on name and on slug, without a pending list a search would read in full');
select ok((select proconfig @> array['plan_cache_mode=force_custom_plan'] from pg_proc
           where oid = 'public.community_discover_groups(text, integer, integer)'::regprocedure),
  'discovery is planned with its search term on every call, so a rare term can take the trigram indexes');

-- Discovery: a member finds their private group by any part of its name or slug.
select tests.authenticate_as('member');
select results_eq($$select name, is_member from public.community_discover_groups('ANATOMY', 10, 0)$$,
  $$values ('Anatomy Circle'::text, true)$$,
  'a member finds their private group by a word of its name, in any case');
select results_eq($$select name from public.community_discover_groups('anatomy-circ', 10, 0)$$,
  $$values ('Anatomy Circle'::text)$$,
  'a member finds their private group by part of its slug');
select results_eq($$select name, is_member from public.community_discover_groups('  hall ', 10, 0)$$,
  $$values ('Physics Hall'::text, false)$$,
  'a search term is trimmed, and a public group the member has not joined is marked so');

-- Discovery: an outsider finds public groups, and never the private one.
select tests.authenticate_as('outsider');
select is((select count(*)::int from unnest(array['Anatomy Circle', 'anatomy', 'anatomy-circ', 'circle', 'ANATOMY CIRCLE']) t(term)
           cross join lateral public.community_discover_groups(t.term, 100, 0) d),
  0, 'an outsider finds no trace of a private group, for its name, slug or any part of them');
select results_eq($$select name from public.community_discover_groups(null, 10, 0)$$,
  $$select name from public.groups where visibility = 'public' order by member_count desc, id$$,
  'without a term, discovery lists every public group by member count');
select results_eq($$select name from public.community_discover_groups('', 10, 0)$$,
  $$select name from public.community_discover_groups(null, 10, 0)$$,
  'an empty term is the same as no term');
select results_eq($$select name from public.community_discover_groups('ch', 10, 0)$$,
  $$values ('Chemistry Lab'::text)$$,
  'a term shorter than a trigram still matches');
select is((select count(*)::int from public.community_discover_groups('no such group anywhere', 10, 0)), 0,
  'a term no group matches finds nothing');
select results_eq($$select name from public.community_discover_groups('', 1, 1)$$,
  $$select name from public.community_discover_groups('', 10, 0) offset 1 limit 1$$,
  'limit and offset page through the same order');

-- Direct reads of chat messages: members only, whatever the query asks for.
select tests.authenticate_as('member');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from dg where name = 'Anatomy Circle')),
  2, 'a member reads their group''s messages directly');
select is((select array_agg(content order by content) from public.group_chat_messages), array['first', 'second'],
  'a read of the whole table returns only the member''s groups'' messages');
select tests.authenticate_as('owner');
select is((select count(*)::int from public.group_chat_messages), 3, 'the owner reads the messages of both their groups, not of a group they are not in');
select tests.authenticate_as('outsider');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from dg where name = 'Anatomy Circle')),
  0, 'a non-member cannot read a private group''s messages, even with its id');
select is((select count(*)::int from public.group_chat_messages where group_id = (select id from dg where name = 'Physics Hall')),
  0, 'a non-member cannot read a public group''s messages either');
select is((select array_agg(content) from public.group_chat_messages), array['hello lab'],
  'an outsider reads only their own group''s messages');
select tests.authenticate_as_service_role();
select is((select count(*)::int from public.group_chat_messages), 4, 'service_role reads every message');
select tests.clear_authentication();
select throws_ok($$select count(*) from public.group_chat_messages$$, '42501', null, 'anon cannot read messages');

select * from finish();
rollback;
