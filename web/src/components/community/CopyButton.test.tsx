// @vitest-environment happy-dom
// The copy button: the link goes to the clipboard where the browser allows it; where it gives no
// clipboard (a plain-HTTP page) or refuses, the field is selected and the student told how to copy.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CopyButton } from './Notices.tsx';

const LINK = 'http://192.168.1.20:3000/invite/0d6f6c2e-3d43-4f55-9d7a-0a6d1b6f1c11';

function renderWithField() {
  render(
    <div>
      <input id="the-link" readOnly value={LINK} aria-label="Invite link" />
      <CopyButton text={LINK} inputId="the-link" />
    </div>,
  );
}

function withClipboard(clipboard: unknown) {
  Object.defineProperty(navigator, 'clipboard', { value: clipboard, configurable: true });
}

afterEach(() => {
  cleanup();
  Reflect.deleteProperty(navigator, 'clipboard');
});

const field = () => screen.getByRole('textbox', { name: 'Invite link' }) as HTMLInputElement;

describe('CopyButton', () => {
  it('copies the link and says so where the browser gives a clipboard', async () => {
    const writeText = vi.fn(async () => undefined);
    withClipboard({ writeText });
    renderWithField();
    fireEvent.click(screen.getByRole('button', { name: 'Copy link' }));
    await screen.findByRole('button', { name: 'Copied' });
    expect(writeText).toHaveBeenCalledWith(LINK);
    expect(screen.queryByText('Press Ctrl+C / long-press to copy')).toBeNull();
  });

  for (const [why, clipboard] of [
    ['gives no clipboard (a plain-HTTP page)', undefined],
    ['refuses the clipboard', { writeText: async () => Promise.reject(new DOMException('Denied', 'NotAllowedError')) }],
  ] as const) {
    it(`selects the link and says how to copy it when the browser ${why}`, async () => {
      withClipboard(clipboard);
      renderWithField();
      fireEvent.click(screen.getByRole('button', { name: 'Copy link' }));
      await screen.findByText('Press Ctrl+C / long-press to copy');
      expect(document.activeElement).toBe(field());
      expect(LINK.slice(field().selectionStart ?? 0, field().selectionEnd ?? 0)).toBe(LINK);
      expect(screen.getByRole('button', { name: 'Copy link' })).toBeTruthy();
    });
  }
});
