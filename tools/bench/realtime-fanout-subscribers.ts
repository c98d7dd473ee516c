// The fan-out bench's subscribers: N raw sockets (serializer 2.0.0), each joining one channel with
// its own access token, stamping each postgres_changes frame's (or, on a private channel, each
// broadcast_changes message's) arrival on a clock every process shares (performance.timeOrigin + performance.now(), milliseconds since the epoch). Used in the
// bench's own process (--clients in-process) or, as real clients are, in a child process
// (--clients child): started with fork(), driven over IPC.
import { WebSocket } from 'ws';

/** Milliseconds since the epoch, sub-millisecond, comparable across processes of this machine. */
export const sharedNow = (): number => performance.timeOrigin + performance.now();

export interface JoinRequest {
  url: string;
  anonKey: string;
  tokens: string[];
  topic: string;
  bindings: Record<string, string>[];
  /** A private channel that hears realtime.broadcast_changes messages instead of postgres_changes. */
  private?: boolean;
}

/** A delivery's key: the change's type and its row's id (`INSERT:<id>`, `UPDATE:<id>`). */
export type ArrivalKey = string;

export interface Subscribers {
  /** Each socket's arrival stamp of `key`, once every socket has it. */
  arrivals(key: ArrivalKey, timeoutMs: number): Promise<number[]>;
  close(): void;
}

interface ChangeFrame {
  data?: { type?: string; record?: { id?: string } };
}

/** A broadcast_changes message: the operation is the event, the row is `payload.record`. */
interface BroadcastFrame {
  event?: string;
  payload?: { record?: { id?: string } };
}

async function openSocket(request: JoinRequest, token: string) {
  const socket = new WebSocket(
    `${request.url.replace('http', 'ws')}/realtime/v1/websocket?apikey=${request.anonKey}&vsn=2.0.0`,
  );
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const arrivals = new Map<ArrivalKey, number>();
  const joined = new Promise<void>((resolve, reject) => {
    socket.on('message', (raw) => {
      const now = sharedNow();
      const [, , , event, payload] = JSON.parse(String(raw)) as [unknown, unknown, string, string, unknown];
      if (event === 'phx_reply') {
        const status = (payload as { status?: string }).status;
        if (status === 'ok') resolve();
        else reject(new Error(`join refused: ${JSON.stringify(payload)}`));
      } else if (event === 'postgres_changes') {
        const data = (payload as ChangeFrame).data;
        const key = `${data?.type}:${data?.record?.id}`;
        if (!arrivals.has(key)) arrivals.set(key, now);
      } else if (event === 'broadcast') {
        const message = payload as BroadcastFrame;
        const key = `${message.event}:${message.payload?.record?.id}`;
        if (!arrivals.has(key)) arrivals.set(key, now);
      }
    });
  });
  socket.send(
    JSON.stringify([
      '1',
      '1',
      request.topic,
      'phx_join',
      {
        config: request.private
          ? { private: true, broadcast: { self: false }, presence: { enabled: false } }
          : { postgres_changes: request.bindings },
        access_token: token,
      },
    ]),
  );
  await joined;
  return { socket, arrivals };
}

export async function openSubscribers(request: JoinRequest): Promise<Subscribers> {
  const sockets = await Promise.all(request.tokens.map((token) => openSocket(request, token)));
  return {
    async arrivals(key, timeoutMs) {
      const started = performance.now();
      while (!sockets.every((each) => each.arrivals.has(key))) {
        if (performance.now() - started > timeoutMs) throw new Error(`${key}: not delivered within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      return sockets.map((each) => each.arrivals.get(key) as number);
    },
    close() {
      for (const each of sockets) each.socket.close();
    },
  };
}

type ToChild = { op: 'open'; request: JoinRequest } | { op: 'arrivals'; key: ArrivalKey; timeoutMs: number };
type FromChild =
  { op: 'opened' } | { op: 'arrivals'; key: ArrivalKey; stamps: number[] } | { op: 'failed'; message: string };

/** In the child: opens the sockets when asked, answers each key's arrivals. */
function serveParent(): void {
  let subscribers: Subscribers | undefined;
  const reply = (message: FromChild) => process.send?.(message);
  process.on('message', (message: ToChild) => {
    const work =
      message.op === 'open'
        ? openSubscribers(message.request).then((opened) => {
            subscribers = opened;
            reply({ op: 'opened' });
          })
        : (subscribers as Subscribers)
            .arrivals(message.key, message.timeoutMs)
            .then((stamps) => reply({ op: 'arrivals', key: message.key, stamps }));
    work.catch((error: unknown) => reply({ op: 'failed', message: (error as Error).message }));
  });
  process.on('disconnect', () => {
    subscribers?.close();
    process.exit(0);
  });
}

if (process.argv.includes('--serve-parent')) serveParent();

/** The same subscribers in a child process (forked with tsx), as clients on another machine would be. */
export async function openChildSubscribers(request: JoinRequest): Promise<Subscribers> {
  const { fork } = await import('node:child_process');
  const child = fork(new URL(import.meta.url).pathname, ['--serve-parent'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting = new Map<string, { resolve: (message: FromChild) => void; reject: (error: Error) => void }>();
  child.on('message', (message: FromChild) => {
    const key = message.op === 'arrivals' ? message.key : 'opened';
    if (message.op === 'failed') {
      for (const each of waiting.values()) each.reject(new Error(message.message));
      waiting.clear();
      return;
    }
    waiting.get(key)?.resolve(message);
    waiting.delete(key);
  });
  const ask = (key: string, message: ToChild) =>
    new Promise<FromChild>((resolve, reject) => {
      waiting.set(key, { resolve, reject });
      child.send(message);
    });
  await ask('opened', { op: 'open', request });
  return {
    async arrivals(key, timeoutMs) {
      const answer = await ask(key, { op: 'arrivals', key, timeoutMs });
      return answer.op === 'arrivals' ? answer.stamps : [];
    },
    close() {
      child.disconnect();
    },
  };
}
