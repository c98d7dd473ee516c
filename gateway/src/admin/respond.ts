// One decision for every admin route: HTML for a browser (Accept names text/html before any JSON),
// JSON for everything else, with the same facts. Pages get a fresh nonce for their style block and
// scripts, set through the gateway's CSP mechanism (security/security-headers.ts).
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  appPolicyDirectives,
  newNonce,
  setContentSecurityPolicy,
  withScriptNonce,
  type PolicyDirectives,
} from '../security/security-headers.ts';
import type { AdminSession } from './admin-cookie.ts';
import type { SafeHtml } from './html.ts';
import { renderPage, type PageOptions } from './layout.ts';

export function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const htmlAt = accept.indexOf('text/html');
  if (htmlAt === -1) return false;
  const jsonAt = accept.indexOf('application/json');
  return jsonAt === -1 || htmlAt < jsonAt;
}

/** The app's policy with this response's nonce for inline scripts and the style block. */
export function adminPolicy(nonce: string): PolicyDirectives {
  const directives = withScriptNonce(appPolicyDirectives(), nonce);
  return { ...directives, 'style-src': ["'self'", `'nonce-${nonce}'`], 'img-src': ["'self'", 'data:'] };
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The admin session the request's cookie carries (set by the console's access hook). */
    adminSession: AdminSession | null;
  }
}

export type PageBody = (view: {
  nonce: string;
  session: AdminSession | undefined;
}) => Omit<PageOptions, 'nonce' | 'session'>;

/** Renders a page of the console with its own nonce and policy. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, build: PageBody, status = 200): FastifyReply {
  const nonce = newNonce();
  const session = request.adminSession ?? undefined;
  const page = renderPage({ ...build({ nonce, session }), nonce, session });
  setContentSecurityPolicy(reply, adminPolicy(nonce));
  return reply.code(status).type('text/html; charset=utf-8').send(page.text);
}

/** JSON to scripts, the page to browsers. */
export function sendData(
  request: FastifyRequest,
  reply: FastifyReply,
  data: unknown,
  build: PageBody,
  status = 200,
): FastifyReply {
  if (wantsHtml(request)) return sendPage(request, reply, build, status);
  return reply.code(status).send(data);
}

/** A body fragment: re-exported so page modules import one place. */
export type { SafeHtml };
