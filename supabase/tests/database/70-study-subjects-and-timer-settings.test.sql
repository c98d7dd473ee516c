-- Subjects and timer settings on the server: a student adds, reads, renames and deletes her own
-- subjects and nobody else's (anon nothing); a subject needs a name of 1 to 200 characters. Her
-- timer lengths and daily goal are held to the Settings page's ranges for every writer, and
-- timer_updated_at is the server's: stamped when one of them changes, kept otherwise, whatever
-- the writer sends for it.
begin;
select plan(28);

select tests.create_user('ada');
select tests.create_user('bo');

-- Subjects ---------------------------------------------------------------------------------------
select tests.authenticate_as('ada');
select lives_ok($$insert into public.user_subjects (id, user_id, name)
                  values ('00000000-0000-4000-8000-00000000a001', auth.uid(), 'Organic chemistry')$$,
  'a student adds a subject with the id her device made');
select is((select name from public.user_subjects where id = '00000000-0000-4000-8000-00000000a001'),
  'Organic chemistry', 'and reads it back');
select throws_ok($$insert into public.user_subjects (id, user_id, name)
                   values (gen_random_uuid(), auth.uid(), '   ')$$, '23514', null, 'a blank name is refused');
select throws_ok($$insert into public.user_subjects (id, user_id, name)
                   values (gen_random_uuid(), auth.uid(), repeat('x', 201))$$, '23514', null,
  'a name over 200 characters is refused');
select throws_ok(format($$insert into public.user_subjects (id, user_id, name) values (gen_random_uuid(), %L, 'Planted')$$,
                        tests.get_user_id('bo')), '42501', null, 'she cannot add a subject to someone else');
select lives_ok($$update public.user_subjects set name = 'Organic chem' where id = '00000000-0000-4000-8000-00000000a001'$$,
  'she renames her subject');
-- Without a WHERE clause, so only the policy's check (not the read policy's) judges the new row.
select throws_ok(format($$update public.user_subjects set user_id = %L$$, tests.get_user_id('bo')), '42501', null,
  'she cannot hand her subject to someone else');

select tests.authenticate_as('bo');
select is((select count(*)::int from public.user_subjects), 0, 'another student reads none of her subjects');
select lives_ok($$update public.user_subjects set name = 'Hijacked'$$, 'another student''s update runs');
select lives_ok($$delete from public.user_subjects$$, 'and so does his delete');
select tests.clear_authentication();
select throws_ok($$select count(*) from public.user_subjects$$, '42501', null, 'anon reads nothing');
reset role;
select is((select name from public.user_subjects where id = '00000000-0000-4000-8000-00000000a001'), 'Organic chem',
  'her subject is untouched by his update and his delete');

select tests.authenticate_as('ada');
select lives_ok($$delete from public.user_subjects where id = '00000000-0000-4000-8000-00000000a001'$$,
  'she deletes her subject');
select is((select count(*)::int from public.user_subjects), 0, 'and it is gone');

-- Timer settings -------------------------------------------------------------------------------
select is((select timer_updated_at from public.user_settings where user_id = auth.uid()), null,
  'a new account has chosen no timer settings: no stamp');
select lives_ok($$update public.user_settings set focus_minutes = 50, break_minutes = 10, cycles = 3,
                   daily_goal_minutes = 180 where user_id = auth.uid()$$, 'she saves her timer settings');
select is((select (focus_minutes, break_minutes, cycles, daily_goal_minutes)::text from public.user_settings
           where user_id = auth.uid()), '(50,10,3,180)', 'and reads them back');
select is((select timer_updated_at from public.user_settings where user_id = auth.uid()), now(),
  'the server stamps when they changed');
reset role;
update public.user_settings set timer_updated_at = now() - interval '1 day' where user_id = tests.get_user_id('ada');
select is((select timer_updated_at from public.user_settings where user_id = tests.get_user_id('ada')), now(),
  'even the database owner cannot move the stamp without changing the settings');
select tests.authenticate_as('ada');
select lives_ok($$update public.user_settings set day_offset_hours = 4, timer_updated_at = '2001-01-01'
                  where user_id = auth.uid()$$, 'a change of the day settings, naming a stamp of its own, runs');
select is((select timer_updated_at from public.user_settings where user_id = auth.uid()), now(),
  'and leaves the stamp as the timer''s last change set it');
select throws_ok($$update public.user_settings set focus_minutes = 0 where user_id = auth.uid()$$, '23514', null,
  'a focus length of 0 is refused');
select throws_ok($$update public.user_settings set focus_minutes = 181 where user_id = auth.uid()$$, '23514', null,
  'a focus length over 180 minutes is refused');
select throws_ok($$update public.user_settings set break_minutes = 61 where user_id = auth.uid()$$, '23514', null,
  'a break over 60 minutes is refused');
select throws_ok($$update public.user_settings set cycles = 13 where user_id = auth.uid()$$, '23514', null,
  'more than 12 focus phases are refused');
select throws_ok($$update public.user_settings set daily_goal_minutes = 1441 where user_id = auth.uid()$$, '23514',
  null, 'a daily goal over a day is refused');

select tests.authenticate_as('bo');
select lives_ok(format($$update public.user_settings set focus_minutes = 1 where user_id = %L$$, tests.get_user_id('ada')),
  'another student''s update of her settings runs');
reset role;
select is((select focus_minutes from public.user_settings where user_id = tests.get_user_id('ada')), 50::smallint,
  'and changes nothing');

select * from finish();
rollback;
