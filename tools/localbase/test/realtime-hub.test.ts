// The hub's read check under failure: "this subscriber may not read the row" (no grant, an ended
// session) is an answer and stays quiet, but any other failure is logged before the change is
// withheld, never swallowed.
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { Frame } from '../src/realtime/frames.ts';
import { RealtimeHub } from '../src/realtime/hub.ts';

/** A pool that queues one change and fails the subscriber's read check with `readFailure`. */
function poolFailingReads(readFailure: Error): pg.Pool {
  let drained = false;
  return {
    query: async (text: string) => {
      if (text.includes('delete from _localbase.realtime_changes')) {
        const rows = drained
          ? []
          : [{ id: 1, schema_name: 'public', table_name: 'notes', event: 'INSERT', record: { id: 7 }, committed_at: new Date(Date.now() + 60_000) }];
        drained = true;
        return { rows };
      }
      return { rows: [{ name: 'id', type: 'int4', primary_key: true }] };
    },
    connect: async () => {
      throw readFailure;
    },
  } as unknown as pg.Pool;
}

async function deliverOnce(readFailure: Error): Promise<{ logged: unknown[]; sent: Frame[] }> {
  const logged: unknown[] = [];
  const sent: Frame[] = [];
  const hub = new RealtimeHub(poolFailingReads(readFailure), (error) => logged.push(error));
  hub.add({
    topic: 'realtime:notes',
    joinRef: '1',
    bindings: [{ id: 1, event: '*', schema: 'public', table: 'notes', filter: undefined }],
    token: { role: 'authenticated', claims: { role: 'authenticated', sub: 'u' } } as never,
    joinedAt: new Date(),
    send: (frame) => sent.push(frame),
  });
  await hub.poke();
  hub.stop();
  return { logged, sent };
}

describe('the realtime hub when a subscriber\'s read check fails', () => {
  it('logs an unexpected failure instead of swallowing it, and withholds the change', async () => {
    const failure = new Error('the database went away');
    const { logged, sent } = await deliverOnce(failure);
    expect(logged).toEqual([failure]);
    expect(sent).toEqual([]);
  });

  it('stays quiet when the subscriber simply may not read the row (42501)', async () => {
    const denial = Object.assign(new Error('permission denied for table notes'), { code: '42501' });
    const { logged, sent } = await deliverOnce(denial);
    expect(logged).toEqual([]);
    expect(sent).toEqual([]);
  });
});
