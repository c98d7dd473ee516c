// The console's calls to the patch's admin functions (patch-functions.ts): a project without the
// patch answers `patch_not_applied` naming the function; any other failure stays what it was.
import { describe, expect, it } from 'vitest';
import { BackendError, type BackendClient } from '../src/backend/backend-client.ts';
import { callPatchFunction } from '../src/admin/patch-functions.ts';
import { GatewayError } from '../src/http-errors.ts';

/** A backend whose rpc answers `answer` or throws `failure`, and remembers what it was asked. */
function fakeBackend(outcome: { answer?: unknown; failure?: Error }) {
  const calls: { name: string; args: Record<string, unknown>; credential: unknown }[] = [];
  const backend = {
    rpc: async (name: string, args: Record<string, unknown>, credential: unknown) => {
      calls.push({ name, args, credential });
      if (outcome.failure) throw outcome.failure;
      return outcome.answer;
    },
  } as unknown as BackendClient;
  return { backend, calls };
}

describe('callPatchFunction', () => {
  it('calls the function with the service role and answers its JSON', async () => {
    const { backend, calls } = fakeBackend({ answer: [{ id: 'a' }] });
    await expect(callPatchFunction(backend, 'admin_user_facts', { p_limit: 5 })).resolves.toEqual([{ id: 'a' }]);
    expect(calls).toEqual([{ name: 'admin_user_facts', args: { p_limit: 5 }, credential: { serviceRole: true } }]);
  });

  for (const code of ['PGRST202', '42883'])
    it(`answers ${code} (no such function) as patch_not_applied, naming the function`, async () => {
      const { backend } = fakeBackend({ failure: new BackendError(404, code, 'Could not find the function') });
      const refusal = await callPatchFunction(backend, 'admin_storage_objects').catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(GatewayError);
      expect(refusal).toMatchObject({ statusCode: 502, code: 'patch_not_applied' });
      expect((refusal as GatewayError).message).toContain('public.admin_storage_objects()');
    });

  it('passes any other failure on unchanged', async () => {
    const failure = new BackendError(403, '42501', 'permission denied for function admin_user_facts');
    const { backend } = fakeBackend({ failure });
    await expect(callPatchFunction(backend, 'admin_user_facts')).rejects.toBe(failure);
  });
});
