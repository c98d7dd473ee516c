// A realtime socket as a hand-written client would open it, for the attack tests: serializer
// 1.0.0 object frames, every frame kept as it came, and waits with deadlines.
import { WebSocket } from 'ws';

export interface SeenFrame {
  topic: string;
  event: string;
  ref: string | null;
  payload: {
    status?: string;
    response?: unknown;
    ids?: number[];
    data?: { record?: Record<string, unknown> };
    event?: string;
    payload?: Record<string, unknown>;
    message?: string;
    extension?: string;
    channel?: string;
  };
}

export interface RawSocket {
  socket: WebSocket;
  frames: SeenFrame[];
  /** Sends a frame, with `ref` as its ref and join_ref. */
  send(topic: string, event: string, payload: unknown, ref: string): void;
  waitFor(done: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** The reply to the frame sent with `ref`. */
  replyTo(ref: string, timeoutMs?: number): Promise<SeenFrame>;
  /** Whether the socket is closed (by either side). */
  closed(): boolean;
}

/** Opens `<base>/realtime/v1/websocket` (base: localbase's URL, or the gateway's `/__backend`). */
export async function openRawSocket(base: string, apiKey: string): Promise<RawSocket> {
  const socket = new WebSocket(`${base.replace(/^http/, 'ws')}/realtime/v1/websocket?apikey=${apiKey}&vsn=1.0.0`);
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  const frames: SeenFrame[] = [];
  let isClosed = false;
  socket.on('message', (data) => frames.push(JSON.parse(String(data)) as SeenFrame));
  socket.on('close', () => (isClosed = true));
  // A socket the server drops is an answer here, not a failure of the test process.
  socket.on('error', () => (isClosed = true));
  const waitFor = async (done: () => boolean, what: string, timeoutMs = 10_000) => {
    for (let waited = 0; !done(); waited += 20) {
      if (waited > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const isReply = (ref: string) => (frame: SeenFrame) => frame.ref === ref && frame.event === 'phx_reply';
  return {
    socket,
    frames,
    send: (topic, event, payload, ref) => {
      if (socket.readyState === socket.OPEN) socket.send(JSON.stringify({ topic, event, payload, ref, join_ref: ref }));
    },
    waitFor,
    replyTo: async (ref, timeoutMs = 5_000) => {
      await waitFor(() => frames.some(isReply(ref)), `reply to ${ref}`, timeoutMs);
      return frames.find(isReply(ref)) as SeenFrame;
    },
    closed: () => isClosed,
  };
}
