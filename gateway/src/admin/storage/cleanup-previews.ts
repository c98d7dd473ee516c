// Cleanup previews: what a preview promised to delete, by object id and version, so that an apply
// deletes exactly that set (an object added or replaced since the preview is left alone). The only
// state of this route family; a preview is spent by its apply and expires after 30 minutes.
import { randomBytes } from 'node:crypto';
import { GatewayError } from '../../http-errors.ts';
import type { StoredObject } from './stored-objects.ts';

export interface PreviewObject {
  id: string;
  bucket: string;
  name: string;
  bytes: number;
  updated_at: string | null;
  reason: string;
}

export interface CleanupPreview {
  preview_id: string;
  objects: PreviewObject[];
  bytes: number;
  created_at: string;
  expires_at: string;
}

export class CleanupPreviews {
  private readonly previews = new Map<string, CleanupPreview & { expiresAtMs: number }>();

  constructor(private readonly options: { ttlMs: number; now: () => number }) {}

  create(objects: Array<StoredObject & { reason: string }>): CleanupPreview {
    this.forgetExpired();
    const now = this.options.now();
    const preview: CleanupPreview = {
      preview_id: randomBytes(16).toString('base64url'),
      objects: objects.map((object) => ({
        id: object.id,
        bucket: object.bucket,
        name: object.name,
        bytes: object.bytes,
        updated_at: object.updated_at,
        reason: object.reason,
      })),
      bytes: objects.reduce((sum, object) => sum + object.bytes, 0),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.options.ttlMs).toISOString(),
    };
    this.previews.set(preview.preview_id, { ...preview, expiresAtMs: now + this.options.ttlMs });
    return preview;
  }

  /** The preview, removed from the store (one apply per preview). */
  take(previewId: string): CleanupPreview {
    const found = this.previews.get(previewId);
    if (!found)
      throw new GatewayError(
        404,
        'preview_not_found',
        'No cleanup preview has that id (it was applied already, or the server restarted); preview again.',
      );
    this.previews.delete(previewId);
    if (this.options.now() > found.expiresAtMs)
      throw new GatewayError(
        410,
        'preview_expired',
        'That cleanup preview expired (previews last 30 minutes); preview again.',
      );
    const { expiresAtMs: _expiresAtMs, ...preview } = found;
    return preview;
  }

  private forgetExpired(): void {
    const now = this.options.now();
    for (const [id, preview] of this.previews) if (now > preview.expiresAtMs) this.previews.delete(id);
  }
}
