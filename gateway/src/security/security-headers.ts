// The headers every response carries, and the Content-Security-Policy of each route family.
//
// - Every response: `X-Content-Type-Options: nosniff`, `X-Frame-Options: DENY` (with CSP
//   `frame-ancestors 'none'` for browsers that read only that), and
//   `Referrer-Policy: strict-origin-when-cross-origin`. Not `no-referrer`: under it a browser sends
//   `Origin: null` on the app's own POSTs, and the same-origin guard (same-origin.ts) needs the real
//   origin to tell the app's requests from another site's.
// - CSP: JSON and everything else without a policy of its own get `default-src 'none'` (nothing in
//   them may load or run). The app shell, its static files and /sw.js set the app's policy
//   (`appPolicyDirectives`), which also governs the service worker and any worker script. A route
//   family with other needs (the admin console's small inline scripts) sets its own with
//   `setContentSecurityPolicy`, for example `withScriptNonce(appPolicyDirectives(), nonce)`.
// - Storage objects through the proxy (`storageObjectHeaders`): sandboxed, never sniffed, and
//   downloaded rather than shown unless they are a raster image, so a stored HTML or SVG file can
//   never run script on the app's origin.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';

export type PolicyDirectives = Record<string, string[]>;

export const BASE_SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
} as const;

export const API_POLICY = "default-src 'none'; frame-ancestors 'none'";
export const STORAGE_OBJECT_POLICY = "sandbox; default-src 'none'";

/** The web app's policy; a hosted backend's origin may serve images (avatars, group icons). */
export function appPolicyDirectives(backendOrigin?: string): PolicyDirectives {
  return {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'blob:', ...(backendOrigin ? [backendOrigin] : [])],
    'connect-src': ["'self'"],
    'font-src': ["'self'"],
    'worker-src': ["'self'"],
    'manifest-src': ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
}

export function serialisePolicy(directives: PolicyDirectives): string {
  return Object.entries(directives)
    .map(([name, sources]) => [name, ...sources].join(' '))
    .join('; ');
}

/** A fresh nonce for one response's inline scripts (128 bits, base64). */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

export function withScriptNonce(directives: PolicyDirectives, nonce: string): PolicyDirectives {
  return { ...directives, 'script-src': [...(directives['script-src'] ?? ["'self'"]), `'nonce-${nonce}'`] };
}

export function setContentSecurityPolicy(reply: FastifyReply, policy: string | PolicyDirectives): FastifyReply {
  return reply.header('content-security-policy', typeof policy === 'string' ? policy : serialisePolicy(policy));
}

/** Adds the base headers and the default policy to every response that has not set its own. */
export function installSecurityHeaders(app: FastifyInstance): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    for (const [name, value] of Object.entries(BASE_SECURITY_HEADERS)) {
      if (!reply.hasHeader(name)) reply.header(name, value);
    }
    if (!reply.hasHeader('content-security-policy')) reply.header('content-security-policy', API_POLICY);
    return payload;
  });
}

/**
 * The same headers for a reply whose headers are not the gateway's own: hijacked streams (SSE) and
 * whatever the proxy relays from the backend (the backend's own policy is replaced).
 */
export const RAW_STREAM_HEADERS = { ...BASE_SECURITY_HEADERS, 'content-security-policy': API_POLICY };

const RASTER_IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/gif']);

function mediaTypeOf(contentType: unknown): string {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return typeof value === 'string' ? (value.split(';')[0] ?? '').trim().toLowerCase() : '';
}

/** Keeps the backend's file name, if any, but always as an attachment. */
function asAttachment(disposition: unknown): string {
  const value = typeof disposition === 'string' ? disposition.trim() : '';
  const parameters = value.includes(';') ? value.slice(value.indexOf(';')) : '';
  return `attachment${parameters}`;
}

/** What the proxy adds to anything served under /storage/v1/ (whatever the backend, local or hosted). */
export function storageObjectHeaders(upstreamHeaders: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = {
    ...BASE_SECURITY_HEADERS,
    'content-security-policy': STORAGE_OBJECT_POLICY,
  };
  if (!RASTER_IMAGE_TYPES.has(mediaTypeOf(upstreamHeaders['content-type']))) {
    headers['content-disposition'] = asAttachment(upstreamHeaders['content-disposition']);
  }
  return headers;
}
