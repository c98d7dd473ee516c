// Where the app is, as the readers of auth mail reach it: the embedded localbase's GoTrue settings
// (SITE_URL, API_EXTERNAL_URL, uri_allow_list) follow from the gateway's own public address, since
// the browser reaches localbase only through the gateway's /__backend proxy. Without this, a
// recovery link would point at localbase's loopback port, which no page of the app can use (its
// session would land on another origin), and the app's own redirect would be refused.
import { lanAddress } from './logging/status-block.ts';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

export interface AppAddressFacts {
  host: string;
  port: number;
  /** PUBLIC_URL: the app's address as students reach it (a reverse proxy, a host name). */
  publicUrl?: string | undefined;
  /** The machine's network address, when the gateway listens on every interface; for tests. */
  lan?: string | undefined;
}

export interface AuthMailAddresses {
  /** GoTrue's SITE_URL: where a link leads when it names no allowed redirect. */
  siteUrl: string;
  /** GoTrue's API_EXTERNAL_URL: the auth API as a browser reaches it, the start of every mailed link. */
  externalUrl: string;
  /** Every other address the app answers on (loopback names, the LAN address), as redirect globs. */
  redirectAllowList: string[];
}

const origin = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

export function authMailAddresses(facts: AppAddressFacts): AuthMailAddresses {
  const everywhere = WILDCARD_HOSTS.has(facts.host);
  const lan = everywhere ? ('lan' in facts ? facts.lan : lanAddress()) : undefined;
  // Listening on every interface, the server is there for the other devices of the network (the
  // status block shows them the LAN address), and a mailed link is often opened on a phone, where
  // 127.0.0.1 would be the phone itself: the LAN address leads back, when there is one.
  const shown = origin(everywhere ? (lan ?? '127.0.0.1') : facts.host, facts.port);
  const siteUrl = (facts.publicUrl ?? shown).replace(/\/+$/, '');
  const origins = new Set([
    shown,
    origin('127.0.0.1', facts.port),
    origin('localhost', facts.port),
    origin('::1', facts.port),
    ...(lan ? [origin(lan, facts.port)] : []),
  ]);
  origins.delete(new URL(siteUrl).origin);
  return {
    siteUrl,
    externalUrl: `${siteUrl}/__backend`,
    redirectAllowList: [...origins].map((entry) => `${entry}/**`),
  };
}
