// POST /__errors: the browser's error reports, one JSON line each in LOG_DIR/browser-errors.log.
// Bodies over 1 MB are refused (413) before anything is written. Lines are appended through one
// queue, so concurrent reports never interleave inside a line.
import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { parseOrThrow } from '../http-errors.ts';

export const ERRORS_BODY_LIMIT = 1024 * 1024;
export const BROWSER_ERRORS_LOG = 'browser-errors.log';

export interface ErrorsSinkOptions {
  logDir: string;
}

// A report is whatever the page sends (message, stack, url, ...), as long as it is a JSON object.
const errorReport = z.record(z.string(), z.unknown());

/** Appends lines one after another: the only writer of the log file in this process. */
class LineAppender {
  private tail: Promise<unknown> = Promise.resolve();
  private ready: Promise<unknown> | undefined;

  constructor(private readonly file: string) {}

  append(line: string): Promise<void> {
    this.ready ??= mkdir(path.dirname(this.file), { recursive: true });
    const write = this.tail.then(() => this.ready).then(() => appendFile(this.file, `${line}\n`, { mode: 0o600 }));
    this.tail = write.catch(() => {}); // one failed write must not stop the next
    return write;
  }
}

const errorsSink: FastifyPluginAsync<ErrorsSinkOptions> = async (app, options) => {
  const appender = new LineAppender(path.join(options.logDir, BROWSER_ERRORS_LOG));

  // navigator.sendBeacon posts text/plain; accept it as JSON text.
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: ERRORS_BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      (error as { statusCode?: number }).statusCode = 400;
      done(error as Error, undefined);
    }
  });

  app.post('/__errors', { bodyLimit: ERRORS_BODY_LIMIT }, async (request, reply) => {
    const report = parseOrThrow(errorReport, request.body);
    await appender.append(
      JSON.stringify({
        received_at: new Date().toISOString(),
        ip: request.ip,
        user_agent: request.headers['user-agent'] ?? null,
        report,
      }),
    );
    return reply.code(202).send({ ok: true });
  });
};

export default errorsSink;
