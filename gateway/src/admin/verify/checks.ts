// The verify report: eight categories, always in this order, each a list of checks
// `{category, name, ok, detail, fix}`. A failing check that a bundle repairs links to the patch
// page with that bundle chosen; `fix` is null when there is nothing to apply (or nothing to fix).
export const CATEGORIES = [
  { id: 'table_schema', name: 'Table schema' },
  { id: 'rpc_functions', name: 'RPC function shape' },
  { id: 'rls_recursion', name: 'RLS recursion safety' },
  { id: 'edge_interceptors', name: 'Edge-function interceptors' },
  { id: 'local_endpoints', name: 'Local server endpoints' },
  { id: 'auth_smoke', name: 'Auth pipeline smoke test' },
  { id: 'storage_buckets', name: 'Storage buckets and visibility' },
  { id: 'drift', name: 'Drift' },
] as const;

export type CategoryId = (typeof CATEGORIES)[number]['id'];

export interface Fix {
  /** What to do, as a sentence. */
  text: string;
  /** Where to do it (the patch page with the bundle chosen), or null when no page helps. */
  href: string | null;
  /** The bundle that repairs this, when one does. */
  bundle: string | null;
}

export interface Check {
  category: CategoryId;
  name: string;
  ok: boolean;
  detail: string;
  fix: Fix | null;
}

export interface CategoryReport {
  id: CategoryId;
  name: string;
  ok: boolean;
  checks: Check[];
}

export function patchFix(bundle: string, text = `Apply ${bundle}.`): Fix {
  return { text, href: `/__admin/patch?bundle=${encodeURIComponent(bundle)}#apply`, bundle };
}

export function check(category: CategoryId, name: string, ok: boolean, detail: string, fix: Fix | null = null): Check {
  return { category, name, ok, detail, fix: ok ? null : fix };
}

export function groupByCategory(checks: Check[]): CategoryReport[] {
  return CATEGORIES.map(({ id, name }) => {
    const own = checks.filter((item) => item.category === id);
    return { id, name, ok: own.every((item) => item.ok), checks: own };
  });
}
