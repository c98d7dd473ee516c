// POST /__errors: the browser's error reports, one JSON line each in LOG_DIR/browser-errors.log.
// Anyone on the LAN can post here, so the disk it can fill is bounded: bodies over 1 MiB are refused
// (413) before anything is written, each address has a budget of reports per minute
// (security/rate-limits.ts), and the log is rotated by size, keeping a few old files
// (browser-errors.log.1 is the newest of them). Lines are appended through one queue, so concurrent
// reports never interleave inside a line. A write that fails (a full disk: ENOSPC) drops that
// report, answers 503 error_log_unavailable, and is logged once until writing works again: the
// server itself keeps serving.
import { appendFile, mkdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { okAnswer } from '#contracts/gateway-answers.ts';
import { sendError } from '../http-errors.ts';
import { withErrorBody } from '../route-schemas.ts';
import { BODY_LIMITS } from '../security/body-limits.ts';
import { depthCheckedJsonParser } from '../security/json-body.ts';

export const ERRORS_BODY_LIMIT = BODY_LIMITS.errorReport;
export const BROWSER_ERRORS_LOG = 'browser-errors.log';

export interface ErrorLogRotation {
  /** Rotate when the next line would take the log past this size. */
  maxBytes: number;
  /** How many rotated files to keep (browser-errors.log.1 .. .N); older ones are deleted. */
  keepFiles: number;
}

export const DEFAULT_ROTATION: ErrorLogRotation = { maxBytes: 4 * 1024 * 1024, keepFiles: 3 };

export interface ErrorsSinkOptions {
  logDir: string;
  rotation?: Partial<ErrorLogRotation>;
}

// A report is whatever the page sends (message, stack, url, ...), as long as it is a JSON object.
const errorReport = z
  .record(z.string(), z.unknown())
  .describe('A browser error report: message, stack, url, ... (any JSON object).');

/** Appends lines one after another, rotating by size: the only writer of the log in this process. */
export class RotatingLineAppender {
  private tail: Promise<unknown> = Promise.resolve();
  private size: number | undefined;

  constructor(
    private readonly file: string,
    private readonly rotation: ErrorLogRotation,
  ) {}

  append(line: string): Promise<void> {
    const write = this.tail.then(() => this.write(`${line}\n`));
    this.tail = write.catch(() => {}); // one failed write must not stop the next
    return write;
  }

  private async write(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text);
    if (this.size === undefined) {
      await mkdir(path.dirname(this.file), { recursive: true });
      this.size = await stat(this.file).then(
        (info) => info.size,
        () => 0,
      );
    }
    if (this.size > 0 && this.size + bytes > this.rotation.maxBytes) await this.rotate();
    try {
      await appendFile(this.file, text, { mode: 0o600 });
      this.size += bytes;
    } catch (error) {
      this.size = undefined; // measure again next time: part of the line may have been written
      throw error;
    }
  }

  private async rotate(): Promise<void> {
    const keep = this.rotation.keepFiles;
    await rm(`${this.file}.${keep}`, { force: true });
    for (let index = keep - 1; index >= 1; index--) {
      await rename(`${this.file}.${index}`, `${this.file}.${index + 1}`).catch(() => {});
    }
    if (keep > 0) await rename(this.file, `${this.file}.1`).catch(() => {});
    else await rm(this.file, { force: true });
    this.size = 0;
  }
}

/** Logs a write failure once, and again only after a write has worked in between. */
function failureReporter(log: FastifyBaseLogger) {
  let reported = false;
  return {
    failed(error: unknown) {
      if (!reported) log.error({ err: error }, 'cannot write browser-errors.log; reports are dropped until it can');
      reported = true;
    },
    succeeded() {
      if (reported) log.info('browser-errors.log is writable again');
      reported = false;
    },
  };
}

const errorsSink: FastifyPluginAsyncZod<ErrorsSinkOptions> = async (app, options) => {
  const appender = new RotatingLineAppender(path.join(options.logDir, BROWSER_ERRORS_LOG), {
    ...DEFAULT_ROTATION,
    ...options.rotation,
  });
  const failures = failureReporter(app.log);

  // navigator.sendBeacon posts text/plain; it is read as JSON text, with the same depth check.
  app.addContentTypeParser(
    'text/plain',
    { parseAs: 'string', bodyLimit: ERRORS_BODY_LIMIT },
    depthCheckedJsonParser(app),
  );

  const schema = { body: errorReport, response: withErrorBody({ 202: okAnswer }) };
  app.post('/__errors', { bodyLimit: ERRORS_BODY_LIMIT, schema }, async (request, reply) => {
    const report = request.body;
    const line = JSON.stringify({
      received_at: new Date().toISOString(),
      ip: request.ip,
      user_agent: request.headers['user-agent'] ?? null,
      report,
    });
    try {
      await appender.append(line);
      failures.succeeded();
    } catch (error) {
      failures.failed(error);
      return sendError(
        reply,
        503,
        'error_log_unavailable',
        'The error log cannot be written right now; this report was not kept.',
      );
    }
    return reply.code(202).send({ ok: true });
  });
};

export default errorsSink;
