// The admin console's JSON answers (docs/api.md#admin-console) that scripts read: the verify report
// (`npm run verify`, tools/verify/), the browser proof's reports, and the unlock routes. The gateway
// builds its answers with these types and the readers parse with these schemas. A reader drops keys
// it does not know and takes category and check names as plain strings, so a newer server's extra
// category still reads; the gateway narrows them to the ones it runs.
import * as z from 'zod/mini';

/** The verify suite's categories, always in this order. */
export const VERIFY_CATEGORIES = [
  { id: 'table_schema', name: 'Table schema' },
  { id: 'rpc_functions', name: 'RPC function shape' },
  { id: 'rls_recursion', name: 'RLS recursion safety' },
  { id: 'edge_interceptors', name: 'Edge-function interceptors' },
  { id: 'local_endpoints', name: 'Local server endpoints' },
  { id: 'auth_smoke', name: 'Auth pipeline smoke test' },
  { id: 'storage_buckets', name: 'Storage buckets and visibility' },
  { id: 'drift', name: 'Drift' },
] as const;

export type VerifyCategoryId = (typeof VERIFY_CATEGORIES)[number]['id'];

/** How to repair a failing check: what to do, where (the patch page with the bundle chosen), which bundle. */
export const verifyFix = z.object({ text: z.string(), href: z.nullable(z.string()), bundle: z.nullable(z.string()) });

export const verifyCheck = z.object({
  category: z.string(),
  name: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  fix: z.nullable(verifyFix),
});

export const verifyCategoryReport = z.object({
  id: z.string(),
  name: z.string(),
  ok: z.boolean(),
  checks: z.array(verifyCheck),
});

/** One check of a browser proof run: service_worker, indexeddb or login. */
export const proofCheck = z.object({
  name: z.string(),
  ok: z.boolean(),
  detail: z.string(),
  facts: z.record(z.string(), z.unknown()),
});

/** A browser's report, as POST /__admin/browser-proof-result answers it and verify carries the latest. */
export const proofReport = z.object({
  run_id: z.string(),
  subject: z.string(),
  received_at: z.string(),
  ok: z.boolean(),
  user_agent: z.string(),
  checks: z.array(proofCheck),
});

/** GET /__admin/verify as JSON (the last run), or POST /__admin/verify (a new run). The browser proof rides along and never decides `ok`. */
export const verifyReport = z.object({
  ok: z.boolean(),
  generated_at: z.string(),
  duration_ms: z.number(),
  counts: z.object({ checks: z.int(), failed: z.int() }),
  categories: z.array(verifyCategoryReport),
  browser_proof: z.object({ last_report: z.nullable(proofReport), page: z.string() }),
});

/**
 * GET /__admin/browser-proof as JSON: the newest reports first, and a fresh run only when none has
 * reported yet (the page's first view runs it); POST /__admin/browser-proof always starts one.
 */
export const browserProofPage = z.object({
  run: z.nullable(z.object({ token: z.string(), run_id: z.string(), expires_at: z.string() })),
  last_reports: z.array(proofReport),
});

/** GET /__admin/login as JSON: which ways in this server offers, and whether the caller is in. */
export const adminLoginStatus = z.object({
  ok: z.literal(true),
  admin_available: z.boolean(),
  methods: z.object({ secret: z.boolean(), account: z.boolean() }),
  signed_in: z.boolean(),
});

/** POST /__admin/login as JSON: who is signed in, how, and until when (ISO time). */
export const adminSignedIn = z.object({
  ok: z.literal(true),
  subject: z.string(),
  method: z.enum(['secret', 'admin_emails', 'user_roles']),
  expires_at: z.string(),
});

/** POST /__admin/logout as JSON. */
export const adminSignedOut = z.object({ ok: z.literal(true), signed_out: z.literal(true) });

export type VerifyFix = z.infer<typeof verifyFix>;
export type VerifyCheck = z.infer<typeof verifyCheck>;
export type VerifyCategoryReport = z.infer<typeof verifyCategoryReport>;
export type ProofCheck = z.infer<typeof proofCheck>;
export type ProofReport = z.infer<typeof proofReport>;
export type VerifyReport = z.infer<typeof verifyReport>;
export type BrowserProofPage = z.infer<typeof browserProofPage>;
export type AdminLoginStatus = z.infer<typeof adminLoginStatus>;
export type AdminSignedIn = z.infer<typeof adminSignedIn>;
export type AdminSignedOut = z.infer<typeof adminSignedOut>;
