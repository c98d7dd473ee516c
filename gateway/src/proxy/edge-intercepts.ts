// Edge functions the local server answers itself (spec "Backend proxy", Errors): leaderboard,
// analytics and finish-session are disabled (502, no fabricated data; the database RPCs replace
// them), and payment or portal paths get an inert 200 stub (a local server sells nothing).
export type EdgeIntercept =
  | { kind: 'disabled'; functionName: string }
  | { kind: 'payment_stub'; functionName: string }
  | undefined;

const disabledPattern = /leaderboard|analytics|finish-session/i;
const paymentPattern = /payment|portal|checkout/i;

/** Classifies a path under /__backend (e.g. `/functions/v1/customer-portal?x=1`). */
export function classifyEdgePath(pathUnderBackend: string): EdgeIntercept {
  const pathname = pathUnderBackend.split('?')[0] ?? '';
  const match = /^\/functions\/v1\/([^/]+)/.exec(pathname);
  if (!match?.[1]) return undefined;
  let functionName: string;
  try {
    functionName = decodeURIComponent(match[1]);
  } catch {
    functionName = match[1];
  }
  if (disabledPattern.test(functionName)) return { kind: 'disabled', functionName };
  if (paymentPattern.test(functionName)) return { kind: 'payment_stub', functionName };
  return undefined;
}

export const PAYMENT_STUB = Object.freeze({
  ok: true,
  stub: true,
  url: null,
  message: 'Payments are not available on a local studyhall server; nothing was charged.',
});

/**
 * Password grants and signups sent straight to the backend's auth API. The gateway limits them like
 * /__auth/login and /__auth/signup, so the proxy is not a way around that limit (the gateway
 * listens on the LAN). Refresh-token grants and every other call are not limited.
 */
export function isCredentialAttempt(method: string, pathUnderBackend: string): boolean {
  if (method !== 'POST') return false;
  const [pathname = '', query = ''] = pathUnderBackend.split('?');
  if (pathname === '/auth/v1/signup') return true;
  return pathname === '/auth/v1/token' && new URLSearchParams(query).get('grant_type') === 'password';
}
