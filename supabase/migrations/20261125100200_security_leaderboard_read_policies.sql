-- The two leaderboard read policies, same names, now follow the privacy switches: another student's
-- statistics are readable only while she shares study time and question counts outside stealth mode.
-- Rules: docs/database.md#leaderboards-and-privacy. Idempotent: in community-patch-v6 and leaderboard-rls-fix.

-- Why both switches: a leaderboard row holds minutes and correct answers and ranks by their sum
-- (points), so a row shown with either one withheld would still give it away as points minus the
-- other. Stealth mode hides the student from everyone else's leaderboards altogether.
--
-- The students whose statistics others may read. RLS hides every enrollment but the caller's own,
-- so a definer reads them; policies call it once per statement (`user_id in (select ...)`, a
-- hashed set) instead of once per row. PL/pgSQL keeps its plan for the session.
create or replace function private.leaderboard_visible_ids() returns setof uuid
language plpgsql
stable
security definer
set search_path = ''
as $$
begin
  return query
    select e.user_id from public.community_enrollments e
    where e.privacy @> '{"stealthMode": false, "shareExactTime": true, "shareQuestionCounts": true}'::jsonb;
end
$$;

drop policy if exists "authenticated read all summaries for leaderboards" on public.user_stats_summary;
create policy "authenticated read all summaries for leaderboards" on public.user_stats_summary
  for select to authenticated using (user_id in (select private.leaderboard_visible_ids()));

drop policy if exists "authenticated read all daily stats for leaderboards" on public.daily_user_stats;
create policy "authenticated read all daily stats for leaderboards" on public.daily_user_stats
  for select to authenticated using (user_id in (select private.leaderboard_visible_ids()));

grant select on public.user_stats_summary, public.daily_user_stats to authenticated;
revoke execute on function private.leaderboard_visible_ids() from public, anon;
-- Policies run with the caller's rights.
grant execute on function private.leaderboard_visible_ids() to authenticated;
