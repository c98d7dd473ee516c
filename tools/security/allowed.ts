// The only reads of another student's rows that the rules allow, each named as the rule a reviewer
// can check against docs/database.md. `rows` is a condition on the row, evaluated by the database
// owner (so it may read other tables, such as the victim's privacy switches): exactly the victim's
// rows it matches may be visible to that role, and each rule must actually let some row through
// in the matrix (a rule that allows nothing is stale and fails the matrix).
// Writes have no exceptions: nobody but the owner changes, creates or deletes a student's rows.

export interface AllowedRead {
  table: string;
  role: 'anon' | 'authenticated';
  rule: string;
  rows: string;
}

// docs/database.md#leaderboards-and-privacy: a leaderboard row shows minutes and correct answers,
// so it is readable by others only while its student shares both and is not in stealth mode.
const LEADERBOARD_RULE =
  'leaderboard stats are readable by signed-in students while their student shares ' +
  'study time and question counts and is not in stealth mode';
const SHARES_LEADERBOARD_STATS = `user_id in (select e.user_id from public.community_enrollments e
  where e.privacy @> '{"stealthMode": false, "shareExactTime": true, "shareQuestionCounts": true}')`;

export const ALLOWED_READS: AllowedRead[] = [
  {
    table: 'groups',
    role: 'authenticated',
    rule: 'public groups are readable by anyone signed in (discovery lists them)',
    rows: `visibility = 'public'`,
  },
  {
    table: 'user_stats_summary',
    role: 'authenticated',
    rule: LEADERBOARD_RULE,
    rows: SHARES_LEADERBOARD_STATS,
  },
  {
    table: 'daily_user_stats',
    role: 'authenticated',
    rule: LEADERBOARD_RULE,
    rows: SHARES_LEADERBOARD_STATS,
  },
];
