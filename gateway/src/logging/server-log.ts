// Where `npm start`'s log goes: the full JSON log (pino) at LOG_LEVEL into LOG_DIR/server.log,
// rotated by size (server.log.1 ... server.log.N, oldest dropped), and a readable line on the
// terminal only for warnings and errors, or for everything from LOG_LEVEL down when that is debug
// or trace (which brings request lines back). Both outputs receive each line through
// redactLogLine, and the gateway and the localbase in the same process log through the same pair.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pino, { type LoggerOptions } from 'pino';
import { createStream, type RotatingFileStream } from 'rotating-file-stream';
import type { LogLevel } from '#config/env.ts';
import { LogFileLines, MAX_BATCH_BYTES, MAX_PENDING_BYTES } from './log-file-lines.ts';
import { redactLogLine } from './redact.ts';
import { TerminalLines } from './terminal-lines.ts';

export const SERVER_LOG_FILE = 'server.log';
const DEFAULT_ROTATE_SIZE = '10M';

type RotateSize = `${number}${'B' | 'K' | 'M' | 'G'}`;

/** rotating-file-stream's size notation in bytes. */
function bytesOf(size: RotateSize): number {
  const unit = { B: 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[size.slice(-1) as 'B' | 'K' | 'M' | 'G'];
  return Number(size.slice(0, -1)) * unit;
}

export interface ServerLogOptions {
  logDir: string;
  level: LogLevel;
  /** Rotate once server.log reaches this size (rotating-file-stream's notation: 10M, 512K). */
  rotateSize?: RotateSize;
  /** Rotated files kept beside server.log. */
  keepRotated?: number;
  /** Where terminal lines go (standard error by default). */
  terminal?: { write(text: string): unknown };
}

export interface ServerLog {
  file: string;
  /** The level the terminal shows from. */
  terminalLevel: LogLevel;
  /** Fastify `logger` options for one component (`gateway`, `localbase`): its name is on every line. */
  loggerOptions(name: string): LoggerOptions & { stream: pino.MultiStreamRes };
  /** Flushes and closes server.log. */
  close(): Promise<void>;
}

/** Warnings and errors for the default `info`; any other LOG_LEVEL (debug, trace, warn, error ...) as given. */
export function terminalLevelFor(level: LogLevel): LogLevel {
  return level === 'info' ? 'warn' : level;
}

export async function openServerLog(options: ServerLogOptions): Promise<ServerLog> {
  await mkdir(options.logDir, { recursive: true, mode: 0o700 });
  const file = path.join(options.logDir, SERVER_LOG_FILE);
  const rotating: RotatingFileStream = createStream(SERVER_LOG_FILE, {
    path: options.logDir,
    size: options.rotateSize ?? DEFAULT_ROTATE_SIZE,
    rotate: options.keepRotated ?? 5,
    // Request lines name e-mail addresses and client addresses: readable by this user only.
    mode: 0o600,
  });
  let fileFailure: Error | undefined;
  rotating.on('error', (error) => {
    if (!fileFailure) process.stderr.write(`studyhall: cannot write ${file}: ${error.message}\n`);
    fileFailure = error;
  });

  // Batched and bounded: line by line, a busy server outran the file and held the backlog in memory.
  const rotateBytes = bytesOf(options.rotateSize ?? DEFAULT_ROTATE_SIZE);
  const fileLines = new LogFileLines(
    { write: (chunk, callback) => rotating.write(chunk, callback) },
    (count) =>
      `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, name: 'server-log', msg: `server.log fell behind: ${count} lines were not written` })}\n`,
    { maxPendingBytes: MAX_PENDING_BYTES, maxBatchBytes: Math.min(MAX_BATCH_BYTES, Math.floor(rotateBytes / 4)) },
  );

  const terminal = options.terminal ?? process.stderr;
  const lines = new TerminalLines();
  const terminalLevel = terminalLevelFor(options.level);
  const streams: pino.StreamEntry[] =
    options.level === 'silent'
      ? []
      : [
          { level: options.level, stream: { write: (line: string) => fileLines.write(redactLogLine(line)) } },
          {
            level: terminalLevel as pino.Level,
            stream: {
              write: (line: string) => {
                const text = lines.format(redactLogLine(line));
                if (text !== undefined) terminal.write(`${text}\n`);
              },
            },
          },
        ];
  const destination = pino.multistream(streams);

  return {
    file,
    terminalLevel,
    loggerOptions: (name) => ({ name, level: options.level, stream: destination }),
    close: async () => {
      await fileLines.idle();
      await new Promise<void>((resolve) => {
        if (rotating.closed || rotating.destroyed) return resolve();
        rotating.end(() => resolve());
      });
    },
  };
}
