// Minutes per study day as bars (uPlot, loaded with this screen only), drawn in the theme's
// colours, with the same numbers as a table for screen readers.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import { dayLabel } from '../../lib/format.ts';
import { dateOfKey } from '../../lib/study-day.ts';
import 'uplot/dist/uPlot.min.css';

function token(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export function DayChart({ perDay, today, goal }: { perDay: { day: string; minutes: number }[]; today: string; goal: number }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    let chart: uPlot | undefined;
    let cancelled = false;
    const draw = async () => {
      const { default: UPlot } = await import('uplot');
      if (cancelled) return;
      chart?.destroy();
      const xs = perDay.map((entry) => dateOfKey(entry.day).getTime() / 1000);
      const ys = perDay.map((entry) => entry.minutes);
      const accent = token('--color-accent');
      const muted = token('--color-text-muted');
      const grid = token('--color-border');
      const axis = { stroke: muted, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '12px system-ui, sans-serif' };
      chart = new UPlot(
        {
          width: element.clientWidth,
          height: Number.parseFloat(token('--chart-height')) * 16 || 192,
          legend: { show: false },
          cursor: { show: false },
          scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(goal, max, 30) * 1.1] } },
          axes: [
            { ...axis, values: (_u, splits) => splits.map((seconds) => new Date(seconds * 1000).toLocaleDateString(undefined, { day: 'numeric', month: 'short' })) },
            { ...axis, size: 56, values: (_u, splits) => splits.map((minutes) => `${Math.round(minutes)}m`) },
          ],
          series: [
            {},
            { label: 'Minutes', stroke: accent, fill: accent, width: 0, paths: UPlot.paths.bars?.({ size: [0.7, 24] }), points: { show: false } },
          ],
        },
        [xs, ys],
        element,
      );
    };
    void draw();
    const observer = new ResizeObserver(() => chart?.setSize({ width: element.clientWidth, height: chart.height }));
    observer.observe(element);
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    const redraw = () => void draw();
    scheme.addEventListener('change', redraw);
    return () => {
      cancelled = true;
      observer.disconnect();
      scheme.removeEventListener('change', redraw);
      chart?.destroy();
    };
  }, [perDay, goal]);
  return (
    <figure class="day-chart">
      <div ref={host} class="day-chart-canvas" aria-hidden="true" />
      <figcaption class="small muted">Minutes of focus per day, last {perDay.length} days. Daily goal: {goal} min.</figcaption>
      <table class="visually-hidden">
        <caption>Minutes per day</caption>
        <thead>
          <tr><th scope="col">Day</th><th scope="col">Minutes</th></tr>
        </thead>
        <tbody>
          {perDay.map((entry) => (
            <tr key={entry.day}><td>{dayLabel(entry.day, today)}</td><td>{entry.minutes}</td></tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}
