// Edge functions the local server answers itself (docs/api.md#backend-proxy): leaderboard,
// analytics and finish-session are disabled (502, no fabricated data; the database RPCs replace
// them), and payment or portal paths get an inert 200 stub (a local server sells nothing).
export type EdgeIntercept =
  { kind: 'disabled'; functionName: string } | { kind: 'payment_stub'; functionName: string } | undefined;

const disabledPattern = /leaderboard|analytics|finish-session/i;
const paymentPattern = /payment|portal|checkout/i;

/** Classifies a decided path under /__backend (security/request-path.ts), e.g. `/functions/v1/customer-portal`. */
export function classifyEdgePath(decidedPathUnderBackend: string): EdgeIntercept {
  const match = /^\/functions\/v1\/([^/]+)/.exec(decidedPathUnderBackend);
  const functionName = match?.[1];
  if (!functionName) return undefined;
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
