// @vitest-environment happy-dom
// The life of a day-bars chart, with uPlot replaced by a recorder: made once the library loads,
// with the data, width and y range asked for; resized with its container; made again (the old one
// destroyed) when the colour scheme changes; destroyed with the component, and never made at all
// when the component is gone before the library loaded.
import { cleanup, render, waitFor } from '@testing-library/preact';
import { useRef } from 'preact/hooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { dayTicks, useDayBarsChart, type DayBars } from './useDayBarsChart.ts';

interface FakeChart {
  options: {
    width: number;
    scales: {
      x: { range?: (u: unknown, min: number, max: number) => number[] };
      y: { range: (u: unknown, min: number, max: number) => number[] };
    };
    axes: { splits?: (u: { bbox: { width: number } }) => number[] }[];
  };
  data: number[][];
  height: number;
  destroyed: boolean;
  sizes: { width: number; height: number }[];
}

const charts: FakeChart[] = [];

vi.mock('uplot', () => ({
  default: class {
    static paths = { bars: () => 'bars' };
    options: FakeChart['options'];
    data: number[][];
    height = 192;
    destroyed = false;
    sizes: FakeChart['sizes'] = [];
    constructor(options: FakeChart['options'], data: number[][]) {
      this.options = options;
      this.data = data;
      charts.push(this);
    }
    setSize(size: { width: number; height: number }) {
      this.sizes.push(size);
    }
    destroy() {
      this.destroyed = true;
    }
  },
}));

let resize: (() => void) | undefined;
let disconnected = 0;
let schemeListeners: Set<() => void>;

beforeEach(() => {
  charts.length = 0;
  resize = undefined;
  disconnected = 0;
  schemeListeners = new Set();
  vi.stubGlobal(
    'ResizeObserver',
    class {
      constructor(callback: () => void) {
        resize = callback;
      }
      observe() {}
      disconnect() {
        disconnected += 1;
      }
    },
  );
  vi.stubGlobal('matchMedia', () => ({
    addEventListener: (_type: string, listener: () => void) => schemeListeners.add(listener),
    removeEventListener: (_type: string, listener: () => void) => schemeListeners.delete(listener),
  }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function Chart({ bars }: { bars: DayBars }) {
  const host = useRef<HTMLDivElement>(null);
  useDayBarsChart(host, () => bars, [bars]);
  return <div ref={host} />;
}

const week: DayBars = { days: [86_400, 172_800, 259_200], minutes: [20, 0, 45], minTopMinutes: 90 };

describe('a day-bars chart', () => {
  it('is made with the data, and a y axis reaching the goal (or 30 minutes) with room above', async () => {
    render(<Chart bars={week} />);
    await waitFor(() => expect(charts).toHaveLength(1));
    const chart = charts[0] as FakeChart;
    expect(chart.data).toEqual([week.days, week.minutes]);
    expect(chart.options.scales.y.range(null, 0, 45)[1]).toBeCloseTo(99);
    expect(chart.options.scales.y.range(null, 0, 120)[1]).toBeCloseTo(132);
    expect(chart.options.scales.x.range).toBeUndefined();
    render(<Chart bars={{ days: [86_400], minutes: [5], padEnds: true }} />);
    await waitFor(() => expect(charts).toHaveLength(2));
    const padded = charts[1] as FakeChart;
    expect(padded.options.scales.y.range(null, 0, 5)[1]).toBeCloseTo(33);
    expect(padded.options.scales.x.range?.(null, 86_400, 86_400)).toEqual([43_200, 129_600]);
  });

  it('follows its container, is made again on a colour scheme change, and is destroyed with the component', async () => {
    const { unmount } = render(<Chart bars={week} />);
    await waitFor(() => expect(charts).toHaveLength(1));
    resize?.();
    expect(charts[0]?.sizes).toEqual([{ width: 0, height: 192 }]);
    for (const listener of schemeListeners) listener();
    await waitFor(() => expect(charts).toHaveLength(2));
    expect(charts.map((chart) => chart.destroyed)).toEqual([true, false]);
    unmount();
    expect(charts.map((chart) => chart.destroyed)).toEqual([true, true]);
    expect(disconnected).toBe(1);
    expect(schemeListeners.size).toBe(0);
  });

  it('is never made when the component is gone before uPlot loaded', async () => {
    const { unmount } = render(<Chart bars={week} />);
    unmount();
    // Time for uPlot's import to finish and make a chart, were it to: nothing to wait on.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(charts).toHaveLength(0);
  });

  it("labels the bars' own days, never the day after the last one, however wide the padded axis is", async () => {
    const days = Array.from({ length: 7 }, (_, index) => 86_400 * (index + 1) + 43_200);
    render(<Chart bars={{ days, minutes: days.map(() => 10), padEnds: true }} />);
    await waitFor(() => expect(charts).toHaveLength(1));
    const ticks = charts[0]!.options.axes[0]!.splits?.({ bbox: { width: 640 * devicePixelRatio } }) ?? [];
    expect(ticks).toEqual(days);
    expect(Math.max(...ticks)).toBe(days.at(-1));
  });
});

describe('dayTicks', () => {
  const month = Array.from({ length: 30 }, (_, index) => index * 86_400);

  it('keeps every day when they fit, and thins a month on a phone while ending with the last day', () => {
    expect(dayTicks(month, 30 * 64)).toEqual(month);
    const phone = dayTicks(month, 320);
    expect(phone.length).toBeLessThanOrEqual(5);
    expect(phone.at(-1)).toBe(month.at(-1));
    expect(phone.every((tick) => month.includes(tick))).toBe(true);
  });

  it('labels the one day of a one-day chart', () => {
    expect(dayTicks([86_400], 10)).toEqual([86_400]);
  });
});
