// Which shared state a server opens (SHARED_STATE), and a start that stops with a reason when the
// chosen one cannot be used, rather than a server that fails every counted request later.
import { describe, expect, it } from 'vitest';
import { openSharedState } from '../src/district/open-shared-state.ts';
import { DEAD_BACKEND } from './helpers.ts';

const silent = { info: () => {}, warn: () => {} };

describe('openSharedState', () => {
  it('opens nothing for a server alone', async () => {
    expect(await openSharedState({}, { backend: DEAD_BACKEND, log: silent })).toBeUndefined();
    expect(await openSharedState({ sharedState: 'local' }, { backend: DEAD_BACKEND, log: silent })).toBeUndefined();
  });

  it('refuses database without localbase in this process, and backend without the service key', async () => {
    await expect(openSharedState({ sharedState: 'database' }, { backend: DEAD_BACKEND, log: silent })).rejects.toThrow(
      /needs localbase in this process/,
    );
    const withoutKey = { ...DEAD_BACKEND, serviceRoleKey: undefined };
    await expect(openSharedState({ sharedState: 'backend' }, { backend: withoutKey, log: silent })).rejects.toThrow(
      /needs the service key/,
    );
  });

  it('stops with a reason when the backend cannot answer, without waiting for its Realtime', async () => {
    const started = Date.now();
    await expect(openSharedState({ sharedState: 'backend' }, { backend: DEAD_BACKEND, log: silent })).rejects.toThrow(
      /the shared state cannot be used: .*community-patch-v6\.sql/,
    );
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
