// /__ca: the local CA's certificate for devices to install, reachable over plain HTTP (a device
// needs it before HTTPS opens without a warning) and over HTTPS.
//   GET /__ca                     the page (ca-page.ts); JSON to `Accept: application/json`
//   GET /__ca/studyhall-ca.crt    the certificate, DER, application/x-x509-ca-cert (Android, iOS,
//                                 ChromeOS, Windows and macOS take it)
//   GET /__ca/studyhall-ca.pem    the certificate, PEM (Linux, Firefox)
//   GET /__ca/probe               204: the page fetches it over HTTPS to learn whether this browser
//                                 trusts the certificate
// Only the certificate is ever served: the CA's key stays in DATA_DIR/tls, which no route reads.
// With a certificate of one's own (TLS_CERT_FILE) or HTTPS off, the files answer 404 and the page
// says why.
import type { AddressInfo } from 'node:net';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { sendError } from '../http-errors.ts';
import { jsonOrPage, nonJson, noBody, withErrorBody } from '../route-schemas.ts';
import { firstLanIPv4 } from '../lan/lan-addresses.ts';
import { newNonce, serialisePolicy, setContentSecurityPolicy } from '../security/security-headers.ts';
import { CA_DER_PATH, CA_PEM_PATH, CA_PROBE_PATH, renderCaPage } from './ca-page.ts';
import type { HttpsService } from './https-service.ts';

export interface CaRoutesOptions {
  https: HttpsService;
  /** The first LAN IPv4 address (tests pass their own). */
  lanAddress?: () => string | undefined;
}

function pagePolicy(nonce: string, httpsUrl: string | undefined): string {
  return serialisePolicy({
    'default-src': ["'none'"],
    'style-src': [`'nonce-${nonce}'`],
    'script-src': [`'nonce-${nonce}'`],
    'connect-src': httpsUrl ? [httpsUrl] : ["'none'"],
    'img-src': ["'self'"],
    'base-uri': ["'none'"],
    'form-action': ["'none'"],
    'frame-ancestors': ["'none'"],
  });
}

/** The JSON a script gets from /__ca (Accept: application/json). */
const caFacts = z.object({
  mode: z.string(),
  off_reason: z.string().optional(),
  fingerprint_sha256: z.string().nullable(),
  https_url: z.string().nullable(),
  certificate: z.object({ der: z.string(), pem: z.string() }).nullable(),
  names: z.object({ dns: z.array(z.string()), ips: z.array(z.string()) }).nullable(),
});

const caRoutes: FastifyPluginAsync<CaRoutesOptions> = async (app, options) => {
  const { https } = options;
  const lanAddress = options.lanAddress ?? (() => firstLanIPv4());

  const refuseWithoutCa = (reply: FastifyReply): boolean => {
    if (https.identity?.ca) return false;
    if (https.mode === 'own-certificate') {
      sendError(
        reply,
        404,
        'no_local_ca',
        'This server uses a certificate of its own (TLS_CERT_FILE), so there is no studyhall CA to install.',
      );
    } else {
      sendError(reply, 404, 'https_off', `This server does not serve HTTPS (${https.offReason ?? 'HTTPS=off'}).`);
    }
    return true;
  };

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    const secure = Boolean((request.socket as { encrypted?: boolean }).encrypted);
    const bound = app.server.address() as AddressInfo | null;
    const lan = lanAddress();
    const httpsUrl = https.urlFor(request.headers.host) ?? (lan ? https.urlFor(lan) : undefined);
    const facts = {
      mode: https.mode,
      offReason: https.offReason,
      fingerprint: https.identity?.ca?.fingerprint,
      httpsUrl,
      pageUrlForPhones: lan && bound ? `http://${lan}:${bound.port}/__ca` : undefined,
      secure,
      scope: https.identity?.ca?.scope,
    };
    reply.header('cache-control', 'no-store');
    if (
      (request.headers.accept ?? '').includes('application/json') &&
      !(request.headers.accept ?? '').includes('text/html')
    ) {
      return {
        mode: facts.mode,
        ...(facts.offReason && facts.mode === 'off' ? { off_reason: facts.offReason } : {}),
        fingerprint_sha256: facts.fingerprint ?? null,
        https_url: httpsUrl ?? null,
        certificate: https.identity?.ca ? { der: CA_DER_PATH, pem: CA_PEM_PATH } : null,
        names: https.names() ?? null,
      };
    }
    const nonce = newNonce();
    setContentSecurityPolicy(reply, pagePolicy(nonce, httpsUrl));
    return reply.type('text/html; charset=utf-8').send(renderCaPage({ ...facts, nonce }));
  };
  const pageSchema = {
    response: withErrorBody({
      200: jsonOrPage(caFacts, "This server's HTTPS mode and CA; the page explains how to trust it."),
    }),
  };
  app.get('/__ca', { schema: pageSchema }, page);
  app.get('/__ca/', { schema: pageSchema }, page);

  const certificate = (type: string) => ({
    response: withErrorBody({ 200: nonJson(type, 'The local CA certificate, as a download.') }),
  });
  app.get(CA_DER_PATH, { schema: certificate('application/x-x509-ca-cert') }, async (_request, reply) => {
    if (refuseWithoutCa(reply)) return reply;
    return reply
      .type('application/x-x509-ca-cert')
      .header('content-disposition', 'attachment; filename="studyhall-ca.crt"')
      .header('cache-control', 'no-cache')
      .send(https.identity!.ca!.der);
  });

  app.get(CA_PEM_PATH, { schema: certificate('application/x-pem-file') }, async (_request, reply) => {
    if (refuseWithoutCa(reply)) return reply;
    return reply
      .type('application/x-pem-file')
      .header('content-disposition', 'attachment; filename="studyhall-ca.pem"')
      .header('cache-control', 'no-cache')
      .send(https.identity!.ca!.pem);
  });

  const probeSchema = {
    response: withErrorBody({ 204: noBody('No body: a page tests whether this HTTPS address is trusted.') }),
  };
  app.get(CA_PROBE_PATH, { schema: probeSchema }, async (_request, reply) =>
    reply.code(204).header('cache-control', 'no-store').header('access-control-allow-origin', '*').send(),
  );
};

export default caRoutes;
