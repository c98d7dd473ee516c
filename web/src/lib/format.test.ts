// Counts read with the digit grouping of the student's locale wherever they are shown: alone, in
// "n things" and inside durations.
import { describe, expect, it } from 'vitest';
import { formatCount, minutesText, plural } from './format.ts';

const grouped = (value: number) => new Intl.NumberFormat(undefined).format(value);

describe('formatCount', () => {
  it("groups digits as the runtime's locale does", () => {
    expect(formatCount(1_000_000)).toBe(grouped(1_000_000));
    expect(formatCount(1_000_000)).not.toBe('1000000');
    expect(formatCount(999)).toBe('999');
    expect(formatCount(0)).toBe('0');
  });

  it('groups the count in plural', () => {
    expect(plural(1_000_000, 'point')).toBe(`${grouped(1_000_000)} points`);
    expect(plural(1, 'point')).toBe('1 point');
  });

  it('groups the minutes and hours of a long duration', () => {
    expect(minutesText(25)).toBe('25 min');
    expect(minutesText(60_000)).toBe(`${grouped(1000)} h`);
    expect(minutesText(1_000_000)).toBe(`${grouped(16_666)} h 40 min`);
  });
});
