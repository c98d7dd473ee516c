// @vitest-environment happy-dom
// A popover's button says whether its panel is open and which one it controls; a click opens and
// closes it, Escape closes it and puts focus back on the button, a press outside closes it.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it } from 'vitest';
import { usePopover } from './usePopover.ts';

afterEach(cleanup);

function Harness() {
  const { open, anchor, toggleProps } = usePopover('panel');
  return (
    <>
      <div ref={anchor}>
        <button type="button" {...toggleProps}>
          Menu
        </button>
        {open && <p id="panel">Panel</p>}
      </div>
      <p>Outside</p>
    </>
  );
}

const toggle = () => screen.getByRole('button', { name: 'Menu' });

describe('usePopover', () => {
  it('opens and closes from its button, which names the panel it controls', () => {
    render(<Harness />);
    expect(toggle().getAttribute('aria-controls')).toBe('panel');
    expect(toggle().getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle());
    expect(toggle().getAttribute('aria-expanded')).toBe('true');
    expect(screen.getByText('Panel')).toBeTruthy();
    fireEvent.click(toggle());
    expect(screen.queryByText('Panel')).toBeNull();
  });

  it('closes on Escape and puts focus back on its button', () => {
    render(<Harness />);
    fireEvent.click(toggle());
    fireEvent.keyDown(document, { key: 'Escape' });
    expect(screen.queryByText('Panel')).toBeNull();
    expect(document.activeElement).toBe(toggle());
  });

  it('closes on a press outside its anchor, not on one inside', () => {
    render(<Harness />);
    fireEvent.click(toggle());
    fireEvent.pointerDown(screen.getByText('Panel'));
    expect(screen.getByText('Panel')).toBeTruthy();
    fireEvent.pointerDown(screen.getByText('Outside'));
    expect(screen.queryByText('Panel')).toBeNull();
  });
});
