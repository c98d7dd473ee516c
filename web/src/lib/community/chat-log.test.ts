// The chat list's rules without a browser: merging by id in any arrival order, ordering by the
// database's microseconds, runs per sender and minute, dividers after pauses, the unread marker,
// and where a catch-up read starts.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '#contracts/community-rows.ts';
import { catchUpFrom, CATCH_UP_OVERLAP_MS, instantOf, layoutMessages, mergeMessages } from './chat-log.ts';

const message = (id: string, sender: string | null, createdAt: string, content = id): ChatMessage => ({
  id,
  group_id: 'g',
  sender_id: sender,
  content,
  created_at: createdAt,
});

describe('instantOf', () => {
  it('keeps the microseconds Postgres stores, whatever the timestamp format', () => {
    expect(instantOf('2026-11-23T10:00:00.000001+00:00') - instantOf('2026-11-23T10:00:00+00:00')).toBe(1);
    expect(instantOf('2026-11-23 10:00:00.5+00')).toBe(instantOf('2026-11-23T10:00:00.500000Z'));
    expect(instantOf('2026-11-23T12:00:00+02:00')).toBe(instantOf('2026-11-23T10:00:00Z'));
  });
});

describe('mergeMessages', () => {
  it('holds each id once and orders by time, then id, however the copies arrive', () => {
    const a = message('a', 'u1', '2026-11-23T10:00:00.000002Z');
    const b = message('b', 'u2', '2026-11-23T10:00:00.000001Z');
    const c = message('c', 'u1', '2026-11-23T10:00:00.000002Z');
    const merged = mergeMessages(mergeMessages([a], [c, b]), [a, b, c]);
    expect(merged.map((item) => item.id)).toEqual(['b', 'a', 'c']);
  });

  it('gives back the same array when nothing came in, so a screen need not redraw', () => {
    const list = [message('a', 'u1', '2026-11-23T10:00:00Z')];
    expect(mergeMessages(list, [])).toBe(list);
  });
});

describe('layoutMessages', () => {
  it('runs one sender within one minute together and starts a new run for another sender or minute', () => {
    const items = layoutMessages([
      message('1', 'ada', '2026-11-23T10:00:05Z'),
      message('2', 'ada', '2026-11-23T10:00:50Z'),
      message('3', 'bo', '2026-11-23T10:00:55Z'),
      message('4', 'bo', '2026-11-23T10:01:02Z'),
    ]);
    expect(
      items.map((item) =>
        item.kind === 'run' ? `${item.senderId}:${item.messages.map((m) => m.id).join('')}` : item.kind,
      ),
    ).toEqual(['divider', 'ada:12', 'bo:3', 'bo:4']);
  });

  it('puts a divider after a long pause and the unread marker before the first unread message', () => {
    const items = layoutMessages(
      [
        message('1', 'ada', '2026-11-23T10:00:00Z'),
        message('2', 'ada', '2026-11-23T11:00:00Z'),
        message('3', 'ada', '2026-11-23T11:00:10Z'),
      ],
      '3',
    );
    expect(items.map((item) => item.kind)).toEqual(['divider', 'run', 'divider', 'run', 'unread', 'run']);
  });
});

describe('catchUpFrom', () => {
  it('starts a while before the newest message held, to catch a late commit with an earlier time', () => {
    const newest = message('n', 'ada', '2026-11-23T10:00:00Z');
    expect(Date.parse(catchUpFrom([newest]))).toBe(Date.parse('2026-11-23T10:00:00Z') - CATCH_UP_OVERLAP_MS);
  });
});
