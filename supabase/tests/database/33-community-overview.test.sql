-- Buddy overview: each privacy switch off and on, stealth, [] versus null, who sees nothing,
-- and the day boundary under day_offset_hours.
begin;
select plan(25);

select tests.create_user('viv');   -- the viewer
select tests.create_user('bud');   -- an accepted buddy
select tests.create_user('str');   -- a stranger
select tests.create_user('dec');   -- declined viv's request
select tests.create_user('blk');   -- blocked viv
select tests.authenticate_as('bud');
select public.community_bootstrap_profile('bud_h');
select tests.authenticate_as('dec');
select public.community_bootstrap_profile('dec_h');
select tests.authenticate_as('blk');
select public.community_bootstrap_profile('blk_h');

select tests.authenticate_as('viv');
select public.community_request_buddy('bud_h');
select public.community_request_buddy('dec_h');
select public.community_request_buddy('blk_h');
select tests.authenticate_as('bud');
select public.community_respond_buddy((select id from public.community_friends where friend_id = tests.get_user_id('bud')), true);
select tests.authenticate_as('dec');
select public.community_respond_buddy((select id from public.community_friends where friend_id = tests.get_user_id('dec')), false);
select tests.authenticate_as('blk');
select public.community_remove_buddy(tests.get_user_id('viv'), true);

-- The buddy with everything off, no study yet, studying live.
reset role;
update public.community_enrollments set privacy = '{"stealthMode": false, "shareTasks": false,
  "shareSubjectBreakdown": false, "shareQuestionCounts": false, "shareExactTime": false,
  "shareCurrentSubject": false}' where user_id = tests.get_user_id('bud');
insert into public.user_presence (user_id, status, subject_name, task_title)
  values (tests.get_user_id('bud'), 'studying', 'Maths', 'Algebra');
insert into public.user_tasks (user_id, title, subject_name, task_day)
  values (tests.get_user_id('bud'), 'Read ch. 3', 'Maths', current_date);

create function pg_temp.bud() returns jsonb language sql as $$
  select e from jsonb_array_elements(public.community_get_overview()) e where e ->> 'handle' = 'bud_h' $$;
create function pg_temp.switch(p_key text, p_on boolean) returns void language sql as $$
  update public.community_enrollments set privacy = jsonb_set(privacy, array[p_key], to_jsonb(p_on))
  where user_id = tests.get_user_id('bud') $$;

select tests.authenticate_as('viv');
select is(jsonb_array_length(public.community_get_overview()), 1,
  'the viewer sees one entry: not the stranger, the decliner or the blocker');
select is(pg_temp.bud() -> 'minutesToday', 'null'::jsonb, 'shareExactTime off: minutesToday is null');
select is(pg_temp.bud() -> 'subjects', 'null'::jsonb, 'shareSubjectBreakdown off: subjects is null');
select is(pg_temp.bud() -> 'questionsToday', 'null'::jsonb, 'shareQuestionCounts off: questionsToday is null');
select is(pg_temp.bud() -> 'tasks', 'null'::jsonb, 'shareTasks off: tasks is null');
select is(pg_temp.bud() -> 'presence', '{"state": "studying", "subject": null, "task": null}'::jsonb,
  'shareCurrentSubject off: the state shows, the subject does not');
select is(pg_temp.bud() ->> 'outgoing', 'false', 'an accepted buddy is not outgoing');

