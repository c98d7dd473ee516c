// Minutes per day as bars, drawn by uPlot in the theme's colours: the chart's whole life in one
// hook for every screen that shows one (the stats page, a group's analytics). uPlot is imported
// here, so it loads with the first screen that draws a chart, never with the app's first page.
// The chart is made once the library has loaded, follows its container's width, is drawn again
// when the colour scheme changes (the colours come from CSS variables), and is destroyed with the
// component or when its data change.
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';
import type uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface DayBars {
  /** Each day as epoch seconds. */
  days: number[];
  /** Minutes for each day. */
  minutes: number[];
  /** The y axis reaches at least this many minutes (a daily goal to show); 30 at the least. */
  minTopMinutes?: number;
  /** Half a day of room either side, so the first and last bars are whole rather than cut at the edges. */
  padEnds?: boolean;
}

function token(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

const HALF_DAY_SECONDS = 43_200;
/** Room a date label needs on the x axis, in CSS pixels. */
const LABEL_SPACING = 64;

/**
 * The days that get a label: the bars' own days (not uPlot's midnights, which would name the day
 * after the last bar at the padded right edge), as many as fit `width`, always ending with the
 * last day.
 */
export function dayTicks(days: number[], width: number): number[] {
  const fit = Math.max(1, Math.floor(width / LABEL_SPACING));
  const step = Math.max(1, Math.ceil(days.length / fit));
  const ticks: number[] = [];
  for (let index = days.length - 1; index >= 0; index -= step) ticks.unshift(days[index] as number);
  return ticks;
}

function chartOptions(UPlot: typeof uPlot, bars: DayBars, width: number): uPlot.Options {
  const accent = token('--color-accent');
  const muted = token('--color-text-muted');
  const grid = token('--color-border');
  const axis = {
    stroke: muted,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
    font: '12px system-ui, sans-serif',
  };
  const minTop = Math.max(bars.minTopMinutes ?? 0, 30);
  return {
    width,
    height: Number.parseFloat(token('--chart-height')) * 16 || 192,
    legend: { show: false },
    cursor: { show: false },
    scales: {
      x: bars.padEnds
        ? { time: true, range: (_u, min, max) => [min - HALF_DAY_SECONDS, max + HALF_DAY_SECONDS] }
        : { time: true },
      y: { range: (_u, _min, max) => [0, Math.max(minTop, max) * 1.1] },
    },
    axes: [
      {
        ...axis,
        splits: (u) => dayTicks(bars.days, u.bbox.width / devicePixelRatio || width),
        values: (_u, splits) =>
          splits.map((seconds) =>
            new Date(seconds * 1000).toLocaleDateString(undefined, { day: 'numeric', month: 'short' }),
          ),
      },
      { ...axis, size: 56, values: (_u, splits) => splits.map((minutes) => `${Math.round(minutes)}m`) },
    ],
    series: [
      {},
      {
        label: 'Minutes',
        stroke: accent,
        fill: accent,
        width: 0,
        paths: UPlot.paths.bars?.({ size: [0.7, 24] }),
        points: { show: false },
      },
    ],
  };
}

/**
 * Draws `bars` into the element `host` points at. `bars` is read when the chart is drawn: pass
 * `deps` that change whenever it does (the data the component was given).
 */
export function useDayBarsChart(host: RefObject<HTMLElement>, bars: () => DayBars, deps: unknown[]): void {
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    let chart: uPlot | undefined;
    let cancelled = false;
    const draw = async () => {
      const { default: UPlot } = await import('uplot');
      if (cancelled) return;
      chart?.destroy();
      const data = bars();
      chart = new UPlot(chartOptions(UPlot, data, element.clientWidth), [data.days, data.minutes], element);
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
    // The caller's deps stand for `bars` (a new function each render).
  }, deps);
}
