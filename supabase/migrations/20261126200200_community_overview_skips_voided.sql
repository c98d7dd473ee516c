-- The buddy overview's subject breakdown for today reads study_sessions directly; a session an admin
-- voided counts nowhere (docs/database.md#voided-sessions), so it leaves that breakdown too. The
-- function is 20261123100300_community_overview_set_based.sql's with one more join condition.
-- Idempotent: part of community-patch-v6.sql.

create or replace function public.community_get_overview() returns jsonb
language plpgsql
stable
security definer
set search_path = ''
as $$
declare
  v_uid uuid := auth.uid();
begin
  if v_uid is null then
    raise exception 'not_authenticated' using errcode = 'P0001', hint = 'sign in first';
  end if;
  return coalesce((
    with connection as (
      select c.id, c.status, c.status = 'accepted' as buddy,
             c.status = 'pending' and c.user_id = v_uid as outgoing,
             case when c.user_id = v_uid then c.friend_id else c.user_id end as other_id
      from public.community_friends c
      where (c.user_id = v_uid or c.friend_id = v_uid) and c.status in ('accepted', 'pending')
    ),
    -- One row per connection: the other person, their switches and their study day (the
    -- expression of private.study_day_of, at now(); a change to that function must be made here
    -- too: supabase/tests/database/33-community-overview.test.sql checks the day boundary under
    -- day_offset_hours through this query).
    person as materialized (
      select cn.*, u.username, pr.handle, pr.profile_data, pr.display_name,
             coalesce((e.privacy ->> 'stealthMode')::boolean, false) as stealth,
             coalesce((e.privacy ->> 'shareTasks')::boolean, false) as share_tasks,
             coalesce((e.privacy ->> 'shareSubjectBreakdown')::boolean, false) as share_subjects,
             coalesce((e.privacy ->> 'shareQuestionCounts')::boolean, false) as share_questions,
             coalesce((e.privacy ->> 'shareExactTime')::boolean, false) as share_time,
             coalesce((e.privacy ->> 'shareCurrentSubject')::boolean, false) as share_subject,
             ((now() at time zone 'UTC')
               + make_interval(mins => coalesce(st.timezone_offset_minutes, 0))
               - make_interval(hours => coalesce(st.day_offset_hours, 0)))::date as today
      from connection cn
      join public.users u on u.id = cn.other_id
      left join public.user_profiles pr on pr.user_id = cn.other_id
      left join public.community_enrollments e on e.user_id = cn.other_id
      left join public.user_settings st on st.user_id = cn.other_id
    ),
    -- Today's minutes and questions per buddy and subject, ranked within each buddy.
    subject_total as (
      select ss.user_id, coalesce(ss.subject_name, '') as name, sum(ss.minutes)::int as minutes,
             case when b.share_questions then sum(ss.correct + ss.incorrect + ss.skipped)::int end as questions,
             row_number() over (partition by ss.user_id
                                order by sum(ss.minutes) desc, coalesce(ss.subject_name, '')) as rank
      from person b
      join public.study_sessions ss on ss.user_id = b.other_id and ss.study_day = b.today and ss.voided_at is null
      where b.buddy and b.share_subjects
      group by ss.user_id, 2, b.share_questions
    ),
    subjects as (
      select s.user_id, jsonb_agg(item order by s.minutes desc, s.name) as items
      from subject_total s
      cross join lateral (select s.name, s.minutes, s.questions) item
      where s.rank <= 8
      group by s.user_id
    ),
    tasks as (
      select t.user_id, jsonb_agg(item order by t.created_at) as items
      from person b
      join public.user_tasks t on t.user_id = b.other_id and t.task_day = b.today
      cross join lateral (select t.id, t.title, t.subject_name as subject, t.done) item
      where b.buddy and b.share_tasks
      group by t.user_id
    )
    -- Each entry's keys are the column names of the row below.
    select jsonb_agg(entry order by case when b.buddy then 0 else 1 end, lower(coalesce(b.handle, b.username)))
    from person b
    left join public.daily_user_stats ds on b.buddy and ds.user_id = b.other_id and ds.study_day = b.today
    left join public.user_presence p on b.buddy and p.user_id = b.other_id
    left join subjects subj on subj.user_id = b.other_id
    left join tasks tk on tk.user_id = b.other_id
    cross join lateral (select
        b.id as "connectionId",
        b.other_id as "userId",
        coalesce(b.handle, b.profile_data ->> 'community_handle') as handle,
        b.display_name as "displayName",
        b.status,
        b.outgoing,
        case when b.buddy and b.share_time then coalesce(ds.minutes, 0) end as "minutesToday",
        case when b.buddy and b.share_questions
             then coalesce(ds.correct + ds.incorrect + ds.skipped, 0) end as "questionsToday",
        case when b.buddy and b.share_subjects then coalesce(subj.items, '[]'::jsonb) end as subjects,
        case when b.buddy and b.share_tasks then coalesce(tk.items, '[]'::jsonb) end as tasks,
        case when b.buddy then jsonb_build_object(
            'state', case when b.stealth then 'offline'
                          else coalesce(private.effective_presence_status(p.status, p.last_seen), 'offline') end,
            'subject', case when not b.stealth and b.share_subject and p.last_seen >= now() - interval '2 minutes'
                            then p.subject_name end,
            'task', case when not b.stealth and b.share_tasks and p.last_seen >= now() - interval '2 minutes'
                         then p.task_title end) end as presence) entry
  ), '[]'::jsonb);
end
$$;
comment on function public.community_get_overview() is
  'rpc: the caller''s buddies and pending requests, each buddy''s data filtered by their own privacy switches.';

revoke execute on function public.community_get_overview() from public, anon;
grant execute on function public.community_get_overview() to authenticated;
