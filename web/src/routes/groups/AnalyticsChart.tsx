// Minutes per day for the group (uPlot, loaded with this chart only), in the theme's colours,
// with the same numbers as a table for screen readers.
import { useRef } from 'preact/hooks';
import type { AnalyticsDay } from '#contracts/community-answers.ts';
import { useDayBarsChart } from '../../components/charts/useDayBarsChart.ts';
import { formatCount } from '../../lib/format.ts';

function dayMs(day: string): number {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year ?? 1970, (month ?? 1) - 1, date ?? 1, 12).getTime();
}

export default function AnalyticsChart({ days }: { days: AnalyticsDay[] }) {
  const host = useRef<HTMLDivElement>(null);
  useDayBarsChart(
    host,
    () => ({
      days: days.map((day) => dayMs(day.study_day) / 1000),
      minutes: days.map((day) => day.total_minutes),
      padEnds: true,
    }),
    [days],
  );
  return (
    <figure class="activity-chart">
      <div ref={host} class="activity-chart-canvas" aria-hidden="true" />
      <figcaption class="small muted">Minutes the group studied per day.</figcaption>
      {/* A table's box ignores width, height and overflow, so the hidden wrapper is what keeps its
          rows from stretching the page (and scrolling the rail away) below the frame. */}
      <div class="visually-hidden">
        <table>
          <caption>Group minutes and active members per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Minutes</th>
              <th scope="col">Active members</th>
            </tr>
          </thead>
          <tbody>
            {days.map((day) => (
              <tr key={day.study_day}>
                <td>{day.study_day}</td>
                <td>{formatCount(day.total_minutes)}</td>
                <td>{formatCount(day.active_members)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
