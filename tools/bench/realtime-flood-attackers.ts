// The realtime flood bench's attackers, in a child process of their own (as they would be on
// another machine), so their own work does not delay the bench's pings: N raw sockets through the
// gateway with the anon key (serializer 1.0.0 text frames), each joined to a public topic of its
// own with `broadcast.self`, then each sending B broadcasts of K KiB back to back. Counts what came
// back: broadcast bytes, error replies, system messages, closed channels and closed sockets.
// Started with fork() by realtime-flood.bench.ts, driven over IPC.
import { WebSocket } from 'ws';

export interface AttackRequest {
  /** The gateway's backend prefix, `http://127.0.0.1:<port>/__backend`. */
  backendUrl: string;
  anonKey: string;
  sockets: number;
  broadcasts: number;
  kib: number;
}

export interface AttackReport {
  /** Milliseconds from the first frame sent to the last one handed to the sockets. */
  sendMs: number;
  bytesSent: number;
  broadcastsBack: number;
  bytesBack: number;
  errorReplies: number;
  /** `system` frames with status error, by message. */
  systemErrors: Record<string, number>;
  channelsClosed: number;
  socketsClosed: number;
}

interface Attacker {
  socket: WebSocket;
  closed: boolean;
}

type ToChild = { op: 'open'; request: AttackRequest } | { op: 'go' } | { op: 'report' };
type FromChild = { op: 'opened' } | { op: 'report'; report: AttackReport } | { op: 'failed'; message: string };

function serveParent(): void {
  let request: AttackRequest | undefined;
  let attackers: Attacker[] = [];
  const report: AttackReport = {
    sendMs: 0,
    bytesSent: 0,
    broadcastsBack: 0,
    bytesBack: 0,
    errorReplies: 0,
    systemErrors: {},
    channelsClosed: 0,
    socketsClosed: 0,
  };
  const reply = (message: FromChild) => process.send?.(message);

  async function open(index: number, asked: AttackRequest): Promise<Attacker> {
    const socket = new WebSocket(
      `${asked.backendUrl.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${asked.anonKey}&vsn=1.0.0`,
    );
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const attacker: Attacker = { socket, closed: false };
    const joined = new Promise<void>((resolve, reject) => {
      socket.on('message', (raw) => {
        const text = String(raw);
        const frame = JSON.parse(text) as { event: string; ref: string | null; payload: Record<string, unknown> };
        if (frame.event === 'phx_reply' && frame.ref === 'join') {
          if (frame.payload.status === 'ok') resolve();
          else reject(new Error(`join refused: ${text}`));
        } else if (frame.event === 'phx_reply' && frame.payload.status === 'error') {
          report.errorReplies += 1;
        } else if (frame.event === 'broadcast') {
          report.broadcastsBack += 1;
          report.bytesBack += Buffer.byteLength(text);
        } else if (frame.event === 'system' && frame.payload.status === 'error') {
          const message = String(frame.payload.message);
          report.systemErrors[message] = (report.systemErrors[message] ?? 0) + 1;
        } else if (frame.event === 'phx_close') {
          report.channelsClosed += 1;
        }
      });
    });
    socket.on('close', () => {
      attacker.closed = true;
      report.socketsClosed += 1;
    });
    socket.on('error', () => undefined);
    socket.send(
      JSON.stringify({
        topic: `realtime:flood-${index}`,
        event: 'phx_join',
        payload: { config: { broadcast: { self: true } } },
        ref: 'join',
        join_ref: 'join',
      }),
    );
    await joined;
    return attacker;
  }

  /**
   * Round by round: one broadcast from every socket, then the loop is let go so the sockets write
   * what they hold, as many clients would send at once (a loop over all 2,000 frames at once would
   * only hand the server the flood once the last one was framed).
   */
  async function go(asked: AttackRequest): Promise<void> {
    const blob = 'x'.repeat(asked.kib * 1024 - 64);
    const started = performance.now();
    for (let sent = 0; sent < asked.broadcasts; sent += 1) {
      attackers.forEach((attacker, index) => {
        if (attacker.closed) return;
        const frame = JSON.stringify({
          topic: `realtime:flood-${index}`,
          event: 'broadcast',
          payload: { type: 'broadcast', event: 'flood', payload: { n: sent, blob } },
          ref: `b${sent}`,
          join_ref: 'join',
        });
        report.bytesSent += frame.length;
        attacker.socket.send(frame);
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
    report.sendMs = performance.now() - started;
  }

  process.on('message', (message: ToChild) => {
    const work = (async () => {
      if (message.op === 'open') {
        request = message.request;
        const asked = request;
        attackers = await Promise.all(Array.from({ length: asked.sockets }, (_, index) => open(index, asked)));
        reply({ op: 'opened' });
      } else if (message.op === 'go') {
        await go(request as AttackRequest);
      } else {
        reply({ op: 'report', report });
      }
    })();
    work.catch((error: unknown) => reply({ op: 'failed', message: (error as Error).message }));
  });
  process.on('disconnect', () => {
    for (const attacker of attackers) attacker.socket.terminate();
    process.exit(0);
  });
}

if (process.argv.includes('--serve-parent')) serveParent();

export interface Attackers {
  /** Starts sending; answers at once (the flood runs in the child). */
  go(): void;
  report(): Promise<AttackReport>;
  close(): void;
}

/** Forks the attackers and opens their sockets; resolves once every channel has joined. */
export async function openAttackers(request: AttackRequest): Promise<Attackers> {
  const { fork } = await import('node:child_process');
  const child = fork(new URL(import.meta.url).pathname, ['--serve-parent'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: { resolve: (message: FromChild) => void; reject: (error: Error) => void } | undefined;
  child.on('message', (message: FromChild) => {
    if (message.op === 'failed') waiting?.reject(new Error(message.message));
    else waiting?.resolve(message);
    waiting = undefined;
  });
  const ask = (message: ToChild) =>
    new Promise<FromChild>((resolve, reject) => {
      waiting = { resolve, reject };
      child.send(message);
    });
  await ask({ op: 'open', request });
  return {
    go: () => child.send({ op: 'go' } satisfies ToChild),
    report: async () => {
      const answer = await ask({ op: 'report' });
      if (answer.op !== 'report') throw new Error('the attackers did not report');
      return answer.report;
    },
    close: () => child.disconnect(),
  };
}
