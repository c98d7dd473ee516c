-- The group leaderboard and group analytics follow the leaderboard privacy rule: another member counts
-- there only while she shares study time and question counts outside stealth mode.
-- Rules: docs/database.md#leaderboards-and-privacy. Idempotent: part of community-patch-v6.sql.

-- Both functions are definers (they read every member's daily_user_stats past RLS), so they apply
-- the rule themselves: the caller always sees her own numbers, anyone else only when
-- private.leaderboard_visible_ids() admits her. A hidden member has no row on the board (ranks
-- close up) and adds nothing to the analytics, whose totals would otherwise give her minutes away
-- in a small group.

create or replace function public.get_group_leaderboard(p_group_id uuid, p_limit integer default 50, p_days integer default 7)
returns table (rank bigint, user_id uuid, display_name text, minutes bigint, correct bigint, points bigint)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if (select auth.uid()) is null or not public._is_group_member(p_group_id, (select auth.uid())) then
    raise exception 'not_group_member' using errcode = 'P0001', hint = 'only members see a group''s leaderboard';
  end if;
  return query
    with totals as (
      select m.user_id, m.joined_at,
             coalesce(sum(s.minutes), 0)::bigint as minutes,
             coalesce(sum(s.correct), 0)::bigint as correct
      from public.group_members m
      left join public.daily_user_stats s
        on s.user_id = m.user_id and s.study_day > current_date - greatest(coalesce(p_days, 7), 1)
      where m.group_id = p_group_id
        and (m.user_id = (select auth.uid()) or m.user_id in (select private.leaderboard_visible_ids()))
      group by m.user_id, m.joined_at
    )
    select row_number() over (order by t.minutes + t.correct desc, t.joined_at, t.user_id),
           t.user_id, coalesce(p.display_name, p.handle, 'a student'), t.minutes, t.correct,
           t.minutes + t.correct
    from totals t left join public.user_profiles p on p.user_id = t.user_id
    order by 1
    limit least(greatest(coalesce(p_limit, 50), 1), 500);
end
$$;
comment on function public.get_group_leaderboard(uuid, integer, integer) is
  'rpc: a group''s members ranked by points (minutes + correct answers over p_days), ties by join time; members only; others only as far as they share.';

create or replace function public.get_group_analytics_from_snapshots(p_group_id uuid, p_days integer default 30)
returns table (study_day date, total_minutes bigint, total_correct bigint, active_members bigint)
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  if (select auth.uid()) is null or not public._is_group_member(p_group_id, (select auth.uid())) then
    raise exception 'not_group_member' using errcode = 'P0001', hint = 'only members see a group''s analytics';
  end if;
  return query
    select d::date, coalesce(sum(s.minutes), 0)::bigint, coalesce(sum(s.correct), 0)::bigint,
           count(s.user_id) filter (where s.minutes > 0 or s.sessions > 0)
    from generate_series(current_date - (least(greatest(coalesce(p_days, 30), 1), 366) - 1), current_date, interval '1 day') d
    left join public.daily_user_stats s
      on s.study_day = d::date
     and s.user_id in (select m.user_id from public.group_members m
                       where m.group_id = p_group_id
                         and (m.user_id = (select auth.uid()) or m.user_id in (select private.leaderboard_visible_ids())))
    group by d
    order by d;
end
$$;
comment on function public.get_group_analytics_from_snapshots(uuid, integer) is
  'rpc: per-day totals (minutes, correct answers, active members) of a group over p_days; members only; others only as far as they share.';
