// @vitest-environment happy-dom
// "Your reports" on the group page: nothing when she has none, each report's subject and state in
// words (Open, Handled with the date), a removed message as removed, a report on someone outside
// the group left out, a calm line with a retry when the read fails, a fresh read when asked, and a
// reported message the chat sees removed losing its text at once.
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BoardMember } from '#contracts/community-answers.ts';
import type { MyReport } from '../../lib/community/reports.ts';

const backend = vi.hoisted(() => ({ answers: [] as (MyReport[] | Error)[], calls: [] as string[] }));
vi.mock('../../lib/community/reports.ts', () => ({
  myReportsIn: async (groupId: string) => {
    backend.calls.push(groupId);
    const answer = backend.answers.shift() ?? [];
    if (answer instanceof Error) throw answer;
    return answer;
  },
}));

const { MyReports } = await import('./MyReports.tsx');

const GROUP = 'g-1';
const members = [
  { userId: 'u-bo', displayName: 'Bo', handle: 'bo_park', you: true },
  { userId: 'u-cy', displayName: 'Cy', handle: 'cy_chem', you: false },
] as unknown as BoardMember[];

const base = { createdAt: '2026-11-20T10:00:00Z', resolvedAt: null, handled: false };
const open: MyReport = {
  ...base,
  id: 'r-1',
  targetType: 'message',
  targetId: 'm-1',
  message: { senderId: 'u-cy', content: 'Bo never does his share,\n what a freeloader.', removed: false },
};
const handled: MyReport = {
  ...base,
  id: 'r-2',
  targetType: 'message',
  targetId: 'm-2',
  handled: true,
  resolvedAt: '2026-11-22T09:00:00Z',
  message: { senderId: 'u-cy', content: '', removed: true },
};
const onMember: MyReport = { ...base, id: 'r-3', targetType: 'user', targetId: 'u-cy' };
const onStranger: MyReport = { ...base, id: 'r-4', targetType: 'user', targetId: 'u-elsewhere' };

const view = (version = 0, removed: ReadonlySet<string> = new Set()) => (
  <MyReports groupId={GROUP} groupName="Chemistry club" members={members} removed={removed} version={version} />
);

beforeEach(() => {
  backend.answers = [];
  backend.calls = [];
});
afterEach(cleanup);

describe('MyReports', () => {
  it('shows nothing while loading and nothing when she has reported nothing here', async () => {
    backend.answers = [[onStranger]];
    const { container } = render(view());
    expect(container.innerHTML).toBe('');
    await vi.waitFor(() => expect(backend.calls).toEqual([GROUP]));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(container.innerHTML).toBe('');
    expect(screen.queryByRole('heading', { name: 'Your reports' })).toBeNull();
  });

  it('lists each report under a heading with its excerpt, when it was sent, and Open or Handled in words', async () => {
    backend.answers = [[open, handled, onMember, onStranger]];
    render(view());
    const heading = await screen.findByRole('heading', { name: 'Your reports', level: 2 });
    const list = heading.closest('section')?.querySelector('ul');
    const items = [...(list?.querySelectorAll('li') ?? [])].map((item) => item.textContent ?? '');
    expect(items).toHaveLength(3);
    expect(items[0]).toContain('A message by Cy: Bo never does his share, what a freeloader.');
    expect(items[0]).toMatch(/Sent .*2026/);
    expect(items[0]).toMatch(/Open$/);
    expect(items[0]).not.toContain('Handled');
    expect(items[1]).toContain('A message by Cy: Message removed');
    expect(items[1]).toMatch(/Handled .*2026/);
    const handledTime = list?.querySelectorAll('li')[1]?.querySelectorAll('time')[1];
    expect(handledTime?.getAttribute('datetime')).toBe('2026-11-22T09:00:00Z');
    expect(items[2]).toContain('Cy');
    expect(items.join('\n')).not.toContain('u-elsewhere');
  });

  it('says calmly that the read failed, and reads again on Try again', async () => {
    backend.answers = [new Error('offline'), [handled]];
    render(view());
    await screen.findByText('Your reports could not be checked just now.');
    expect(screen.queryByRole('alert')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    await screen.findByText(/Handled/);
    expect(screen.queryByText('Your reports could not be checked just now.')).toBeNull();
    expect(backend.calls).toHaveLength(2);
  });

  it('reads again when a report may have been sent, keeping the list shown meanwhile', async () => {
    backend.answers = [[handled], [open, handled]];
    const { rerender } = render(view(0));
    await screen.findByText(/Handled/);
    rerender(view(1));
    expect(screen.getByRole('heading', { name: 'Your reports' })).toBeTruthy();
    await screen.findByText(/Open/);
    expect(backend.calls).toEqual([GROUP, GROUP]);
  });

  it('drops the text of a reported message the moment the chat shows it removed, then reads the status again', async () => {
    const resolved: MyReport = {
      ...open,
      handled: true,
      resolvedAt: '2026-11-22T09:00:00Z',
      message: { senderId: 'u-cy', content: '', removed: true },
    };
    backend.answers = [[open], [resolved]];
    const { rerender } = render(view());
    await screen.findByText(/what a freeloader/);
    rerender(view(0, new Set(['m-other'])));
    expect(screen.getByText(/what a freeloader/)).toBeTruthy();
    expect(backend.calls).toHaveLength(1);
    rerender(view(0, new Set(['m-other', 'm-1'])));
    expect(screen.queryByText(/what a freeloader/)).toBeNull();
    expect(screen.getByRole('listitem').textContent).toContain('A message by Cy: Message removed');
    await screen.findByText(/Handled/);
    expect(backend.calls).toHaveLength(2);
  });
});
