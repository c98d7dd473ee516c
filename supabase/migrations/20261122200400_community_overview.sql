-- Buddy overview: one entry per accepted buddy and per pending request (either direction), with
-- each buddy's study data filtered by that buddy's own privacy switches. Pending requests and
-- everyone else get no study data at all.
-- Idempotent: part of community-patch-v6.sql.
-- Rules: docs/database.md#buddy-overview; the study day: docs/database.md#the-study-day.
--
-- Switch -> field: shareExactTime -> minutesToday; shareSubjectBreakdown -> subjects;
-- shareQuestionCounts -> questionsToday and subjects[].questions; shareTasks -> tasks and
-- presence.task; shareCurrentSubject -> presence.subject; stealthMode -> presence reads
-- {state: offline, subject: null, task: null}. A withheld field is null; [] means nothing settled.

create index if not exists study_sessions_user_day_subject_idx
  on public.study_sessions (user_id, study_day, subject_name);

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
    select jsonb_agg(entry order by sort_status, sort_name)
    from (
      select
        case when c.status = 'accepted' then 0 else 1 end as sort_status,
        lower(coalesce(pr.handle, u.username)) as sort_name,
        jsonb_build_object(
          'connectionId', c.id,
          'userId', other.id,
          'handle', coalesce(pr.handle, pr.profile_data ->> 'community_handle'),
          'displayName', pr.display_name,
          'status', c.status,
          'outgoing', c.status = 'pending' and c.user_id = v_uid,
          'minutesToday', case when buddy and sw.exact_time then coalesce(ds.minutes, 0) end,
          'questionsToday', case when buddy and sw.question_counts
                                 then coalesce(ds.correct + ds.incorrect + ds.skipped, 0) end,
          'subjects', case when buddy and sw.subject_breakdown then coalesce(subj.items, '[]'::jsonb) end,
          'tasks', case when buddy and sw.tasks then coalesce(tk.items, '[]'::jsonb) end,
          'presence', case when buddy then jsonb_build_object(
              'state', case when sw.stealth then 'offline'
                            else coalesce(private.effective_presence_status(p.status, p.last_seen), 'offline') end,
              'subject', case when not sw.stealth and sw.current_subject and live
                              then p.subject_name end,
              'task', case when not sw.stealth and sw.tasks and live then p.task_title end) end
        ) as entry
      from public.community_friends c
      cross join lateral (select case when c.user_id = v_uid then c.friend_id else c.user_id end as id) other
      cross join lateral (select c.status = 'accepted' as buddy) b
      join public.users u on u.id = other.id
      left join public.user_profiles pr on pr.user_id = other.id
      left join public.community_enrollments e on e.user_id = other.id
      cross join lateral (select
          coalesce((e.privacy ->> 'stealthMode')::boolean, false) as stealth,
          coalesce((e.privacy ->> 'shareTasks')::boolean, false) as tasks,
          coalesce((e.privacy ->> 'shareSubjectBreakdown')::boolean, false) as subject_breakdown,
          coalesce((e.privacy ->> 'shareQuestionCounts')::boolean, false) as question_counts,
          coalesce((e.privacy ->> 'shareExactTime')::boolean, false) as exact_time,
          coalesce((e.privacy ->> 'shareCurrentSubject')::boolean, false) as current_subject) sw
      cross join lateral (select private.study_day_of(other.id, now()) as today) d
      left join public.daily_user_stats ds on b.buddy and ds.user_id = other.id and ds.study_day = d.today
      left join public.user_presence p on b.buddy and p.user_id = other.id
      cross join lateral (select coalesce(p.last_seen >= now() - interval '2 minutes', false) as live) lv
      left join lateral (
        select jsonb_agg(jsonb_build_object(
                 'name', s.name, 'minutes', s.minutes,
                 'questions', case when sw.question_counts then s.questions end)
               order by s.minutes desc, s.name) as items
        from (select coalesce(ss.subject_name, '') as name, sum(ss.minutes)::int as minutes,
                     sum(ss.correct + ss.incorrect + ss.skipped)::int as questions
              from public.study_sessions ss
              where ss.user_id = other.id and ss.study_day = d.today
              group by 1 order by 2 desc, 1 limit 8) s
        where b.buddy and sw.subject_breakdown) subj on true
      left join lateral (
        select jsonb_agg(jsonb_build_object('id', t.id, 'title', t.title, 'subject', t.subject_name,
                                            'done', t.done) order by t.created_at) as items
        from public.user_tasks t
        where b.buddy and sw.tasks and t.user_id = other.id and t.task_day = d.today) tk on true
      where (c.user_id = v_uid or c.friend_id = v_uid) and c.status in ('accepted', 'pending')
    ) rows), '[]'::jsonb);
end
$$;
comment on function public.community_get_overview() is
  'rpc: the caller''s buddies and pending requests, each buddy''s data filtered by their own privacy switches.';

revoke execute on function public.community_get_overview() from public, anon;
grant execute on function public.community_get_overview() to authenticated;
