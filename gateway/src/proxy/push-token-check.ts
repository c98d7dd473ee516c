// Device tokens are registered by the database (community_register_device_token, the only way to
// add one: students have no INSERT on community_device_tokens), so the gateway cannot stop every
// registration: a hosted backend can be reached directly. But a registration that passes through
// /__backend is checked here, so a student who aims a token at an internal host is told at once
// (400 push_endpoint_refused) instead of finding it silently given up later. The check that always
// holds is the push worker's, when it connects (push/web-push-sender.ts).
import { z } from 'zod';
import { NonPublicEndpointError } from '../push/public-address.ts';
import { parsePushToken } from '../push/push-subscription.ts';
import { endpointAddress, type EndpointGuard } from '../push/web-push-sender.ts';

export const REGISTER_TOKEN_PATH = '/rest/v1/rpc/community_register_device_token';

const registration = z.object({ p_token: z.string() }).loose();

/** Why a registration body is refused, or undefined to let it through to the database. */
export async function refusedPushRegistration(body: Buffer, guard: EndpointGuard): Promise<string | undefined> {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = registration.safeParse(json);
  if (!parsed.success) return undefined;
  // Something that is not a Web Push subscription is the database's to judge (and never sent).
  const token = parsePushToken(parsed.data.p_token, { allowPlainHttp: guard.allowPlainHttpLoopback });
  if (!token.ok) return undefined;
  const endpoint = new URL(token.subscription.endpoint);
  try {
    await endpointAddress(endpoint.protocol, endpoint.hostname, guard);
    return undefined;
  } catch (error) {
    // A name that does not resolve now may later; only a refused address is final.
    return error instanceof NonPublicEndpointError ? error.message : undefined;
  }
}
