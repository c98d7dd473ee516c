// `npm start`: localbase on 127.0.0.1:LOCALBASE_PORT (unless BACKEND_URL names a hosted backend),
// then the gateway on HOST:PORT in front of it, in one process; with HTTPS on and a gateway reachable
// from the network, the same app on HOST:HTTPS_PORT over HTTPS (https/), and the mDNS name announced
// on the network (lan/mdns-announcer.ts). Prints the status block (see
// status-block.ts); after it the terminal shows only warnings and errors, and the full JSON log
// goes to LOG_DIR/server.log (logging/server-log.ts). It serves the web app and the phone remote as
// built: `npm start`'s launcher (tools/build/start.mjs) builds them first when they are stale.
import pino from 'pino';
import { authMailAddresses } from './app-address.ts';
import { buildGateway } from './app.ts';
import type { BackendTarget } from './backend/backend-client.ts';
import { loadConfig } from './config.ts';
import { listenHttps, type HttpsListener } from './https/https-listener.ts';
import { setUpHttps, startCertificateRenewal } from './https/https-setup.ts';
import { startMdnsAnnouncer, type MdnsAnnouncer } from './lan/mdns-announcer.ts';
import { startEmbeddedLocalbase, type RunningLocalbase } from './localbase-contract.ts';
import { openServerLog } from './logging/server-log.ts';
import { statusBlock } from './logging/status-block.ts';
import { stopOnSignals } from './shutdown.ts';
import { openSharedState } from './district/open-shared-state.ts';
import type { SharedState } from './district/shared-state.ts';
import { reportBootPhases } from './logging/boot-phases.ts';

performance.mark('studyhall:gateway:modules-loaded');
const log = (line: string) => console.log(line);

const loaded = loadConfig(process.env);
if (!loaded.ok) {
  for (const problem of loaded.problems) console.error(`studyhall: config: ${problem}`);
  process.exit(1);
}
const config = loaded.config;

let serverLog: Awaited<ReturnType<typeof openServerLog>>;
try {
  serverLog = await openServerLog({ logDir: config.logDir, level: config.logLevel });
} catch (error) {
  console.error(`studyhall: cannot open the log in ${config.logDir}: ${(error as Error).message}`);
  process.exit(1);
}

const terminalLog = {
  info: () => {},
  warn: (message: string) => console.error(`studyhall: ${message}`),
};

let https: Awaited<ReturnType<typeof setUpHttps>>;
try {
  https = await setUpHttps(config);
} catch (error) {
  console.error(`studyhall: cannot set up HTTPS: ${(error as Error).message} (HTTPS=off serves plain HTTP only)`);
  await serverLog.close();
  process.exit(1);
}
performance.mark('studyhall:gateway:log-and-https-ready');
// Probing the name takes about a second: it runs while localbase starts.
const listensOnNetwork = !['127.0.0.1', '::1', 'localhost'].includes(config.host);
const mdnsStarting: Promise<MdnsAnnouncer | undefined> =
  config.mdns?.enabled && listensOnNetwork
    ? startMdnsAnnouncer({ hostName: config.mdns.hostName, answerIPv6: config.host === '::', log: terminalLog }).catch(
        (error: Error) => {
          terminalLog.warn(`mDNS: cannot announce ${config.mdns?.hostName}: ${error.message}`);
          return undefined;
        },
      )
    : Promise.resolve(undefined);

const httpsNames = https.identity ? https.names() : undefined;

let localbase: RunningLocalbase | undefined;
let backend: BackendTarget;
if (config.backend) {
  backend = config.backend;
} else {
  try {
    localbase = await startEmbeddedLocalbase({
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      ...(config.smtpUrl ? { smtpUrl: config.smtpUrl } : {}),
      ...(config.engine ? { engine: config.engine } : {}),
      // Mailed links lead to the app through the gateway, never to localbase's loopback port.
      ...authMailAddresses({
        host: config.host,
        port: config.port,
        publicUrl: config.publicUrl,
        // The port HTTPS is about to listen on (the listener needs the app, which needs localbase).
        https:
          httpsNames && config.https
            ? { port: config.https.port, names: httpsNames, linksLeadHere: config.https.redirect === 'always' }
            : undefined,
      }),
      host: '127.0.0.1',
      port: config.localbasePort,
      logger: serverLog.loggerOptions('localbase'),
    });
  } catch (error) {
    console.error(
      `studyhall: cannot start localbase on 127.0.0.1:${config.localbasePort} with ${config.dataDir}: ${(error as Error).message}`,
    );
    await serverLog.close();
    process.exit(1);
  }
  backend = {
    url: localbase.url,
    anonKey: localbase.anonKey,
    serviceRoleKey: localbase.serviceRoleKey,
    managementToken: localbase.accessToken,
  };
}

