// The verify report: eight categories, always in this order, each a list of checks
// `{category, name, ok, detail, fix}`. A failing check that a bundle repairs links to the patch
// page with that bundle chosen; `fix` is null when there is nothing to apply (or nothing to fix).
// The report's shape is the wire contract in contracts/admin-api.ts.
import {
  VERIFY_CATEGORIES,
  type VerifyCategoryId,
  type VerifyCategoryReport,
  type VerifyCheck,
  type VerifyFix,
} from '#contracts/admin-api.ts';

export const CATEGORIES = VERIFY_CATEGORIES;

export type CategoryId = VerifyCategoryId;

/** What to do, where (the patch page with the bundle chosen, or null), and the bundle that repairs it. */
export type Fix = VerifyFix;

/** A check as the report carries it (contracts/admin-api.ts), its category one this server runs. */
export type Check = Omit<VerifyCheck, 'category'> & { category: CategoryId };

export type CategoryReport = Omit<VerifyCategoryReport, 'id' | 'checks'> & { id: CategoryId; checks: Check[] };

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
