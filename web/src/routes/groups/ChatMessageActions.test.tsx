// @vitest-environment happy-dom
// A chat message's actions: the more button names the message it acts on, the row shows the whole
// time, Delete asks "Delete for everyone?" inline with the focus on the question, Cancel and Escape
// go back to Delete without deleting, Escape on the row closes it back on the button, and only
// the confirmation's Delete deletes.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { useState } from 'preact/hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MessageActions, MoreButton } from './ChatMessageActions.tsx';

afterEach(cleanup);

function Harness({ onDelete, onReport }: { onDelete: () => void; onReport: () => void }) {
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  return (
    <div>
      <MoreButton
        messageId="m1"
        whose="Ada’s message"
        snippet="Flashcards at 9?"
        open={open}
        onToggle={(next) => {
          setConfirming(false);
          setOpen(next);
        }}
      />
      {open && (
        <MessageActions
          messageId="m1"
          sender="Ada"
          sentAt="today at 11:11 PM"
          sentAtIso="2026-11-28T23:11:00.000Z"
          canReport
          canDelete
          confirming={confirming}
          onToggle={setOpen}
          onConfirm={setConfirming}
          onReport={onReport}
          onDelete={onDelete}
        />
      )}
    </div>
  );
}

function openActions() {
  const onDelete = vi.fn();
  const onReport = vi.fn();
  render(<Harness onDelete={onDelete} onReport={onReport} />);
  const more = screen.getByRole('button', { name: 'Actions for Ada’s message “Flashcards at 9?”' });
  expect(more.getAttribute('aria-expanded')).toBe('false');
  fireEvent.click(more);
  expect(more.getAttribute('aria-expanded')).toBe('true');
  return { more, onDelete, onReport };
}

describe('a chat message’s actions', () => {
  it('shows the whole time and names each action with the sender', () => {
    openActions();
    expect(screen.getByText('Sent today at 11:11 PM')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Report this message by Ada' })).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Delete this message by Ada' })).toBeTruthy();
  });

  it('asks before deleting, with the focus on the question, and Cancel deletes nothing', () => {
    const { onDelete } = openActions();
    fireEvent.click(screen.getByRole('button', { name: 'Delete this message by Ada' }));
    const question = screen.getByRole('group', { name: /Delete for everyone\?/ });
    expect(document.activeElement?.textContent).toContain('Delete for everyone?');
    expect(question.contains(document.activeElement)).toBe(true);
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onDelete).not.toHaveBeenCalled();
    expect(screen.queryByRole('group', { name: /Delete for everyone\?/ })).toBeNull();
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete this message by Ada' }));
  });

  it('cancels with Escape, then closes the row with Escape back on its button', () => {
    const { more, onDelete } = openActions();
    fireEvent.click(screen.getByRole('button', { name: 'Delete this message by Ada' }));
    fireEvent.keyDown(document.activeElement as Element, { key: 'Escape' });
    expect(screen.queryByRole('group', { name: /Delete for everyone\?/ })).toBeNull();
    expect(onDelete).not.toHaveBeenCalled();
    fireEvent.keyDown(document.activeElement as Element, { key: 'Escape' });
    expect(screen.queryByText('Sent today at 11:11 PM')).toBeNull();
    expect(document.activeElement).toBe(more);
  });

  it('deletes only from the confirmation', () => {
    const { onDelete } = openActions();
    fireEvent.click(screen.getByRole('button', { name: 'Delete this message by Ada' }));
    expect(onDelete).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(onDelete).toHaveBeenCalledTimes(1);
  });
});
