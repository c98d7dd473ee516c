// GET /api/client-config: what the web app needs to talk to the backend, the address the app hands
// to other people and devices (app-address.ts), where a phone on the same network reaches this
// server, its secure (https) address if it has one, and whether its auth mail leaves the machine.
// The app always goes through this gateway (`/__backend`), whatever backend sits behind it, so the
// page only ever connects to its own origin. The anon key is public by design; the service key
// never leaves here.
import os from 'node:os';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { clientConfigAnswer } from '#contracts/gateway-answers.ts';
import { studentsAppUrl } from '../app-address.ts';
import type { HttpsService } from '../https/https-service.ts';
import { firstLanIPv4, type NetworkInterfaces } from '../lan/lan-addresses.ts';
import { BACKEND_PREFIX } from '../proxy/backend-proxy.ts';
import { withErrorBody } from '../route-schemas.ts';

export interface ClientConfigOptions {
  anonKey: string;
  /** PUBLIC_URL, when set. */
  publicUrl?: string | undefined;
  /** HTTPS: whether it is served, on which port, for which names. */
  https: HttpsService;
  /** Whether the backend's auth mail is sent: a hosted project, or localbase with SMTP_URL. */
  sendsMail: boolean;
  /** The interfaces' addresses (tests pass their own). */
  networkInterfaces?: () => NetworkInterfaces;
}

/** PUBLIC_URL when students reach the app over https there (a reverse proxy), else null. */
export function httpsAppUrl(publicUrl: string | undefined): string | null {
  if (!publicUrl) return null;
  const url = new URL(publicUrl);
  return url.protocol === 'https:' ? `${url.origin}${url.pathname}`.replace(/\/+$/, '') : null;
}

export function lanUrls(interfaces: NetworkInterfaces, port: number): string[] {
  const urls: string[] = [];
  for (const addresses of Object.values(interfaces)) {
    for (const address of addresses ?? []) {
      if (address.family === 'IPv4' && !address.internal) urls.push(`http://${address.address}:${port}`);
    }
  }
  return urls;
}

const clientConfig: FastifyPluginAsyncZod<ClientConfigOptions> = async (app, options) => {
  const interfaces = options.networkInterfaces ?? os.networkInterfaces;
  const { https } = options;

  app.get(
    '/api/client-config',
    { schema: { response: withErrorBody({ 200: clientConfigAnswer }) } },
    async (request, reply) => {
      reply.header('cache-control', 'no-cache');
      const bound = app.server.address();
      const listening = typeof bound === 'object' && bound !== null ? bound : undefined;
      const port = https.listeningPort;
      const names = https.names();
      // Read per request: the machine's address may change while it runs (another network, a new
      // DHCP lease), and the certificate follows it.
      const appUrl = studentsAppUrl({
        // Not listening yet (inject() in tests): as far as anyone knows, on this computer only.
        host: listening?.address ?? '127.0.0.1',
        port: listening?.port ?? 0,
        publicUrl: options.publicUrl,
        lan: firstLanIPv4(interfaces()),
        https: port && names ? { port, names, linksLeadHere: https.redirect === 'always' } : undefined,
      });
      return {
        backend_url: BACKEND_PREFIX,
        anon_key: options.anonKey,
        app_url: appUrl,
        companion_urls: reachableFromLan(listening),
        https_url: secureUrl(request.headers.host, appUrl),
        sends_mail: options.sendsMail,
      };
    },
  );

  /**
   * PUBLIC_URL when it is https; else the HTTPS address at the host the page was opened with, when
   * the certificate names it; else the students' address when that is https; else null.
   */
  function secureUrl(host: string | undefined, appUrl: string | null): string | null {
    return httpsAppUrl(options.publicUrl) ?? https.urlFor(host) ?? (appUrl?.startsWith('https://') ? appUrl : null);
  }

  /** A server bound to every interface is reached at each LAN address; one bound to loopback is not. */
  function reachableFromLan(bound: ReturnType<typeof app.server.address> | undefined): string[] {
    if (typeof bound !== 'object' || bound === null) return [];
    if (bound.address === '0.0.0.0' || bound.address === '::') return lanUrls(interfaces(), bound.port);
    const loopback = bound.address === '::1' || bound.address.startsWith('127.');
    return loopback ? [] : [`http://${bound.family === 'IPv6' ? `[${bound.address}]` : bound.address}:${bound.port}`];
  }
};

export default clientConfig;
