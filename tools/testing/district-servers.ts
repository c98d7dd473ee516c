// A district for tests: one PostgreSQL (the product's embedded engine, in a temp DATA_DIR) and N
// studyhall servers on it, each as `npm start` runs one with DATABASE_URL: its own localbase (own
// DATA_DIR, own port) over the shared database, the shared state over that database, and a gateway
// listening on a port of its own. close() stops the servers, then the database, and removes the
// temp dirs.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { openDatabase, type Database } from '#db/database.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import type { GatewayOptions } from '#gateway/src/app.ts';
import type { GatewayConfig } from '#gateway/src/config.ts';
import { openSharedState } from '#gateway/src/district/open-shared-state.ts';
import type { SharedState } from '#gateway/src/district/shared-state.ts';
import { startLocalbase, type Localbase } from '#localbase';
import { makeReachableTempDir } from './reachable-temp-dir.ts';

export interface DistrictServer {
  localbase: Localbase;
  sharedState: SharedState;
  gateway: TestGateway;
  /** The gateway's own address, http://127.0.0.1:<port>. */
  url: string;
}

export interface District {
  /** The DATABASE_URL every server was given. */
  databaseUrl: string;
  servers: DistrictServer[];
  close(): Promise<void>;
}

export interface DistrictOptions {
  servers?: number;
  /** Gateway settings every server gets (the same ADMIN_SECRET, for one). */
  config?: Partial<GatewayConfig>;
  gateway?: Partial<Omit<GatewayOptions, 'config' | 'backend' | 'sharedState'>>;
}

const silent = { info: () => {}, warn: () => {} };

function urlOf(database: Database): string {
  const server = database.postgres;
  if (!server) throw new Error('the district database is not PostgreSQL');
  const user = encodeURIComponent(server.user);
  const password = encodeURIComponent(server.password);
  return `postgresql://${user}:${password}@${server.host}:${server.port}/${server.database}`;
}

async function startServer(dir: string, databaseUrl: string, options: DistrictOptions): Promise<DistrictServer> {
  const localbase = await startLocalbase({ dataDir: dir, databaseUrl, host: '127.0.0.1', port: 0 });
  const backend = { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey };
  const sharedState = await openSharedState(
    { sharedState: 'database' },
    { database: localbase.database, backend, log: silent },
  ).catch(async (error: unknown) => {
    await localbase.close();
    throw error;
  });
  if (!sharedState) throw new Error('SHARED_STATE=database opened no shared state');
  const gateway = await startTestGateway({
    ...options.gateway,
    backend,
    sharedState,
    config: { databaseUrl, sharedState: 'database', ...options.config },
  });
  const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  return { localbase, sharedState, gateway, url };
}

/** Stops one server as a shutdown does: the gateway, its shared state, then its localbase. */
export async function stopDistrictServer(server: DistrictServer): Promise<void> {
  await server.gateway.close();
  await server.sharedState.close();
  await server.localbase.close();
}

export async function startDistrict(options: DistrictOptions = {}): Promise<District> {
  // Reachable: the embedded engine runs as its own system user when the tests run as root.
  const root = await makeReachableTempDir('studyhall-district-');
  const servers: DistrictServer[] = [];
  let database: Database | undefined;
  const close = async () => {
    for (const server of servers.splice(0)) await stopDistrictServer(server).catch(() => {});
    await database?.close();
    await rm(root, { recursive: true, force: true });
  };
  try {
    database = await openDatabase({ dataDir: path.join(root, 'database'), engine: 'postgres' });
    const databaseUrl = urlOf(database);
    for (let index = 0; index < (options.servers ?? 2); index += 1)
      servers.push(await startServer(path.join(root, `server-${index}`), databaseUrl, options));
    return { databaseUrl, servers, close };
  } catch (error) {
    await close();
    throw error;
  }
}
