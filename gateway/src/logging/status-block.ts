// The lines `npm start` prints once it listens: where the app is on this computer; where students
// and phones on the same network open it (the HTTPS address, the page that hands out the local CA,
// and the plain-HTTP address with what it lacks); the mDNS name when it could not be announced; the
// admin console when admin mode is on; the backend; where the log is. With PIP_PAIRING=off it also
// says that the timer relay is open to the network, since nothing else would tell the owner.
import os from 'node:os';
import path from 'node:path';
import type { LogLevel } from '#config/env.ts';
import type { GatewayConfig } from '../config.ts';
import { firstLanIPv4 } from '../lan/lan-addresses.ts';
import type { MdnsStatus } from '../lan/mdns-announcer.ts';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
const PLAIN_HTTP_LACKS = 'without offline use, notifications, push alerts or installing the app';

/** The first LAN IPv4 address of this machine (lan/lan-addresses.ts: no loopback, no container bridge). */
export function lanAddress(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string | undefined {
  return firstLanIPv4(interfaces);
}

export interface HttpsStatus {
  /** The port HTTPS listens on. */
  port: number;
  /** `local-ca`: devices install the CA from /__ca; `own-certificate`: TLS_CERT_FILE. */
  mode: 'local-ca' | 'own-certificate';
}

export interface StatusFacts {
  config: Pick<GatewayConfig, 'host' | 'port' | 'logDir'> & Partial<Pick<GatewayConfig, 'pipPairing'>>;
  backendUrl: string;
  /** localbase runs in this process (no BACKEND_URL). */
  embedded: boolean;
  /** The embedded localbase's database: its engine, where its data is, and why it is not the default engine. */
  database?: { engine: string; location: string; notice: string | null };
  logFile: string;
  terminalLevel: LogLevel;
  /** Admin mode is on and has what it needs: the console's address is printed. */
  adminReady?: boolean;
  /** For tests; the machine's own by default. */
  lan?: string | undefined;
  /** HTTPS, when it is served. */
  https?: HttpsStatus | undefined;
  /** The mDNS announcer, when it runs. */
  mdns?: MdnsStatus | undefined;
}

const hostInUrl = (host: string) => (host.includes(':') ? `[${host}]` : host);

function networkLines(facts: StatusFacts, reachable: string | undefined): string[] {
  const { port } = facts.config;
  if (!reachable) {
    return ['studyhall: lan     no network address found: connect this machine to a network for students and phones'];
  }
  const announced = facts.mdns?.state === 'announcing' ? facts.mdns.hostName : undefined;
  const hosts = [...(announced ? [announced] : []), hostInUrl(reachable)];
  const lines: string[] = [];
  if (facts.https) {
    const httpsPort = facts.https.port === 443 ? '' : `:${facts.https.port}`;
    lines.push(
      `studyhall: lan     ${hosts.map((host) => `https://${host}${httpsPort}`).join(' or ')} (students and phones on this network)`,
    );
    if (facts.https.mode === 'local-ca') {
      lines.push(
        `studyhall: ca      http://${hostInUrl(reachable)}:${port}/__ca (install the certificate once per device; then the https address opens without a warning)`,
      );
    }
    lines.push(`studyhall: http    http://${hostInUrl(reachable)}:${port} works too, ${PLAIN_HTTP_LACKS}`);
  } else {
    lines.push(
      `studyhall: lan     ${hosts.map((host) => `http://${host}:${port}`).join(' or ')} (students and phones on this network; plain HTTP, ${PLAIN_HTTP_LACKS}: HTTPS=on)`,
    );
  }
  if (facts.mdns?.state === 'conflict') {
    lines.push(
      `studyhall: name    ${facts.mdns.hostName} is used by another device on this network (${facts.mdns.claimedBy}): set MDNS_NAME to another name; the address above works`,
    );
  } else if (facts.mdns?.state === 'unavailable') {
    lines.push(
      `studyhall: name    ${facts.mdns.hostName} is not announced (${facts.mdns.reason}); the address above works`,
    );
  }
  return lines;
}

export function statusBlock(facts: StatusFacts): string {
  const { host, port } = facts.config;
  const listensEverywhere = WILDCARD_HOSTS.has(host);
  const loopbackOnly = LOOPBACK_HOSTS.has(host);
  const shownHost = listensEverywhere ? '127.0.0.1' : host;
  const lan = 'lan' in facts ? facts.lan : lanAddress();
  const terminalNote =
    facts.terminalLevel === 'warn'
      ? 'here: warnings and errors, LOG_LEVEL=debug adds every request'
      : facts.terminalLevel === 'silent'
        ? 'LOG_LEVEL=silent: nothing is logged'
        : `here: ${facts.terminalLevel} and above`;
  const lines = [
    `studyhall: app     http://${hostInUrl(shownHost)}:${port} (listening on ${host})`,
    ...(listensEverywhere ? networkLines(facts, lan) : []),
    ...(!listensEverywhere && !loopbackOnly ? networkLines(facts, host) : []),
    ...(loopbackOnly && facts.https
      ? [`studyhall: https   https://${hostInUrl(shownHost)}:${facts.https.port} (HTTPS_PORT, on this computer only)`]
      : []),
    ...(facts.config.pipPairing === false && !loopbackOnly
      ? [
          'studyhall: relay   PIP_PAIRING=off: anyone on the network can read and drive the focus timer (for a single-user machine only)',
        ]
      : []),
    ...(facts.adminReady ? [`studyhall: admin   http://${hostInUrl(shownHost)}:${port}/__admin/ (admin console)`] : []),
    `studyhall: backend ${facts.backendUrl}${facts.embedded ? ' (localbase, loopback only)' : ''}`,
    ...(facts.database ? [`studyhall: engine  ${facts.database.engine} (${facts.database.location})`] : []),
    ...(facts.database?.notice ? [`studyhall: note    ${facts.database.notice}`] : []),
    `studyhall: logs    ${facts.config.logDir} (${path.basename(facts.logFile)}; ${terminalNote})`,
  ];
  return lines.join('\n');
}