const database = localbase
  ? {
      engine: localbase.database.engineName ?? localbase.database.kind,
      notice: localbase.database.notice ?? null,
      legacy_pglite: localbase.database.legacyPglite === true,
    }
  : undefined;
// What the servers of a district share (SHARED_STATE; docs/deployment.md): opened before the app,
// which counts and checks through it from its first request.
let sharedState: SharedState | undefined;
const { stream: sharedStateStream, ...sharedStateLogOptions } = serverLog.loggerOptions('shared-state');
const sharedStateLog = pino(sharedStateLogOptions, sharedStateStream);
try {
  sharedState = await openSharedState(config, {
    database: localbase?.database,
    backend,
    log: sharedStateLog,
  });
} catch (error) {
  console.error(`studyhall: cannot open the shared state (SHARED_STATE): ${(error as Error).message}`);
  await localbase?.close();
  await serverLog.close();
  process.exit(1);
}
const { app, push } = await buildGateway({
  config,
  backend,
  ...(sharedState ? { sharedState } : {}),
  ...(database ? { database } : {}),
  logger: serverLog.loggerOptions('gateway'),
  health: { measureAtStart: true },
  https,
  ...(localbase ? { localbaseToken: localbase.accessToken } : {}),
});
performance.mark('studyhall:gateway:app-built');
try {
  await app.listen({ host: config.host, port: config.port });
} catch (error) {
  console.error(`studyhall: cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`);
  await sharedState?.close();
  await localbase?.close();
  await serverLog.close();
  process.exit(1);
}
performance.mark('studyhall:gateway:listening');
let httpsListener: HttpsListener | undefined;
if (https.identity && config.https) {
  try {
    httpsListener = await listenHttps(app, https.identity, { host: config.host, port: config.https.port });
    https.listening(httpsListener.port);
  } catch (error) {
    console.error(
      `studyhall: cannot listen for HTTPS on ${config.host}:${config.https.port}: ${(error as Error).message} (set HTTPS_PORT, or HTTPS=off)`,
    );
    await app.close();
    await sharedState?.close();
    await localbase?.close();
    await serverLog.close();
    process.exit(1);
  }
}
const stopRenewal = startCertificateRenewal(https, config, {
  info: (message) => app.log.info(message),
  warn: terminalLog.warn,
});
const mdns = await mdnsStarting;
for (const name of https.identity?.leftOut() ?? []) {
  terminalLog.warn(
    `https: the local CA may not vouch for ${name}, so the certificate leaves it out (docs/https-and-reverse-proxy.md)`,
  );
}

log(
  statusBlock({
    config,
    backendUrl: backend.url,
    embedded: localbase !== undefined,
    ...(database
      ? { database: { engine: database.engine, location: localbase?.database.location ?? '', notice: database.notice } }
      : {}),
    adminReady: config.admin.enabled && backend.serviceRoleKey !== undefined,
    logFile: serverLog.file,
    terminalLevel: serverLog.terminalLevel,
    ...(httpsListener && https.mode !== 'off' ? { https: { port: httpsListener.port, mode: https.mode } } : {}),
    ...(mdns ? { mdns: mdns.status() } : {}),
  }),
);
performance.mark('studyhall:gateway:ready');
reportBootPhases((line) => console.error(line));
// Start-alert delivery runs beside the server; closing the app (below) stops it first.
void push.start();

stopOnSignals(
  app,
  async () => {
    stopRenewal();
    await httpsListener?.close();
    await mdns?.stop();
    await sharedState?.close();
    await localbase?.close();
    await serverLog.close();
  },
  log,
);
