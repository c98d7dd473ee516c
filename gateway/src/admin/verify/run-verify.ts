// Runs every check of the eight categories and assembles the report both the page and the JSON
// (and `npm run verify`) show. The browser proof's last report rides along, outside the
// categories: a script cannot run a browser, so it never decides `ok`.
import type { FastifyInstance } from 'fastify';
import type { VerifyReport as WireVerifyReport } from '#contracts/admin-api.ts';
import type { ProofReport } from '../browser-proof/proof-runs.ts';
import type { AdminContext } from '../admin-context.ts';
import { readExpected, readServedBundles } from '../patch/served-bundles.ts';
import { authSmokeChecks } from './auth-smoke.ts';
import {
  bucketChecks,
  functionChecks,
  patchVersionCheck,
  readCatalogFacts,
  rlsChecks,
  tableChecks,
  unreadableCatalogChecks,
} from './catalog-checks.ts';
import { groupByCategory, type CategoryReport, type Check } from './checks.ts';
import { bundleDriftChecks } from './drift-checks.ts';
import { edgeInterceptorChecks, localEndpointChecks } from './server-checks.ts';

/** The report in the contract's shape (contracts/admin-api.ts), with the categories and proof checks this server runs. */
export type VerifyReport = Omit<WireVerifyReport, 'categories' | 'browser_proof'> & {
  categories: CategoryReport[];
  browser_proof: { last_report: ProofReport | null; page: string };
};

// Whatever this server narrows, its report stays one the contract's readers take.
const _reportIsWireShaped = (report: VerifyReport): WireVerifyReport => report;

export async function runVerify(context: AdminContext, app: FastifyInstance): Promise<VerifyReport> {
  const started = performance.now();
  const backend = context.backend.forRoute();
  const expected = await readExpected();
  const [facts, served] = await Promise.all([readCatalogFacts(backend), readServedBundles(expected)]);
  const catalog: Check[] =
    facts.kind === 'facts'
      ? [
          ...tableChecks(expected, facts.facts),
          ...functionChecks(expected, facts.facts),
          ...rlsChecks(expected, facts.facts),
          ...bucketChecks(expected, facts.facts),
        ]
      : unreadableCatalogChecks(facts, expected);
  // inject() runs on this process's router; the smoke test talks to the backend. One after the
  // other keeps a single-session PGlite backend from queueing them against each other.
  const edge = await edgeInterceptorChecks(app);
  const endpoints = await localEndpointChecks(app);
  const smoke = await authSmokeChecks(backend);
  const drift = [...(await bundleDriftChecks(expected, served)), patchVersionCheck(expected, facts)];
  const checks = [...catalog, ...edge, ...endpoints, ...smoke, ...drift];
  const failed = checks.filter((item) => !item.ok).length;
  return {
    ok: failed === 0,
    generated_at: new Date().toISOString(),
    duration_ms: Math.round(performance.now() - started),
    counts: { checks: checks.length, failed },
    categories: groupByCategory(checks),
    browser_proof: { last_report: context.proofs.reports()[0] ?? null, page: '/__admin/browser-proof' },
  };
}
