// Who owns this installation's server controls (updates, the checkout's history): a caller on this
// computer (loopback, strictly: security/same-origin.ts) or one with an admin session. The update
// routes and /api/version decide it here, the same way.
import type { FastifyRequest } from 'fastify';
import { adminSubjectFromCookieHeader, type AdminGate } from '../admin/admin-cookie.ts';
import { isLoopbackRequest } from '../security/same-origin.ts';

export function isServerOwner(gate: AdminGate, request: FastifyRequest): boolean {
  return adminSubjectFromCookieHeader(gate, request.headers.cookie) !== undefined || isLoopbackRequest(request);
}
