-- Live chat over a private broadcast topic per group: every new or deleted message is sent to the
-- group's topic, only its members may ask for the topic or join it, nobody may send on it, and a
-- membership that ends draws a new topic and tells the old one to move, so the one who left hears
-- nothing more. (This database has the platform's realtime.send, which keeps what it sends in
-- realtime.messages; localbase relays instead.)
begin;
select plan(27);

select tests.create_user('ada');  -- owner of Study Hall
select tests.create_user('bo');   -- member of Study Hall
select tests.create_user('cy');   -- member of Study Hall, then removed by ada
select tests.create_user('dee');  -- owner of Other Room only

select tests.authenticate_as('ada');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Study Hall', 'private', 'invite', tests.get_user_id('ada'));
select tests.authenticate_as('dee');
insert into public.groups (name, visibility, join_policy, created_by)
  values ('Other Room', 'private', 'invite', tests.get_user_id('dee'));
reset role;
create temp table g as
  select (select id from public.groups where name = 'Study Hall') as hall,
         (select id from public.groups where name = 'Other Room') as other;
grant select on g to public;
insert into public.group_members (group_id, user_id, role) values
  ((select hall from g), tests.get_user_id('bo'), 'member'),
  ((select hall from g), tests.get_user_id('cy'), 'member');
create temp table seen (label text primary key, topic text);
grant select, insert on seen to public;

-- What a student reads of realtime.messages on a topic, as realtime asks when her channel joins.
create function pg_temp.heard(p_topic text) returns bigint language plpgsql as $$
declare
  v_count bigint;
begin
  perform set_config('realtime.topic', p_topic, true);
  select count(*) into v_count from realtime.messages m where m.topic = p_topic;
  perform set_config('realtime.topic', '', true);
  return v_count;
end
$$;

-- The topic -------------------------------------------------------------------------------------

select tests.authenticate_as('bo');
insert into seen values ('hall', public.community_get_chat_topic((select hall from g)));
select matches((select topic from seen where label = 'hall'), '^group-chat:[0-9a-f-]{36}$',
  'a member gets her group''s chat topic: a random name');
select tests.authenticate_as('ada');
select is(public.community_get_chat_topic((select hall from g)), (select topic from seen where label = 'hall'),
  'every member gets the same topic');
select tests.authenticate_as('dee');
insert into seen values ('other', public.community_get_chat_topic((select other from g)));
select isnt((select topic from seen where label = 'other'), (select topic from seen where label = 'hall'),
  'another group has another topic');
select throws_ok($$select public.community_get_chat_topic((select hall from g))$$, 'P0001', 'not_group_member',
  'a student outside the group is not told its topic');
select tests.clear_authentication();
set local role anon;
select throws_ok($$select public.community_get_chat_topic((select hall from g))$$, '42501', null,
  'a signed-out caller may not ask');
reset role;
select ok(not has_table_privilege('authenticated', 'private.group_chat_topics', 'select')
          and not has_table_privilege('authenticated', 'private.group_chat_topics', 'update'),
  'students can neither read nor write the topics table');

-- Messages are sent to the topic ----------------------------------------------------------------

select tests.authenticate_as('bo');
select public.community_send_group_message((select hall from g), 'anyone for chemistry?');
insert into public.group_chat_messages (group_id, sender_id, content)
  values ((select hall from g), tests.get_user_id('bo'), 'written straight to the table');
reset role;
select is((select count(*) from realtime.messages m where m.topic = (select topic from seen where label = 'hall')
             and m.event = 'INSERT' and m.extension = 'broadcast' and m.private),
  2::bigint, 'each message, through the RPC or straight to the table, is one private broadcast INSERT on the topic');
select is((select m.payload -> 'record' ->> 'content' from realtime.messages m
            where m.topic = (select topic from seen where label = 'hall') and m.event = 'INSERT'
            order by m.payload -> 'record' ->> 'created_at', m.payload -> 'record' ->> 'content' limit 1),
  'anyone for chemistry?', 'the broadcast carries the message');
select is((select array_agg(k order by k) from realtime.messages m,
             jsonb_object_keys(m.payload -> 'record') k
            where m.topic = (select topic from seen where label = 'hall') and m.event = 'INSERT'
              and m.payload -> 'record' ->> 'content' = 'anyone for chemistry?'),
  array['content', 'created_at', 'deleted_at', 'group_id', 'id', 'sender_id'],
  'it carries the columns the chat shows, and not who deleted');
