// Who owns this installation's server controls (updates, the checkout's history): a caller on this
// computer (loopback, strictly: security/same-origin.ts) or one with an admin session whose account
// still stands (admin/admin-standing.ts: a banned, deleted or revoked admin is no owner). The update
// routes and /api/version decide it here, the same way.
import type { FastifyRequest } from 'fastify';
import type { AdminStanding } from '../admin/admin-standing.ts';
import { isLoopbackRequest } from '../security/same-origin.ts';

export async function isServerOwner(standing: AdminStanding, request: FastifyRequest): Promise<boolean> {
  if (isLoopbackRequest(request)) return true;
  return (await standing.standingSession(request.headers.cookie, request.log)) !== undefined;
}
