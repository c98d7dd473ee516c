// Object bytes on disk: DATA_DIR/storage/<bucket>/<object id>.<version>. The name in storage.objects
// never becomes a path (no traversal); each upload is a new version written to a temp file and
// renamed into place, so a reader sees the old bytes or the new ones, never half of either.
import { randomUUID } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export class ObjectFiles {
  constructor(private readonly root: string) {}

  private file(bucketId: string, objectId: string, version: string): string {
    // A bucket id is text chosen by whoever created the bucket: encoded, it is one plain segment.
    const bucket = encodeURIComponent(bucketId).replace(/\./g, '%2E');
    return path.join(this.root, bucket, `${objectId}.${version}`);
  }

  /** Writes bytes beside their final place; `commit` renames them in, `discard` removes them. */
  async stage(bytes: Buffer): Promise<{ temp: string; discard(): Promise<void> }> {
    const temp = path.join(this.root, '.staging', randomUUID());
    await mkdir(path.dirname(temp), { recursive: true });
    await writeFile(temp, bytes);
    return { temp, discard: () => rm(temp, { force: true }) };
  }

  async commit(temp: string, bucketId: string, objectId: string, version: string): Promise<void> {
    const target = this.file(bucketId, objectId, version);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(temp, target);
  }

  read(bucketId: string, objectId: string, version: string): ReadStream {
    return createReadStream(this.file(bucketId, objectId, version));
  }

  async remove(bucketId: string, objectId: string, version: string): Promise<void> {
    await rm(this.file(bucketId, objectId, version), { force: true });
  }
}
