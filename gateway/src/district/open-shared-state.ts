// Which shared state a server uses (SHARED_STATE, docs/deployment.md), opened once at start by
// main.ts (and by tests that run several servers): none for a server alone, the database localbase
// opened in this process, or the hosted project's APIs.
import type pg from 'pg';
import type { BackendTarget } from '../backend/backend-client.ts';
import type { GatewayConfig } from '../config.ts';
import { BackendSharedState } from './backend-shared-state.ts';
import { DatabaseSharedState } from './database-shared-state.ts';
import type { SharedState, SharedStateLog } from './shared-state.ts';

export interface SharedStateSources {
  /** localbase's database, when localbase runs in this process. */
  database?: { kind: 'postgres' | 'pglite'; pool: pg.Pool } | undefined;
  backend: BackendTarget;
  log: SharedStateLog;
}

/** The shared state SHARED_STATE names, listening once this resolves; undefined for `local`. */
export async function openSharedState(
  config: Pick<GatewayConfig, 'sharedState'>,
  sources: SharedStateSources,
): Promise<SharedState | undefined> {
  const kind = config.sharedState ?? 'local';
  if (kind === 'local') return undefined;
  let state: SharedState;
  if (kind === 'database') {
    if (!sources.database) throw new Error('SHARED_STATE=database needs localbase in this process');
    state = new DatabaseSharedState({
      pool: sources.database.pool,
      // PGlite's DATA_DIR is locked to one process: no other server can share it, nobody to hear.
      listen: sources.database.kind === 'postgres',
      log: sources.log,
    });
  } else {
    const { serviceRoleKey } = sources.backend;
    if (!serviceRoleKey) throw new Error('SHARED_STATE=backend needs the service key (BACKEND_SERVICE_ROLE_KEY)');
    state = new BackendSharedState({ ...sources.backend, serviceRoleKey }, sources.log);
  }
  // One call before waiting for the event stream: a database or project without the gateway_*
  // functions, or one that cannot be reached, stops the start with a reason instead of failing
  // every counted request (or waiting for a Realtime join that never comes).
  try {
    await state.call('gateway_prune_shared_state', {});
  } catch (error) {
    await state.close();
    throw new Error(
      `the shared state cannot be used: ${(error as Error).message} (a hosted project needs community-patch-v6.sql applied)`,
      { cause: error },
    );
  }
  await state.ready();
  return state;
}
