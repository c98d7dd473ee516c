// Every stored object, read with public.admin_storage_objects() (the Data API does not serve the
// storage schema), and removal through the Storage API by exact name.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../../backend/backend-client.ts';
import { GatewayError } from '../../http-errors.ts';

export const storedObject = z.object({
  id: z.string(),
  bucket: z.string(),
  name: z.string(),
  owner: z.string().nullable(),
  bytes: z.number(),
  mimetype: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
export type StoredObject = z.infer<typeof storedObject>;

export async function listStoredObjects(backend: BackendClient, bucket?: string): Promise<StoredObject[]> {
  let body: unknown;
  try {
    body = await backend.rpc('admin_storage_objects', {}, { serviceRole: true });
  } catch (error) {
    if (error instanceof BackendError && (error.code === 'PGRST202' || error.code === '42883')) {
      throw new GatewayError(
        502,
        'patch_not_applied',
        'The project has no public.admin_storage_objects(): apply community-patch-v6.sql (see /__admin/patch).',
      );
    }
    throw error;
  }
  const objects = z.array(storedObject).parse(body);
  return bucket ? objects.filter((object) => object.bucket === bucket) : objects;
}

/** Deletes exactly these names from one bucket; returns the names the Storage API removed. */
export async function removeObjects(backend: BackendClient, bucket: string, names: string[]): Promise<string[]> {
  if (names.length === 0) return [];
  const { body } = await backend.request(`/storage/v1/object/${encodeURIComponent(bucket)}`, {
    method: 'DELETE',
    credential: { serviceRole: true },
    body: { prefixes: names },
  });
  return z
    .array(z.object({ name: z.string() }).loose())
    .parse(body)
    .map((object) => object.name);
}
