-- "Download my data" holds her subjects, only hers, and the timer settings her account holds: the
-- export reads user_subjects under her own policies, and the settings row carries the timer columns.
begin;
select plan(4);

select tests.create_user('ada');
select tests.create_user('bo');

select tests.authenticate_as('bo');
insert into public.user_subjects (id, user_id, name) values ('00000000-0000-4000-8000-00000000b001', auth.uid(), 'History');

select tests.authenticate_as('ada');
insert into public.user_subjects (id, user_id, name) values ('00000000-0000-4000-8000-00000000a001', auth.uid(), 'Biology');
update public.user_settings set focus_minutes = 40, daily_goal_minutes = 90 where user_id = auth.uid();

select is((select jsonb_agg(s ->> 'name') from jsonb_array_elements(public.export_my_data() -> 'subjects') s),
  '["Biology"]'::jsonb, 'her export lists her subject and not another student''s');
select is((public.export_my_data() -> 'subjects' -> 0 ->> 'id'), '00000000-0000-4000-8000-00000000a001',
  'with the id her device made');
select is((public.export_my_data() -> 'settings' ->> 'focus_minutes')::int, 40,
  'her settings row carries the focus length her account holds');

select tests.authenticate_as('bo');
select is((select jsonb_agg(s ->> 'name') from jsonb_array_elements(public.export_my_data() -> 'subjects') s),
  '["History"]'::jsonb, 'and his export his own');

select * from finish();
rollback;
