// Object bytes on disk: DATA_DIR/storage/<bucket>/<object id>.<version>. The name in storage.objects
// never becomes a path (no traversal); each upload is a new version written to a temp file and
// renamed into place, so a reader sees the old bytes or the new ones, never half of either.
import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { copyFile, mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';

export interface StagedFile {
  temp: string;
  discard(): Promise<void>;
}

export class ObjectFiles {
  constructor(private readonly root: string) {}

  /** Where one version's bytes are (for a reader that needs them whole, such as an image transform). */
  path(bucketId: string, objectId: string, version: string): string {
    return this.file(bucketId, objectId, version);
  }

  private file(bucketId: string, objectId: string, version: string): string {
    // A bucket id is text chosen by whoever created the bucket: encoded, it is one plain segment.
    const bucket = encodeURIComponent(bucketId).replace(/\./g, '%2E');
    return path.join(this.root, bucket, `${objectId}.${version}`);
  }

  /**
   * Streams bytes beside their final place; `commit` renames them in, `discard` removes them.
   * `accept` sees each chunk first; once it says no, writing stops and the rest of the source is
   * read and dropped (never destroyed: the source is the request, whose client must still get an
   * answer on an intact connection).
   */
  async stageStream(source: Readable, accept: (chunk: Buffer) => boolean): Promise<StagedFile> {
    const temp = path.join(this.root, '.staging', randomUUID());
    await mkdir(path.dirname(temp), { recursive: true });
    const staged = { temp, discard: () => rm(temp, { force: true }) };
    const out = createWriteStream(temp, { flags: 'wx', mode: 0o600 });
    try {
      await copyUntilRefused(source, out, accept);
    } catch (error) {
      out.destroy();
      await staged.discard();
      throw error;
    }
    out.end();
    await finished(out);
    return staged;
  }

  async commit(temp: string, bucketId: string, objectId: string, version: string): Promise<void> {
    const target = this.file(bucketId, objectId, version);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(temp, target);
  }

  /** The bytes of one version under another bucket, object and version (a move or a copy). */
  async copy(
    fromBucket: string,
    fromObject: string,
    fromVersion: string,
    toBucket: string,
    toObject: string,
    toVersion: string,
  ): Promise<void> {
    const target = this.file(toBucket, toObject, toVersion);
    await mkdir(path.dirname(target), { recursive: true });
    await copyFile(this.file(fromBucket, fromObject, fromVersion), target);
  }

  read(bucketId: string, objectId: string, version: string): ReadStream {
    return createReadStream(this.file(bucketId, objectId, version));
  }

  async remove(bucketId: string, objectId: string, version: string): Promise<void> {
    await rm(this.file(bucketId, objectId, version), { force: true });
  }
}

function copyUntilRefused(
  source: Readable,
  out: NodeJS.WritableStream,
  accept: (chunk: Buffer) => boolean,
): Promise<void> {
  return new Promise((resolve, reject) => {
    let ended = false;
    const cleanup = () => {
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onClose);
      out.removeListener('error', onError);
    };
    const onData = (chunk: Buffer) => {
      if (!accept(chunk)) {
        cleanup();
        source.resume();
        resolve();
        return;
      }
      if (!out.write(chunk)) {
        source.pause();
        out.once('drain', () => source.resume());
      }
    };
    const onEnd = () => {
      ended = true;
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const onClose = () => {
      if (ended) return;
      cleanup();
      reject(new Error('the upload ended before all of its bytes arrived'));
    };
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    source.once('close', onClose);
    out.once('error', onError);
  });
}
