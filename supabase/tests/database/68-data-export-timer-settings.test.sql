-- export_my_data names her timer settings: the `settings` of her newest backup that carries them,
-- with when that backup was saved; null before any; never another student's.
begin;
select plan(6);

select tests.create_user('timer');
select tests.create_user('neighbour');

select tests.authenticate_as('timer');
select is((select d -> 'timer_settings' from public.export_my_data() d), 'null'::jsonb,
  'before her first backup she has no timer settings on the server');

insert into public.user_backups (user_id, source, payload, created_at) values
  (tests.get_user_id('timer'), 'auto', '{"settings": {"focusMinutes": 25, "breakMinutes": 5}}', now() - interval '2 days'),
  (tests.get_user_id('timer'), 'auto', '{"settings": {"focusMinutes": 50, "breakMinutes": 10, "cycles": 3}}', now() - interval '1 day'),
  (tests.get_user_id('timer'), 'manual', '{"sessions": []}', now());
select is((select d -> 'timer_settings' -> 'settings' from public.export_my_data() d),
  '{"focusMinutes": 50, "breakMinutes": 10, "cycles": 3}'::jsonb,
  'her timer settings are those of her newest backup that carries any');
select ok((select (d -> 'timer_settings' ->> 'saved_at')::timestamptz < now() - interval '23 hours' from public.export_my_data() d),
  'with when that backup was saved');
select is((select d -> 'timer_settings' ->> 'backup_id' from public.export_my_data() d),
  (select id::text from public.user_backups where user_id = tests.get_user_id('timer') and payload -> 'settings' ->> 'focusMinutes' = '50'),
  'and which backup it was');

select tests.authenticate_as('neighbour');
select is((select d -> 'timer_settings' from public.export_my_data() d), 'null'::jsonb,
  'another student''s export holds none of hers');
insert into public.user_backups (user_id, source, payload) values
  (tests.get_user_id('neighbour'), 'auto', '{"settings": "not an object"}');
select is((select d -> 'timer_settings' from public.export_my_data() d), 'null'::jsonb,
  'a payload whose settings are not an object gives no timer settings');

select * from finish();
rollback;
