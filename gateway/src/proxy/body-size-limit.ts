// Counts a request body as it streams to the backend and stops it past the limit: a chunked upload
// has no Content-Length to refuse up front.
import { Transform, type TransformCallback } from 'node:stream';

export class BodyTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`The request body is larger than ${limitBytes} bytes.`);
    this.name = 'BodyTooLargeError';
  }
}

class BodySizeLimit extends Transform {
  private seen = 0;

  constructor(private readonly limitBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.limitBytes) callback(new BodyTooLargeError(this.limitBytes));
    else callback(null, chunk);
  }
}

export function limitBodyStream(source: NodeJS.ReadableStream, limitBytes: number): NodeJS.ReadableStream {
  const limited = new BodySizeLimit(limitBytes);
  source.on('error', (error) => limited.destroy(error));
  return source.pipe(limited);
}
