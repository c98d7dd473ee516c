// What the main thread and the PGlite worker say to each other (pglite-engine.ts, pglite-worker.ts),
// and the framing of the Postgres wire protocol both need.

export interface WorkerOptions {
  /** PGlite's directory. */
  pgdata: string;
  /** A tarball from `dumpDataDir()` to start from instead of an empty cluster. */
  loadDataDir?: ArrayBuffer;
  /** Postgres settings over PGLITE_SETTINGS (pglite.ts). */
  settings?: Readonly<Record<string, string>>;
}

export type EngineRequest =
  /** Protocol bytes of one connection (`session`): whole messages, answered in `data` replies. */
  { type: 'exec'; id: number; session: number; bytes: ArrayBuffer } | { type: 'close' };

export type EngineReply =
  | { type: 'ready' }
  | { type: 'failed'; message: string }
  /** The answer to one group of messages (up to a Sync or a simple Query). */
  | { type: 'data'; session: number; bytes: ArrayBuffer }
  /** Every message of exec `id` is answered. */
  | { type: 'done'; session: number; id: number }
  | { type: 'closed' };

const SYNC = 0x53; // 'S'
const QUERY = 0x51; // 'Q'
const TERMINATE = 0x58; // 'X'

/**
 * The length of the whole messages at the start of `bytes` (a connection's first message, the
 * startup packet, has no type byte: it is recognised by its leading zero byte, as PGlite does).
 */
export class ProtocolFramingError extends Error {}

function messageEnd(view: DataView, offset: number): number {
  const length = view.getInt32(offset + 1);
  if (length < 4) throw new ProtocolFramingError(`a protocol message of length ${length} at byte ${offset}`);
  return offset + 1 + length;
}

export function wholeMessagesLength(bytes: Uint8Array, startup: boolean): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  if (startup) {
    if (bytes.byteLength < 4) return 0;
    const length = view.getInt32(0);
    if (bytes.byteLength < length) return 0;
    offset = length;
  }
  while (offset + 5 <= bytes.byteLength) {
    const end = messageEnd(view, offset);
    if (end > bytes.byteLength) break;
    offset = end;
  }
  return offset;
}

/**
 * Splits whole protocol messages into the groups Postgres answers at once: everything up to and
 * including a Sync or a simple Query, a startup packet on its own. Terminate is left out: the
 * session is PGlite's only one and outlives the connection that ends.
 */
export function* frameMessages(bytes: Uint8Array): Generator<Uint8Array> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 0;
  if (bytes[0] === 0) {
    const length = view.getInt32(0);
    yield bytes.subarray(0, length);
    offset = length;
  }
  let groupStart = offset;
  while (offset + 5 <= bytes.byteLength) {
    const type = bytes[offset]!;
    const end = messageEnd(view, offset);
    if (type === TERMINATE) {
      if (offset > groupStart) yield bytes.subarray(groupStart, offset);
      groupStart = end;
    } else if (type === SYNC || type === QUERY) {
      yield bytes.subarray(groupStart, end);
      groupStart = end;
    }
    offset = end;
  }
  if (offset > groupStart) yield bytes.subarray(groupStart, offset);
}
