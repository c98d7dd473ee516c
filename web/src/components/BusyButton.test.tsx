// @vitest-environment happy-dom
// A button that shows its work: disabled and saying what it does while busy; otherwise its own
// label, disabled only when told.
import { cleanup, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { BusyButton } from './BusyButton.tsx';

afterEach(cleanup);

describe('BusyButton', () => {
  it('says its label and can be pressed while idle', () => {
    render(
      <BusyButton type="submit" class="button" busy={false} busyLabel="Saving…">
        Save
      </BusyButton>,
    );
    const button = screen.getByRole('button', { name: 'Save' }) as HTMLButtonElement;
    expect([button.type, button.className, button.disabled]).toEqual(['submit', 'button', false]);
  });

  it('is disabled and says what it is doing while busy', () => {
    render(
      <BusyButton type="submit" class="button" busy busyLabel="Saving…">
        Save
      </BusyButton>,
    );
    expect((screen.getByRole('button', { name: 'Saving…' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('stays disabled when told to, though idle', () => {
    render(
      <BusyButton type="submit" class="button" busy={false} busyLabel="Deleting…" disabled>
        Delete
      </BusyButton>,
    );
    expect((screen.getByRole('button', { name: 'Delete' }) as HTMLButtonElement).disabled).toBe(true);
  });
});
