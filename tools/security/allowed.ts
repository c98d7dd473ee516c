// The only reads of another student's rows that the rules allow, each named as the rule a reviewer
// can check against docs/database.md. `rows` is a condition on the table's columns: exactly the victim's
// rows it matches may be visible to that role, and each rule must actually let some row through
// in the matrix (a rule that allows nothing is stale and fails the matrix).
// Writes have no exceptions: nobody but the owner changes, creates or deletes a student's rows.

export interface AllowedRead {
  table: string;
  role: 'anon' | 'authenticated';
  rule: string;
  rows: string;
}

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
    rule: 'leaderboard stats are readable by signed-in students',
    rows: 'true',
  },
  {
    table: 'daily_user_stats',
    role: 'authenticated',
    rule: 'leaderboard stats are readable by signed-in students',
    rows: 'true',
  },
];
