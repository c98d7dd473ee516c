// Every stored object, read with public.admin_storage_objects() (the Data API does not serve the
// storage schema), and removal through the Storage API by exact name.
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import { callPatchFunction } from '../patch-functions.ts';

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
  const body = await callPatchFunction(backend, 'admin_storage_objects');
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
