// server.log's writer against a file that falls behind: lines go out in batches, one write at a
// time, in order; what waits in memory stays under its bound however long the file takes, the
// lines beyond it are dropped and counted in the log, and nothing is lost while under the bound.
import { describe, expect, it } from 'vitest';
import { LogFileLines, MAX_PENDING_BYTES, type ChunkTarget } from '../src/logging/log-file-lines.ts';

/** A file whose writes finish only when the test says so, as a busy thread pool's do. */
class SlowFile implements ChunkTarget {
  readonly chunks: string[] = [];
  private readonly callbacks: (() => void)[] = [];
  inFlight = 0;
  maxInFlight = 0;

  write(chunk: string, callback: () => void): boolean {
    this.chunks.push(chunk);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    this.callbacks.push(() => {
      this.inFlight -= 1;
      callback();
    });
    return false;
  }

  /** Finishes the oldest write; its callback runs on the next tick, as a stream's does. */
  async finishOne(): Promise<void> {
    const done = this.callbacks.shift();
    if (!done) return;
    await new Promise((resolve) => process.nextTick(resolve));
    done();
  }

  async finishAll(): Promise<void> {
    while (this.callbacks.length > 0) await this.finishOne();
  }

  get text(): string {
    return this.chunks.join('');
  }
}

const line = (index: number, size = 100) => `${JSON.stringify({ n: index, pad: 'x'.repeat(size) })}\n`;
const dropped = (count: number) => `${JSON.stringify({ msg: `dropped ${count}` })}\n`;

describe('LogFileLines', () => {
  it('writes the first line at once, then the lines that came meanwhile as one chunk, in order', async () => {
    const file = new SlowFile();
    const lines = new LogFileLines(file, dropped);
    for (let index = 0; index < 500; index += 1) lines.write(line(index));
    expect(file.chunks).toHaveLength(1);
    await file.finishAll();
    await lines.idle();
    expect(file.chunks).toHaveLength(2);
    expect(file.maxInFlight).toBe(1);
    expect(file.text).toBe(Array.from({ length: 500 }, (_, index) => line(index)).join(''));
  });

  it('keeps a chunk under the batch size, and sends a longer line alone', async () => {
    const file = new SlowFile();
    const lines = new LogFileLines(file, dropped, { maxPendingBytes: 1_000_000, maxBatchBytes: 1_000 });
    lines.write(line(0));
    for (let index = 1; index <= 30; index += 1) lines.write(line(index));
    lines.write(line(31, 5_000));
    await file.finishAll();
    await lines.idle();
    const sizes = file.chunks.map((chunk) => chunk.length);
    expect(sizes.filter((size) => size > 1_000)).toEqual([line(31, 5_000).length]);
    expect(file.chunks.length).toBeLessThan(10);
    expect(file.text).toBe(
      Array.from({ length: 32 }, (_, index) => (index === 31 ? line(31, 5_000) : line(index))).join(''),
    );
  });

  it('holds no more than its bound while the file is stuck, and says how many lines it dropped', async () => {
    const file = new SlowFile();
    const lines = new LogFileLines(file, dropped);
    const size = line(0, 1_000).length;
    const total = Math.ceil((3 * MAX_PENDING_BYTES) / size);
    let mostWaiting = 0;
    for (let index = 0; index < total; index += 1) {
      lines.write(line(index, 1_000));
      mostWaiting = Math.max(mostWaiting, lines.waitingBytes);
    }
    expect(mostWaiting).toBeLessThanOrEqual(MAX_PENDING_BYTES);
    await file.finishAll();
    await lines.idle();
    const written = file.text.trim().split('\n');
    const kept = written.filter((each) => !each.includes('dropped'));
    expect(written.at(-1)).toBe(dropped(total - kept.length).trim());
    // What was kept is the oldest lines, whole and in order: the newest were the ones dropped.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, index) => line(index, 1_000).trim()));
    // Up to the bound, not far below it: the first line (written at once) and what fitted.
    const keptBytes = kept.reduce((sum, each) => sum + each.length + 1, 0);
    expect(keptBytes).toBeGreaterThan(MAX_PENDING_BYTES - 2 * size);
    expect(keptBytes).toBeLessThanOrEqual(MAX_PENDING_BYTES + 2 * size);
  });

  it('writes lines again once it has caught up', async () => {
    const file = new SlowFile();
    const lines = new LogFileLines(file, dropped, { maxPendingBytes: 500, maxBatchBytes: 500 });
    for (let index = 0; index < 20; index += 1) lines.write(line(index));
    await file.finishAll();
    await lines.idle();
    lines.write(line(99));
    await file.finishAll();
    await lines.idle();
    expect(file.text.endsWith(line(99))).toBe(true);
    expect(file.text).toContain('dropped');
  });
});
