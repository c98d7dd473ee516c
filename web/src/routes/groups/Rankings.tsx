// The group's leaderboard (points = study minutes + correct answers; today, this week, this month
// or all time) and its analytics (minutes and active members per day over 7 or 30 days). Both are
// members-only database functions.
import { useMemo, useState } from 'preact/hooks';
import { Lazy } from '../../components/Lazy.tsx';
import { TrophyIcon } from '../../components/community/icons.tsx';
import { ErrorNotice } from '../../components/community/Notices.tsx';
import { useLoad } from '../../components/community/useLoad.ts';
import { readAnalytics, readLeaderboard, type Period } from '../../lib/community/groups.ts';
import { lastStudyDays } from '../../lib/community/analytics-days.ts';
import { formatCount, minutesText, plural } from '../../lib/format.ts';
import { studyDayOf } from '../../lib/study-day.ts';
import { settings } from '../../state/signals.ts';

const PERIODS: { value: Period; label: string; empty: string }[] = [
  { value: 'day', label: 'Today', empty: 'today' },
  { value: 'week', label: 'Week', empty: 'in the last 7 days' },
  { value: 'month', label: 'Month', empty: 'in the last 30 days' },
  { value: 'all', label: 'All time', empty: 'yet' },
];

const loadChart = () => import('./AnalyticsChart.tsx');

function Segmented<T extends string | number>({
  label,
  options,
  value,
  onChange,
}: {
  label: string;
  options: { value: T; label: string }[];
  value: T;
  onChange: (next: T) => void;
}) {
  return (
    <div class="segmented-control" role="group" aria-label={label}>
      {options.map((option) => (
        <button
          key={String(option.value)}
          type="button"
          aria-pressed={option.value === value}
          class={option.value === value ? 'is-selected' : ''}
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}

function Leaderboard({ groupId, meId }: { groupId: string; meId: string | null }) {
  const [period, setPeriod] = useState<Period>('week');
  const board = useLoad(() => readLeaderboard(groupId, period), [groupId, period]);
  const ranked = (board.data ?? []).filter((row) => row.points > 0);
  const words = PERIODS.find((item) => item.value === period);
  return (
    <section class="card stack" aria-labelledby="leaderboard-title">
      <div class="row-between">
        <h2 id="leaderboard-title" class="card-title">
          Leaderboard
        </h2>
        <Segmented label="Leaderboard period" options={PERIODS} value={period} onChange={setPeriod} />
      </div>
      {board.error ? (
        <ErrorNotice error={board.error} onRetry={() => void board.reload()} />
      ) : !board.data ? (
        <div class="stack-tight" aria-busy="true">
          <div class="skeleton skeleton-line skeleton-long" />
          <div class="skeleton skeleton-line" />
        </div>
      ) : ranked.length === 0 ? (
        <div class="empty">
          <TrophyIcon size={24} />
          <strong>No points {words?.empty}</strong>
          <p>Finished focus sessions count: a minute is a point, and so is each correct answer.</p>
        </div>
      ) : (
        <table class="table leaderboard">
          <caption class="visually-hidden">Points {words?.empty}: study minutes plus correct answers</caption>
          <thead>
            <tr>
              <th scope="col" class="number">
                #
              </th>
              <th scope="col">Member</th>
              <th scope="col" class="number hide-phone">
                Minutes
              </th>
              <th scope="col" class="number hide-phone">
                Correct
              </th>
              <th scope="col" class="number">
                Points
              </th>
            </tr>
          </thead>
          <tbody>
            {ranked.map((row) => (
              <tr key={row.user_id} class={row.user_id === meId ? 'is-you' : ''}>
                <td class="number">
                  <span class={`rank rank-${row.rank}`}>{formatCount(row.rank)}</span>
                </td>
                <td>
                  {row.display_name}
                  {row.user_id === meId && <span class="muted"> (you)</span>}
                  <span class="show-phone small muted">
                    {minutesText(row.minutes)} · {formatCount(row.correct)} correct
                  </span>
                </td>
                <td class="number nowrap hide-phone">{minutesText(row.minutes)}</td>
                <td class="number hide-phone">{formatCount(row.correct)}</td>
                <td class="number">
                  <strong>{formatCount(row.points)}</strong>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="small muted">
        Members appear here while they share both their study time and their question counts (
        <a href="/privacy">Privacy</a>).
      </p>
    </section>
  );
}

function Analytics({ groupId }: { groupId: string }) {
  const [days, setDays] = useState<7 | 30>(7);
  const today = studyDayOf(Date.now(), settings.value.dayOffsetHours);
  // One day more than shown: the database's today can be a day ahead of the student's.
  const data = useLoad(() => readAnalytics(groupId, days + 1), [groupId, days]);
  const rows = useMemo(() => lastStudyDays(data.data ?? [], days, today), [data.data, days, today]);
  const total = rows.reduce((sum, row) => sum + row.total_minutes, 0);
  const busiest = rows.reduce((best, row) => Math.max(best, row.active_members), 0);
  return (
    <section class="card stack" aria-labelledby="analytics-title">
      <div class="row-between">
        <h2 id="analytics-title" class="card-title">
          Group activity
        </h2>
        <Segmented
          label="Activity period"
          options={[
            { value: 7 as const, label: '7 days' },
            { value: 30 as const, label: '30 days' },
          ]}
          value={days}
          onChange={setDays}
        />
      </div>
      {data.error ? (
        <ErrorNotice error={data.error} onRetry={() => void data.reload()} />
      ) : !data.data ? (
        <div class="skeleton skeleton-card" aria-busy="true" aria-label="Loading activity" />
      ) : (
        <>
          {total > 0 && (
            <p class="small muted tabular">
              {minutesText(total)} studied together in {days} days; at most {plural(busiest, 'member')} active on one
              day.
            </p>
          )}
          {total === 0 ? (
            <div class="empty">
              <strong>No study time in the last {days} days</strong>
              <p>When members finish focus sessions, their minutes add up here day by day.</p>
            </div>
          ) : (
            <Lazy load={loadChart} props={{ days: rows }} fallback={<div class="skeleton skeleton-card" />} />
          )}
        </>
      )}
    </section>
  );
}

export function Rankings({ groupId, meId }: { groupId: string; meId: string | null }) {
  return (
    <div class="grid-2 rankings">
      <Leaderboard groupId={groupId} meId={meId} />
      <Analytics groupId={groupId} />
    </div>
  );
}
