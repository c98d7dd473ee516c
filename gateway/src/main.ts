// `npm start`: localbase on 127.0.0.1:LOCALBASE_PORT (unless BACKEND_URL names a hosted backend),
// then the gateway on HOST:PORT in front of it, in one process. Prints both URLs.
import { buildGateway } from './app.ts';
import type { BackendTarget } from './backend/backend-client.ts';
import { loadConfig } from './config.ts';
import { startEmbeddedLocalbase, type RunningLocalbase } from './localbase-contract.ts';
import { ensureWebDist } from './web-dist.ts';
import { repoRoot } from '../../tools/db/paths.ts';

const log = (line: string) => console.log(line);

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const problem of loaded.problems) console.error(`studyhall: config: ${problem}`);
  process.exit(1);
}
const config = loaded.config;

await ensureWebDist(repoRoot, log);

let localbase: RunningLocalbase | undefined;
let backend: BackendTarget;
if (config.backend) {
  backend = config.backend;
} else {
  try {
    localbase = await startEmbeddedLocalbase({
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      host: '127.0.0.1',
      port: config.localbasePort,
    });
  } catch (error) {
    console.error(`studyhall: cannot start localbase on 127.0.0.1:${config.localbasePort} with ${config.dataDir}: ${(error as Error).message}`);
    process.exit(1);
  }
  backend = { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey };
}

const { app, push } = await buildGateway({ config, backend, logger: { level: process.env.LOG_LEVEL ?? 'info' } });
try {
  await app.listen({ host: config.host, port: config.port });
} catch (error) {
  console.error(`studyhall: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  await localbase?.close();
  process.exit(1);
}

const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
log(`studyhall: app     http://${shownHost}:${config.port} (listening on ${config.host})`);
log(`studyhall: backend ${backend.url}${localbase ? ' (localbase, loopback only)' : ''}`);
log(`studyhall: logs    ${config.logDir}`);
void push.start();

let stopping = false;
async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping) return;
  stopping = true;
  log(`studyhall: ${signal}, stopping`);
  try {
    await push.stop();
    await app.close();
    await localbase?.close();
    process.exit(0);
  } catch (error) {
    console.error(`studyhall: shutdown failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
