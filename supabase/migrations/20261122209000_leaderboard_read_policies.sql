-- Leaderboard reads: every signed-in user may read everyone's statistics (points = settled minutes
-- + correct answers). This file alone is leaderboard-rls-fix.sql; the same policies are repeated in
-- 20261122200500_community_study_stats.sql so community-patch-v6.sql carries them too.
-- Rules: docs/database.md#study-data-and-statistics (without these, a leaderboard shows only the caller).

drop policy if exists "authenticated read all summaries for leaderboards" on public.user_stats_summary;
create policy "authenticated read all summaries for leaderboards" on public.user_stats_summary
  for select to authenticated using (true);

drop policy if exists "authenticated read all daily stats for leaderboards" on public.daily_user_stats;
create policy "authenticated read all daily stats for leaderboards" on public.daily_user_stats
  for select to authenticated using (true);

grant select on public.user_stats_summary, public.daily_user_stats to authenticated;
