// The memory of a Node process under measurement, read through its inspector: a process started
// with `--inspect=127.0.0.1:0` prints the WebSocket address of its debugger on stderr, and this
// client asks it for `process.memoryUsage()`, runs a full garbage collection, and writes heap
// snapshots to a file. Nothing is added to the server's own code: the inspector is Node's.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { WebSocket } from 'ws';

export interface NodeMemory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

/** The debugger's address in what a process started with --inspect printed, once it has. */
export function inspectorUrlIn(output: string): string | undefined {
  return /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
}

export class InspectorClient {
  private lastId = 0;
  private readonly pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  private readonly events = new Map<string, (params: Record<string, unknown>) => void>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (raw) => {
      const message = JSON.parse(String(raw)) as {
        id?: number;
        result?: unknown;
        error?: { message: string };
        method?: string;
        params?: Record<string, unknown>;
      };
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error) waiting?.reject(new Error(message.error.message));
        else waiting?.resolve(message.result);
      } else if (message.method) {
        this.events.get(message.method)?.(message.params ?? {});
      }
    });
    socket.on('close', () => {
      for (const waiting of this.pending.values()) waiting.reject(new Error('the inspector closed'));
      this.pending.clear();
    });
  }

  static async connect(url: string): Promise<InspectorClient> {
    const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 1024 * 1024 * 1024 });
    await once(socket, 'open');
    return new InspectorClient(socket);
  }

  private call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    this.lastId += 1;
    const id = this.lastId;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.send(JSON.stringify({ id, method, params }));
    });
  }

  /** `process.memoryUsage()` of the process, in bytes. */
  async memoryUsage(): Promise<NodeMemory> {
    const answer = (await this.call('Runtime.evaluate', {
      expression: 'JSON.stringify(process.memoryUsage())',
      returnByValue: true,
    })) as { result: { value: string } };
    return JSON.parse(answer.result.value) as NodeMemory;
  }

  /** A full, compacting garbage collection, so what is left is what something still holds. */
  async collectGarbage(): Promise<void> {
    await this.call('HeapProfiler.collectGarbage');
  }

  /** Writes a heap snapshot (Chrome's .heapsnapshot format) to `file`; the inspector collects garbage first. */
  async writeHeapSnapshot(file: string): Promise<void> {
    const out = createWriteStream(file);
    this.events.set('HeapProfiler.addHeapSnapshotChunk', (params) => out.write(String(params.chunk)));
    try {
      await this.call('HeapProfiler.takeHeapSnapshot', { reportProgress: false, captureNumericValue: false });
    } finally {
      this.events.delete('HeapProfiler.addHeapSnapshotChunk');
      out.end();
      await once(out, 'close');
    }
  }

  close(): void {
    this.socket.close();
  }
}
