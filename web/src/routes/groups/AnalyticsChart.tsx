// Minutes per day for the group (uPlot, loaded with this chart only), in the theme's colours,
// with the same numbers as a table for screen readers.
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import type { AnalyticsDay } from '../../lib/community/schemas.ts';
import 'uplot/dist/uPlot.min.css';

function token(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

function dayMs(day: string): number {
  const [year, month, date] = day.split('-').map(Number);
  return new Date(year ?? 1970, (month ?? 1) - 1, date ?? 1, 12).getTime();
}

export default function AnalyticsChart({ days }: { days: AnalyticsDay[] }) {
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
          // Half a day either side, so the first and last bars are whole rather than cut at the edges.
          scales: { x: { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] }, y: { range: (_u, _min, max) => [0, Math.max(max, 30) * 1.1] } },
          axes: [
            { ...axis, values: (_u, splits) => splits.map((seconds) => new Date(seconds * 1000).toLocaleDateString(undefined, { day: 'numeric', month: 'short' })) },
            { ...axis, size: 56, values: (_u, splits) => splits.map((minutes) => `${Math.round(minutes)}m`) },
          ],
          series: [{}, { label: 'Minutes', stroke: accent, fill: accent, width: 0, paths: UPlot.paths.bars?.({ size: [0.7, 24] }), points: { show: false } }],
        },
        [days.map((day) => dayMs(day.study_day) / 1000), days.map((day) => day.total_minutes)],
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
  }, [days]);
  return (
    <figure class="activity-chart">
      <div ref={host} class="activity-chart-canvas" aria-hidden="true" />
      <figcaption class="small muted">Minutes the group studied per day.</figcaption>
      <table class="visually-hidden">
        <caption>Group minutes and active members per day</caption>
        <thead><tr><th scope="col">Day</th><th scope="col">Minutes</th><th scope="col">Active members</th></tr></thead>
        <tbody>
          {days.map((day) => <tr key={day.study_day}><td>{day.study_day}</td><td>{day.total_minutes}</td><td>{day.active_members}</td></tr>)}
        </tbody>
      </table>
    </figure>
  );
}
