// The lines `npm start` prints once it listens: where the app is, the address a phone on the same
// network can open (the companion runs there), the admin console when admin mode is on, the
// backend, and where the log is. With
// PIP_PAIRING=off it also says that the timer relay is open to the network, since nothing else
// would tell the owner.
import os from 'node:os';
import path from 'node:path';
import type { LogLevel } from '#config/env.ts';
import type { GatewayConfig } from '../config.ts';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/** The first IPv4 address of this machine that is not loopback, as os.networkInterfaces() lists them. */
export function lanAddress(
  interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces(),
): string | undefined {
  for (const addresses of Object.values(interfaces)) {
    const found = addresses?.find((address) => address.family === 'IPv4' && !address.internal);
    if (found) return found.address;
  }
  return undefined;
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
}

export function statusBlock(facts: StatusFacts): string {
  const { host, port } = facts.config;
  const listensEverywhere = WILDCARD_HOSTS.has(host);
  const shownHost = listensEverywhere ? '127.0.0.1' : host;
  const lan = 'lan' in facts ? facts.lan : lanAddress();
  const terminalNote =
    facts.terminalLevel === 'warn'
      ? 'here: warnings and errors, LOG_LEVEL=debug adds every request'
      : facts.terminalLevel === 'silent'
        ? 'LOG_LEVEL=silent: nothing is logged'
        : `here: ${facts.terminalLevel} and above`;
  const lines = [
    `studyhall: app     http://${shownHost}:${port} (listening on ${host})`,
    ...(listensEverywhere
      ? [
          lan
            ? `studyhall: phone   http://${lan}:${port} (this machine on the local network)`
            : 'studyhall: phone   no network address found: connect this machine to a network to use the phone remote',
        ]
      : []),
    ...(facts.config.pipPairing === false && !LOOPBACK_HOSTS.has(host)
      ? [
          'studyhall: relay   PIP_PAIRING=off: anyone on the network can read and drive the focus timer (for a single-user machine only)',
        ]
      : []),
    ...(facts.adminReady ? [`studyhall: admin   http://${shownHost}:${port}/__admin/ (admin console)`] : []),
    `studyhall: backend ${facts.backendUrl}${facts.embedded ? ' (localbase, loopback only)' : ''}`,
    ...(facts.database ? [`studyhall: engine  ${facts.database.engine} (${facts.database.location})`] : []),
    ...(facts.database?.notice ? [`studyhall: note    ${facts.database.notice}`] : []),
    `studyhall: logs    ${facts.config.logDir} (${path.basename(facts.logFile)}; ${terminalNote})`,
  ];
  return lines.join('\n');
}
