// "Loopback" for /api/update-now (spec): the connection comes from 127.0.0.1 or ::1 and carries no
// x-forwarded-* header. A forwarded header means a proxy on this machine relays someone else.
import type { IncomingHttpHeaders } from 'node:http';

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

export function isLoopbackCaller(remoteAddress: string | undefined, headers: IncomingHttpHeaders): boolean {
  if (!remoteAddress || !LOOPBACK_ADDRESSES.has(remoteAddress)) return false;
  return !Object.keys(headers).some((name) => name.toLowerCase().startsWith('x-forwarded-'));
}
