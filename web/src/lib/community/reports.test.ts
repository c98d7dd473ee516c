// Her reports are read with exactly the columns the grant gives a reporter (naming a refused one
// fails the whole request), and kept to the group: its chat's messages (a removed one without its
// text), the group itself, and reports on students; a message in another group is left out.
import { createClient } from '@supabase/supabase-js';
import { afterEach, describe, expect, it } from 'vitest';
import ws from 'ws';
import { useClientForTests } from './backend.ts';
import { MY_REPORT_COLUMNS, myReportsIn } from './reports.ts';

const GROUP = '00000000-0000-4000-8000-000000000001';
const OTHER = '00000000-0000-4000-8000-000000000002';
const row = (
  id: string,
  target_type: string,
  target_id: string,
  status = 'open',
  resolved_at: string | null = null,
) => ({
  id,
  target_type,
  target_id,
  created_at: '2026-11-20T10:00:00Z',
  status,
  resolved_at,
});

function fakeBackend(reports: unknown[], messages: unknown[]) {
  const urls: URL[] = [];
  const fetch = async (input: RequestInfo | URL) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    urls.push(url);
    const body = url.pathname.endsWith('/community_reports') ? reports : messages;
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  // Node 20 has no WebSocket of its own; realtime is not used here but supabase-js wants a transport.
  useClientForTests(
    createClient('http://backend.test', 'anon-key', {
      global: { fetch },
      auth: { persistSession: false, autoRefreshToken: false },
      realtime: { transport: ws as never },
    }),
  );
  return urls;
}

afterEach(() => useClientForTests(undefined));

describe('myReportsIn', () => {
  it('asks for the reporter-readable columns only, newest first, and the messages of this group only', async () => {
    const urls = fakeBackend(
      [
        row('r-1', 'message', 'm-here', 'actioned', '2026-11-22T09:00:00Z'),
        row('r-2', 'message', 'm-elsewhere'),
        row('r-3', 'group', GROUP, 'dismissed', '2026-11-21T09:00:00Z'),
        row('r-4', 'group', OTHER),
        row('r-5', 'user', 'u-cy'),
        row('r-6', 'message', 'm-gone'),
      ],
      [{ id: 'm-here', group_id: GROUP, sender_id: 'u-cy', content: '', deleted_at: '2026-11-22T09:00:00Z' }],
    );
    const mine = await myReportsIn(GROUP);

    const [reports, messages] = urls;
    const columns = reports?.searchParams.get('select')?.split(',') ?? [];
    expect(columns).toEqual(MY_REPORT_COLUMNS.split(','));
    for (const refused of ['resolution', 'resolved_by', 'note', 'reporter_id']) expect(columns).not.toContain(refused);
    expect(reports?.searchParams.get('order')).toBe('created_at.desc');
    expect(messages?.pathname).toMatch(/\/group_chat_messages$/);
    expect(messages?.searchParams.get('group_id')).toBe(`eq.${GROUP}`);
    expect(messages?.searchParams.get('id')).toBe('in.(m-here,m-elsewhere,m-gone)');

    expect(mine.map((report) => [report.id, report.handled, report.resolvedAt])).toEqual([
      ['r-1', true, '2026-11-22T09:00:00Z'],
      ['r-3', true, '2026-11-21T09:00:00Z'],
      ['r-5', false, null],
    ]);
    expect(mine[0]?.message).toEqual({ senderId: 'u-cy', content: '', removed: true });
  });

  it('reads no messages when she reported none, and refuses rows it does not expect', async () => {
    const urls = fakeBackend([row('r-5', 'user', 'u-cy')], []);
    expect(await myReportsIn(GROUP)).toHaveLength(1);
    expect(urls).toHaveLength(1);
    fakeBackend([{ ...row('r-7', 'user', 'u-cy'), status: 'resolved' }], []);
    await expect(myReportsIn(GROUP)).rejects.toMatchObject({ code: 'unexpected_answer' });
  });
});