reset role;
select pg_temp.switch('shareExactTime', true);
select pg_temp.switch('shareSubjectBreakdown', true);
select pg_temp.switch('shareQuestionCounts', true);
select pg_temp.switch('shareTasks', true);
select pg_temp.switch('shareCurrentSubject', true);
select tests.authenticate_as('viv');
select is(pg_temp.bud() -> 'minutesToday', '0'::jsonb, 'shareExactTime on: minutesToday shows');
select is(pg_temp.bud() -> 'subjects', '[]'::jsonb, 'shareSubjectBreakdown on, no study today: subjects is []');
select is(pg_temp.bud() -> 'questionsToday', '0'::jsonb, 'shareQuestionCounts on: questionsToday shows');
select is(pg_temp.bud() #>> '{tasks,0,title}', 'Read ch. 3', 'shareTasks on: today''s tasks show');
select is(pg_temp.bud() -> 'presence', '{"state": "studying", "subject": "Maths", "task": "Algebra"}'::jsonb,
  'shareCurrentSubject on: the subject shows');

-- A settled session shows in minutes and subjects; question counts follow their own switch.
-- The session (25 minutes, ended before now) and bud's today must be one study day at any hour:
-- just after midnight they are not, so his clock is put between 12:00 and 13:00 (a timezone offset
-- of -11 to +12 hours from now's UTC hour). His tasks above were read on the UTC day, before.
reset role;
update public.user_settings
  set timezone_offset_minutes = (12 - extract(hour from now() at time zone 'UTC'))::int * 60
  where user_id = tests.get_user_id('bud');
select tests.authenticate_as('bud');
select public.record_study_session(now() - interval '30 minutes', 25, 's1', 'Maths', null, null, 7, 2, 1);
select tests.authenticate_as('viv');
select is(pg_temp.bud() -> 'subjects', '[{"name": "Maths", "minutes": 25, "questions": 10}]'::jsonb,
  'subjects carry name, minutes and questions');
select is(pg_temp.bud() -> 'minutesToday', '25'::jsonb, 'minutesToday counts the settled session');
reset role;
select pg_temp.switch('shareQuestionCounts', false);
select tests.authenticate_as('viv');
select is(pg_temp.bud() #> '{subjects,0,questions}', 'null'::jsonb,
  'shareQuestionCounts off hides the per-subject questions too');

-- Stealth collapses state, subject and task.
reset role;
select pg_temp.switch('stealthMode', true);
select tests.authenticate_as('viv');
select is(pg_temp.bud() -> 'presence', '{"state": "offline", "subject": null, "task": null}'::jsonb,
  'stealthMode collapses live status and subject');
reset role;
select pg_temp.switch('stealthMode', false);

-- A stale row reads offline before and after expiry.
update public.user_presence set last_seen = now() - interval '3 minutes' where user_id = tests.get_user_id('bud');
select tests.authenticate_as('viv');
select is(pg_temp.bud() #>> '{presence,state}', 'offline', 'a stale presence row reads offline before expiry');
reset role;
select public.expire_stale_presence();
select tests.authenticate_as('viv');
select is(pg_temp.bud() #>> '{presence,state}', 'offline', 'and after expiry');

-- Pending requests: listed with direction, without study data.
select tests.authenticate_as('str');
select public.community_request_buddy('viv@test.local');
select is((select count(*)::int from jsonb_array_elements(public.community_get_overview()) e
  where (e ->> 'outgoing')::boolean and e -> 'minutesToday' = 'null'::jsonb and e -> 'presence' = 'null'::jsonb),
  1, 'the sender sees its request as outgoing, with no study data');
select tests.authenticate_as('viv');
select is((select count(*)::int from jsonb_array_elements(public.community_get_overview()) e
  where e ->> 'status' = 'pending' and not (e ->> 'outgoing')::boolean and e -> 'subjects' = 'null'::jsonb),
  1, 'the recipient sees it incoming (not outgoing), with no study data');
select tests.authenticate_as('str');
select is((select count(*)::int from public.user_tasks where user_id = tests.get_user_id('bud')), 0, 'a non-buddy cannot read the buddy''s tasks');
select is((select count(*)::int from public.user_presence where user_id = tests.get_user_id('bud')), 0,
  'nor their presence row');

-- Day boundary: 02:00 local with day_offset_hours 4 belongs to the previous day.
reset role;
update public.user_settings set day_offset_hours = 4, timezone_offset_minutes = 0
  where user_id = tests.get_user_id('bud');
select is(private.study_day_of(tests.get_user_id('bud'), '2026-03-10 02:00+00'), '2026-03-09'::date,
  '02:00 with offset 4 counts for the previous day');
select is(private.study_day_of(tests.get_user_id('bud'), '2026-03-10 04:00+00'), '2026-03-10'::date,
  '04:00 with offset 4 is the new day');
update public.user_settings set timezone_offset_minutes = 120 where user_id = tests.get_user_id('bud');
select is(private.study_day_of(tests.get_user_id('bud'), '2026-03-10 01:00+00'), '2026-03-09'::date,
  'the offset applies to local time (UTC+2: 03:00 local is still the previous day)');

select * from finish();
rollback;
