// GET /api/client-config: what the web app needs to talk to the backend, where a phone on the
// same network reaches this server, its secure (https) address if it has one, and whether its auth
// mail leaves the machine. The app always
// goes through this gateway (`/__backend`), whatever backend sits behind it, so the page only ever
// connects to its own origin. The anon key is public by design; the service key never leaves here.
import os from 'node:os';
import type { FastifyPluginAsync } from 'fastify';
import { BACKEND_PREFIX } from '../proxy/backend-proxy.ts';

export interface ClientConfigOptions {
  anonKey: string;
  /** The app's https address (see httpsAppUrl), or null. */
  httpsUrl: string | null;
  /** Whether the backend's auth mail is sent: a hosted project, or localbase with SMTP_URL. */
  sendsMail: boolean;
  /** The interfaces' addresses (tests pass their own). */
  networkInterfaces?: () => ReturnType<typeof os.networkInterfaces>;
}

export interface ClientConfig {
  backend_url: string;
  anon_key: string;
  /** http://<LAN address>:<port> for each IPv4 interface that is not loopback: the companion's server URL. */
  companion_urls: string[];
  /**
   * Where the app is a secure context, without a trailing slash, or null. A page opened at a
   * plain-HTTP LAN address has no service worker, notifications, Web Push or Pop-out, and points
   * students here for them.
   */
  https_url: string | null;
  /**
   * Whether mail from the backend (a password reset link, an e-mail change) reaches the student's
   * mailbox. False for localbase without SMTP_URL, which keeps it in its outbox for whoever runs
   * the server (the admin console's Outbox page): the app then says that the link waits there.
   */
  sends_mail: boolean;
}

/** PUBLIC_URL when students reach the app over https there (a reverse proxy), else null. */
export function httpsAppUrl(publicUrl: string | undefined): string | null {
  if (!publicUrl) return null;
  const url = new URL(publicUrl);
  return url.protocol === 'https:' ? `${url.origin}${url.pathname}`.replace(/\/+$/, '') : null;
}

export function lanUrls(interfaces: ReturnType<typeof os.networkInterfaces>, port: number): string[] {
  const urls: string[] = [];
  for (const addresses of Object.values(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) urls.push(`http://${address.address}:${port}`);
    }
  }
  return urls;
}

const clientConfig: FastifyPluginAsync<ClientConfigOptions> = async (app, options) => {
  const interfaces = options.networkInterfaces ?? os.networkInterfaces;
  app.get('/api/client-config', async (_request, reply): Promise<ClientConfig> => {
    reply.header('cache-control', 'no-cache');
    return {
      backend_url: BACKEND_PREFIX,
      anon_key: options.anonKey,
      companion_urls: reachableFromLan(app.server.address()),
      https_url: options.httpsUrl,
      sends_mail: options.sendsMail,
    };
  });

  /** A server bound to every interface is reached at each LAN address; one bound to loopback is not. */
  function reachableFromLan(bound: ReturnType<typeof app.server.address>): string[] {
    if (typeof bound !== 'object' || bound === null) return [];
    if (bound.address === '0.0.0.0' || bound.address === '::') return lanUrls(interfaces(), bound.port);
    const loopback = bound.address === '::1' || bound.address.startsWith('127.');
    return loopback ? [] : [`http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`];
  }
};

export default clientConfig;
