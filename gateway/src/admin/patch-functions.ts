// The console reads and acts through public.admin_* functions that community-patch-v6.sql adds to
// a project. A project without the patch answers PGRST202 (the Data API knows no such function) or
// 42883 (PostgreSQL has none); the console answers that as `patch_not_applied`, naming the function
// and the page that applies the patch, rather than as a backend failure.
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import { GatewayError } from '../http-errors.ts';

/** Whether the backend refused a call because the function does not exist. */
export function isMissingFunction(error: unknown): boolean {
  return error instanceof BackendError && (error.code === 'PGRST202' || error.code === '42883');
}

/** Calls one of the patch's admin functions with the service role; its JSON answer. */
export async function callPatchFunction(
  backend: BackendClient,
  name: string,
  args: Record<string, unknown> = {},
): Promise<unknown> {
  try {
    return await backend.rpc(name, args, { serviceRole: true });
  } catch (error) {
    if (isMissingFunction(error))
      throw new GatewayError(
        502,
        'patch_not_applied',
        `The project has no public.${name}(): apply community-patch-v6.sql (see /__admin/patch).`,
      );
    throw error;
  }
}
