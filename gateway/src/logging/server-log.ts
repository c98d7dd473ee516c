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
import { redactLogLine } from './redact.ts';
import { TerminalLines } from './terminal-lines.ts';

export const SERVER_LOG_FILE = 'server.log';

export interface ServerLogOptions {
  logDir: string;
  level: LogLevel;
  /** Rotate once server.log reaches this size (rotating-file-stream's notation: 10M, 512K). */
  rotateSize?: `${number}${'B' | 'K' | 'M' | 'G'}`;
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
    size: options.rotateSize ?? '10M',
    rotate: options.keepRotated ?? 5,
    // Request lines name e-mail addresses and client addresses: readable by this user only.
    mode: 0o600,
  });
  let fileFailure: Error | undefined;
  rotating.on('error', (error) => {
    if (!fileFailure) process.stderr.write(`studyhall: cannot write ${file}: ${error.message}\n`);
    fileFailure = error;
  });

  const terminal = options.terminal ?? process.stderr;
  const lines = new TerminalLines();
  const terminalLevel = terminalLevelFor(options.level);
  const streams: pino.StreamEntry[] =
    options.level === 'silent'
      ? []
      : [
          { level: options.level, stream: { write: (line: string) => void rotating.write(redactLogLine(line)) } },
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
    close: () =>
      new Promise<void>((resolve) => {
        if (rotating.closed || rotating.destroyed) return resolve();
        rotating.end(() => resolve());
      }),
  };
}
