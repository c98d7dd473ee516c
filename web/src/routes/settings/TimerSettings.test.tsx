// @vitest-environment happy-dom
// The timer form while the settings arrive: drawn before this device's store or the account has
// answered, it shows what arrives next until she types, and from then on keeps what she typed, so a
// save never writes the defaults it showed for a moment over the settings she has.
import { act, cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSettings } from '../../lib/model.ts';
import { settings } from '../../state/signals.ts';
import { TimerSettings } from './SettingsPage.tsx';

afterEach(() => {
  cleanup();
  settings.value = defaultSettings;
});

const field = (label: string) => screen.getByLabelText(label, { exact: true }) as HTMLInputElement;

describe('the timer form', () => {
  it('follows the settings that arrive after it is drawn', () => {
    render(<TimerSettings />);
    expect(field('Daily goal').value).toBe('120');
    act(() => {
      settings.value = { ...defaultSettings, focusMinutes: 50, dailyGoalMinutes: 180 };
    });
    expect(field('Focus length').value).toBe('50');
    expect(field('Daily goal').value).toBe('180');
  });

  it('keeps what she typed when settings arrive afterwards', () => {
    render(<TimerSettings />);
    fireEvent.input(field('Focus length'), { target: { value: '40' } });
    act(() => {
      settings.value = { ...defaultSettings, focusMinutes: 50, dailyGoalMinutes: 180 };
    });
    expect(field('Focus length').value).toBe('40');
    expect(field('Daily goal').value).toBe('120');
  });
});
