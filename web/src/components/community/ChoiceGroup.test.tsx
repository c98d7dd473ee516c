// @vitest-environment happy-dom
// A group of radio choices: named by its legend, the current value checked, a pick reported.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ChoiceGroup } from './ChoiceGroup.tsx';

afterEach(cleanup);

const CHOICES = [
  { value: 'public' as const, label: 'Public', hint: 'Anyone finds it.' },
  { value: 'private' as const, label: 'Private', hint: 'Only members see it.' },
];

describe('ChoiceGroup', () => {
  it('checks the current value and reports the one picked', () => {
    const onChange = vi.fn();
    render(
      <ChoiceGroup legend="Who can find it" name="g-visibility" choices={CHOICES} value="public" onChange={onChange} />,
    );
    expect(screen.getByRole('group', { name: 'Who can find it' })).toBeTruthy();
    const [open, closed] = screen.getAllByRole('radio') as HTMLInputElement[];
    expect([open?.checked, closed?.checked]).toEqual([true, false]);
    expect([open?.name, closed?.name]).toEqual(['g-visibility', 'g-visibility']);
    fireEvent.click(screen.getByRole('radio', { name: /Private/ }));
    expect(onChange).toHaveBeenCalledWith('private');
  });
});
