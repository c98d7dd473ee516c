// /stats: today, this week, this month, the streak, minutes per subject and a chart per day, from
// the sessions on this device (the ones still waiting to sync included; a session the backend
// voided is listed with its reason but not counted).
import { useMemo } from 'preact/hooks';
import { TitledSection } from '../../components/TitledSection.tsx';
import { dayLabel, formatCount, minutesText, plural } from '../../lib/format.ts';
import { computeStats, type Totals } from '../../lib/stats.ts';
import { studyDayOf } from '../../lib/study-day.ts';
import { sessions, settings, syncState } from '../../state/signals.ts';
import { DayChart } from './DayChart.tsx';
import '../../styles/stats.css';

function Tile({ label, totals, note }: { label: string; totals: Totals; note?: string }) {
  return (
    <div class="stat-tile card">
      <p class="stat-label">{label}</p>
      <p class="stat-value tabular" data-testid={`stat-${label.toLowerCase().replace(/\s+/g, '-')}`}>
        {minutesText(totals.minutes)}
      </p>
      <p class="stat-meta small muted tabular">
        {plural(totals.sessions, 'session')} · {plural(totals.points, 'point')}
      </p>
      {note && <p class="small muted">{note}</p>}
    </div>
  );
}

export default function StatsPage() {
  const today = studyDayOf(Date.now(), settings.value.dayOffsetHours);
  const all = sessions.value;
  const stats = useMemo(() => computeStats(all, today), [all, today]);
  const unsynced = all.filter((session) => !session.synced).length;
  const recent = [...all].sort((a, b) => b.startedAt - a.startedAt).slice(0, 8);
  const maxSubject = stats.perSubject[0]?.minutes ?? 1;
  document.title = 'Stats · studyhall';

  return (
    <div class="page">
      <div class="page-head">
        <div>
          <h1 class="page-title">Stats</h1>
          <p class="page-lead">Points are focus minutes plus correct answers, as on the leaderboards.</p>
        </div>
        {unsynced > 0 && <span class="badge badge-warning">{plural(unsynced, 'session')} will sync</span>}
      </div>

      {all.length === 0 ? (
        <div class="empty">
          <strong>No study sessions yet</strong>
          <p>Start a focus session; when you press Finish, its minutes appear here with your streak and subjects.</p>
          <a class="button button-primary" href="/focus">
            Start focusing
          </a>
        </div>
      ) : (
        <>
          <div class="stat-tiles">
            <Tile label="Today" totals={stats.today} note={`Goal ${minutesText(settings.value.dailyGoalMinutes)}`} />
            <Tile label="This week" totals={stats.week} />
            <Tile label="This month" totals={stats.month} />
            <div class="stat-tile card">
              <p class="stat-label">Streak</p>
              <p class="stat-value tabular">{plural(stats.streakDays, 'day')}</p>
              <p class="stat-meta small muted">Longest: {plural(stats.longestStreakDays, 'day')}</p>
            </div>
          </div>

          <TitledSection class="card" titleId="chart-title" title="Per day">
            <DayChart perDay={stats.perDay} today={today} goal={settings.value.dailyGoalMinutes} />
          </TitledSection>

          <div class="grid-2 stats-columns">
            <TitledSection class="card" titleId="subjects-title" title="Minutes per subject">
              <ul class="subject-bars">
                {stats.perSubject.map((subject) => (
                  <li key={subject.name}>
                    <div class="row-between">
                      <span class="subject-name">{subject.name}</span>
                      <span class="tabular muted small">{minutesText(subject.minutes)}</span>
                    </div>
                    <div class="bar-track" aria-hidden="true">
                      <span style={{ width: `${(subject.minutes / maxSubject) * 100}%` }} />
                    </div>
                  </li>
                ))}
              </ul>
            </TitledSection>
            <TitledSection class="card" titleId="recent-title" title="Recent sessions">
              <ul class="list">
                {recent.map((session) => (
                  <li key={session.id} class="list-item">
                    <div class="list-main">
                      <p class="list-title">
                        {session.subjectName ?? 'No subject'}
                        {session.taskTitle ? ` · ${session.taskTitle}` : ''}
                      </p>
                      <p class="list-meta tabular">
                        {dayLabel(session.studyDay, today)} · {minutesText(session.minutes)} ·{' '}
                        {formatCount(session.correct)} correct, {formatCount(session.incorrect)} incorrect,{' '}
                        {formatCount(session.skipped)} skipped
                      </p>
                      {session.voidedAt && (
                        <p class="list-meta" data-testid="void-reason">
                          Not counted: {session.voidReason || 'voided on the server'}
                        </p>
                      )}
                    </div>
                    {session.voidedAt ? (
                      <span class="badge badge-warning">voided</span>
                    ) : (
                      !session.synced && (
                        <span class="badge badge-warning">
                          {syncState.value.failed > 0 ? 'not synced' : 'will sync'}
                        </span>
                      )
                    )}
                  </li>
                ))}
              </ul>
            </TitledSection>
          </div>
        </>
      )}
    </div>
  );
}
