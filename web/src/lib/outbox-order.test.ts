// The outbox's own rules, without a backend: one flush at a time, nothing queued during a flush
// left behind, a newer version of an entry never removed by the send of an older one.
import { describe, expect, it } from 'vitest';
import { ApiError } from './api.ts';
import type { Task } from './model.ts';
import { MemoryOutboxStore, Outbox, type OutboxOp } from './outbox.ts';

function task(title: string, id = crypto.randomUUID()): Task {
  return { id, title, subjectId: null, day: null, done: false, completedAt: null, createdAt: 1, updatedAt: 1 };
}

/** Records what it sends; each send waits until the test releases it. */
class GatedSender {
  readonly sent: string[] = [];
  private releases: (() => void)[] = [];
  failWith: ApiError | null = null;
  async send(op: OutboxOp) {
    await new Promise<void>((resolve) => this.releases.push(resolve));
    if (this.failWith) throw this.failWith;
    this.sent.push(op.kind === 'task-upsert' ? op.task.title : op.kind);
  }
  async releaseAll() {
    while (
      this.releases.length > 0 ||
      (await new Promise((resolve) => setTimeout(resolve, 5)), this.releases.length > 0)
    )
      this.releases.shift()?.();
  }
}

describe('outbox ordering', () => {
  it('shares a running flush and drains what was queued meanwhile before it ends', async () => {
    const sender = new GatedSender();
    const outbox = new Outbox(new MemoryOutboxStore(), sender);
    await outbox.enqueue({ kind: 'task-upsert', task: task('first'), subjectName: null });
    const running = outbox.flush();
    await outbox.enqueue({ kind: 'task-upsert', task: task('second'), subjectName: null });
    const shared = outbox.flush();
    expect(shared).toBe(running);
    const releasing = sender.releaseAll();
    await running;
    await releasing;
    expect(sender.sent).toEqual(['first', 'second']);
    expect(await outbox.entries()).toEqual([]);
  });

  it('keeps the newer version of an entry that changed while its older version was being sent', async () => {
    const sender = new GatedSender();
    const outbox = new Outbox(new MemoryOutboxStore(), sender);
    const id = crypto.randomUUID();
    await outbox.enqueue({ kind: 'task-upsert', task: task('draft', id), subjectName: null });
    const running = outbox.flush();
    await new Promise((resolve) => setTimeout(resolve, 5)); // the send of "draft" is under way
    await outbox.enqueue({ kind: 'task-upsert', task: task('final', id), subjectName: null });
    expect((await outbox.entries())[0]?.revision).toBe(2); // the send of "draft" must not remove it
    void outbox.flush(); // as the app does after every enqueue
    const releasing = sender.releaseAll();
    await running;
    await releasing;
    expect(sender.sent).toEqual(['draft', 'final']);
    expect(await outbox.entries()).toEqual([]);
  });

  it('stops at the first transient failure and keeps the order for the next try', async () => {
    const sender = new GatedSender();
    const outbox = new Outbox(new MemoryOutboxStore(), sender);
    sender.failWith = new ApiError(503, 'backend_unavailable', 'down');
    await outbox.enqueue({ kind: 'task-upsert', task: task('a'), subjectName: null });
    await outbox.enqueue({ kind: 'task-upsert', task: task('b'), subjectName: null });
    const running = outbox.flush();
    await sender.releaseAll();
    expect(await running).toMatchObject({ sent: 0, pending: 2, stoppedBy: 'backend_unavailable' });
    sender.failWith = null;
    const again = outbox.flush();
    await sender.releaseAll();
    expect(await again).toMatchObject({ sent: 2, pending: 0 });
    expect(sender.sent).toEqual(['a', 'b']);
  });
});
