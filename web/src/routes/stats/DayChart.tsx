// Minutes per study day as bars (uPlot, loaded with this screen only), drawn in the theme's
// colours, with the same numbers as a table for screen readers.
import { useRef } from 'preact/hooks';
import { useDayBarsChart } from '../../components/charts/useDayBarsChart.ts';
import { dayLabel, formatCount } from '../../lib/format.ts';
import { dateOfKey } from '../../lib/study-day.ts';

export function DayChart({
  perDay,
  today,
  goal,
}: {
  perDay: { day: string; minutes: number }[];
  today: string;
  goal: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  useDayBarsChart(
    host,
    () => ({
      days: perDay.map((entry) => dateOfKey(entry.day).getTime() / 1000),
      minutes: perDay.map((entry) => entry.minutes),
      minTopMinutes: goal,
    }),
    [perDay, goal],
  );
  return (
    <figure class="day-chart">
      <div ref={host} class="day-chart-canvas" aria-hidden="true" />
      <figcaption class="small muted">
        Minutes of focus per day, last {perDay.length} days. Daily goal: {goal} min.
      </figcaption>
      {/* A table's box ignores width, height and overflow, so the hidden wrapper is what keeps its
          rows from stretching the page (and scrolling the rail away) below the frame. */}
      <div class="visually-hidden">
        <table>
          <caption>Minutes per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Minutes</th>
            </tr>
          </thead>
          <tbody>
            {perDay.map((entry) => (
              <tr key={entry.day}>
                <td>{dayLabel(entry.day, today)}</td>
                <td>{formatCount(entry.minutes)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
