// Drift: the bundles this server serves must be exactly what the builder makes from the
// migrations now (someone edited a bundle, or a migration without `npm run db:bundle`), and the
// expected catalog must have been generated from those same bundles.
import { buildBundles } from '#db/bundles/build.ts';
import type { ExpectedCatalog } from '#db/bundles/expected-catalog.ts';
import type { ServedBundle } from '../patch/served-bundles.ts';
import { sha256 } from '../patch/served-bundles.ts';
import { check, type Check } from './checks.ts';

const REBUILD = {
  text: 'Run npm run db:bundle in the checkout and restart the server (or update studyhall).',
  href: null,
  bundle: null,
};

export async function bundleDriftChecks(expected: ExpectedCatalog, served: ServedBundle[]): Promise<Check[]> {
  const built = await buildBundles();
  const checks: Check[] = [];
  for (const bundle of served) {
    const fresh = built.get(bundle.file);
    const same = fresh === bundle.sql;
    checks.push(
      check(
        'drift',
        `${bundle.file} equals what the builder makes from the migrations`,
        same,
        same
          ? `sha256 ${bundle.sha256.slice(0, 12)}, ${bundle.migrations.length} migration${bundle.migrations.length === 1 ? '' : 's'}.`
          : fresh === undefined
            ? 'The builder makes no such bundle any more.'
            : `The served file (sha256 ${bundle.sha256.slice(0, 12)}) differs from the builder's output (sha256 ${sha256(fresh).slice(0, 12)}).`,
        REBUILD,
      ),
    );
  }
  const stale = served.filter(
    (bundle) => expected.bundles.find((entry) => entry.file === bundle.file)?.sha256 !== bundle.sha256,
  );
  checks.push(
    check(
      'drift',
      'expected-catalog.json was generated from the served bundles',
      stale.length === 0,
      stale.length === 0
        ? `Generated for ${expected.patch.bundle} ${expected.patch.version}.`
        : `It describes other versions of ${stale.map((bundle) => bundle.file).join(', ')}.`,
      REBUILD,
    ),
  );
  return checks;
}