select is((select m.payload ->> 'operation' || ' ' || (m.payload ->> 'schema') || '.' || (m.payload ->> 'table')
             from realtime.messages m
            where m.topic = (select topic from seen where label = 'hall') and m.event = 'INSERT' limit 1),
  'INSERT public.group_chat_messages', 'in the shape of realtime.broadcast_changes');

select tests.authenticate_as('bo');
select public.delete_chat_message((select id from public.group_chat_messages where content = 'written straight to the table'));
reset role;
select is((select m.payload -> 'record' ->> 'content' from realtime.messages m
            where m.topic = (select topic from seen where label = 'hall') and m.event = 'UPDATE'),
  '', 'a deleted message is sent as an UPDATE: the empty tombstone');
select isnt((select m.payload -> 'record' ->> 'deleted_at' from realtime.messages m
              where m.topic = (select topic from seen where label = 'hall') and m.event = 'UPDATE'),
  null, 'with its deletion time');

-- Who may hear it -------------------------------------------------------------------------------

select tests.authenticate_as('bo');
select is(pg_temp.heard((select topic from seen where label = 'hall')), 3::bigint,
  'a member may join her group''s topic');
select is(pg_temp.heard((select topic from seen where label = 'other')), 0::bigint,
  'but not another group''s');
select tests.authenticate_as('dee');
select is(pg_temp.heard((select topic from seen where label = 'hall')), 0::bigint,
  'a student outside the group may not join its topic, even knowing it');
select tests.authenticate_as('bo');
select throws_ok($$insert into realtime.messages (topic, extension, event, payload, private)
    values ((select topic from seen where label = 'hall'), 'broadcast', 'INSERT',
            '{"record": {"content": "forged"}}', true)$$,
  '42501', null, 'a member may not send on the topic: only the database does');
select tests.clear_authentication();
set local role anon;
select is(pg_temp.heard((select topic from seen where label = 'hall')), 0::bigint,
  'a signed-out caller may not join it');
reset role;

-- A membership that ends moves the topic --------------------------------------------------------

select tests.authenticate_as('ada');
select public.community_remove_member((select hall from g), tests.get_user_id('cy'));
select tests.authenticate_as('bo');
insert into seen values ('hall after', public.community_get_chat_topic((select hall from g)));
select isnt((select topic from seen where label = 'hall after'), (select topic from seen where label = 'hall'),
  'removing a member draws a new topic');
reset role;
select is((select count(*) from realtime.messages m
            where m.topic = (select topic from seen where label = 'hall') and m.event = 'rotate'),
  1::bigint, 'and tells the old topic to move, once');
select tests.authenticate_as('cy');
select throws_ok($$select public.community_get_chat_topic((select hall from g))$$, 'P0001', 'not_group_member',
  'the removed member is not told the new topic');
select is(pg_temp.heard((select topic from seen where label = 'hall after')), 0::bigint,
  'nor may she join it');
select is(pg_temp.heard((select topic from seen where label = 'hall')), 0::bigint,
  'nor join the old one again');
select tests.authenticate_as('bo');
select is(pg_temp.heard((select topic from seen where label = 'hall')), 0::bigint,
  'the old topic is closed to the members too: they move to the new one');
select public.community_send_group_message((select hall from g), 'after cy left');
select is(pg_temp.heard((select topic from seen where label = 'hall after')), 1::bigint,
  'where the next message is sent, and a member hears it');
select public.community_leave_group((select hall from g));
select tests.authenticate_as('ada');
select isnt(public.community_get_chat_topic((select hall from g)), (select topic from seen where label = 'hall after'),
  'leaving draws a new topic too');

-- A deleted group --------------------------------------------------------------------------------

select tests.authenticate_as('dee');
select public.community_delete_group((select other from g));
reset role;
select is((select count(*) from private.group_chat_topics where group_id = (select other from g)), 0::bigint,
  'a deleted group''s topic goes with it');
select is((select count(*) from realtime.messages m
            where m.topic = (select topic from seen where label = 'other') and m.event = 'rotate'),
  0::bigint, 'and its members are not told to move anywhere');

select * from finish();
rollback;
