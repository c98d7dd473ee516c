// The checks that compare a project's catalog (public.admin_catalog_facts(), read with the service
// key) with the expected catalog that `npm run db:bundle` derives from the migrations: table
// schema, RPC function shape, RLS recursion safety and storage buckets. The expected side is never
// typed by hand; the universal rules (RLS on every public table, no policy reading group_members,
// definer helpers) hold for whatever a project contains, ours or not.
import { z } from 'zod';
import {
  catalogFacts,
  type CatalogFacts,
  type ExpectedCatalog,
  type ExpectedFunction,
  type FactsFunction,
} from '#db/bundles/expected-catalog.ts';
import type { BackendClient } from '../../backend/backend-client.ts';
import { isMissingFunction } from '../patch-functions.ts';
import { check, patchFix, type CategoryId, type Check, type Fix } from './checks.ts';

export const FACTS_FUNCTION = 'admin_catalog_facts';

export type FactsResult =
  { kind: 'facts'; facts: CatalogFacts } | { kind: 'missing' } | { kind: 'failed'; detail: string };

export async function readCatalogFacts(backend: BackendClient): Promise<FactsResult> {
  try {
    const body = await backend.rpc(FACTS_FUNCTION, {}, { serviceRole: true });
    const parsed = catalogFacts.safeParse(body);
    if (!parsed.success)
      return {
        kind: 'failed',
        detail: `${FACTS_FUNCTION}() answered in an unexpected shape: ${z.prettifyError(parsed.error).slice(0, 300)}`,
      };
    return { kind: 'facts', facts: parsed.data };
  } catch (error) {
    if (isMissingFunction(error)) return { kind: 'missing' };
    return { kind: 'failed', detail: `${FACTS_FUNCTION}() failed: ${(error as Error).message}` };
  }
}

/** Of several bundles that each repair part of a problem, the one that holds the most (it repairs all of them). */
export function widestBundle(expected: ExpectedCatalog, bundles: string[]): string | undefined {
  const size = (file: string) => expected.bundles.find((bundle) => bundle.file === file)?.migrations.length ?? 0;
  return [...new Set(bundles)].sort((a, b) => size(b) - size(a))[0];
}

function fixFor(expected: ExpectedCatalog, bundles: string[]): Fix | null {
  const bundle = widestBundle(expected, bundles);
  return bundle ? patchFix(bundle) : null;
}

/** One failing check per catalog category when the facts cannot be read at all. */
export function unreadableCatalogChecks(
  result: Exclude<FactsResult, { kind: 'facts' }>,
  expected: ExpectedCatalog,
): Check[] {
  const categories: CategoryId[] = ['table_schema', 'rpc_functions', 'rls_recursion', 'storage_buckets'];
  const patch = expected.patch.bundle;
  return categories.map((category) =>
    result.kind === 'missing'
      ? check(
          category,
          `${FACTS_FUNCTION}()`,
          false,
          `Patch not applied: the project has no public.${FACTS_FUNCTION}(), so its catalog cannot be read.`,
          patchFix(patch, `Apply ${patch}; it adds ${FACTS_FUNCTION}().`),
        )
      : check(
          category,
          `${FACTS_FUNCTION}()`,
          false,
          result.detail,
          patchFix(patch, `Apply ${patch} if the function is missing or outdated.`),
        ),
  );
}

const qualified = (schema: string, name: string) => `${schema}.${name}`;
const sameList = (a: readonly string[] | null, b: readonly string[] | null) =>
  JSON.stringify([...(a ?? [])].sort()) === JSON.stringify([...(b ?? [])].sort());
const listOrNone = (items: readonly string[]) => (items.length ? items.join(', ') : 'nobody');

export function tableChecks(expected: ExpectedCatalog, facts: CatalogFacts): Check[] {
  return expected.tables.map((table) => {
    const name = qualified(table.schema, table.name);
    const live = facts.tables.find((item) => item.schema === table.schema && item.name === table.name);
    if (!live)
      return check('table_schema', name, false, `Missing (defined in ${table.migration}).`, patchFix(table.bundle));
    const problems: string[] = [];
    const bundles: string[] = [];
    for (const column of table.columns) {
      const found = live.columns.find((item) => item.name === column.name);
      if (!found) problems.push(`missing column ${column.name} ${column.type}`);
      else if (found.type !== column.type)
        problems.push(`column ${column.name} is ${found.type}, expected ${column.type}`);
      else if (found.nullable !== column.nullable)
        problems.push(
          `column ${column.name} ${found.nullable ? 'allows' : 'refuses'} null, expected it to ${column.nullable ? 'allow' : 'refuse'} it`,
        );
      else continue;
      bundles.push(column.bundle);
    }
    for (const trigger of table.triggers) {
      const found = live.triggers.find((item) => item.name === trigger.name);
      if (!found) problems.push(`missing trigger ${trigger.name}`);
      else if (found.function !== trigger.function)
        problems.push(`trigger ${trigger.name} runs ${found.function}, expected ${trigger.function}`);
      else continue;
      bundles.push(trigger.bundle);
    }
    if (problems.length === 0) {
      return check(
        'table_schema',
        name,
        true,
        `${table.columns.length} expected columns${table.triggers.length ? `, ${table.triggers.length} triggers` : ''}; all present.`,
      );
    }
    return check('table_schema', name, false, `${problems.join('; ')}.`, fixFor(expected, bundles));
  });
}

function signature(fn: { schema: string; name: string; arguments: string }): string {
  return `${fn.schema}.${fn.name}(${fn.arguments})`;
}

function functionProblems(want: ExpectedFunction, live: FactsFunction): string[] {
  const problems: string[] = [];
  if (live.returns !== want.returns) problems.push(`returns ${live.returns}, expected ${want.returns}`);
  if (live.security_definer !== want.security_definer) {
    problems.push(want.security_definer ? 'is not SECURITY DEFINER' : 'is SECURITY DEFINER, expected SECURITY INVOKER');
  }
  if (live.search_path !== want.search_path) {
    problems.push(
      want.search_path === null
        ? `sets search_path to ${live.search_path}, expected none`
        : live.search_path === null
          ? `does not set search_path (expected ${want.search_path})`
          : `sets search_path to ${live.search_path}, expected ${want.search_path}`,
    );
  }
  if (!sameList(live.executable_by, want.executable_by)) {
    problems.push(`executable by ${listOrNone(live.executable_by)}; expected ${listOrNone(want.executable_by)}`);
  }
  return problems;
}

export function functionChecks(expected: ExpectedCatalog, facts: CatalogFacts): Check[] {
  return expected.functions.map((want) => {
    const name = signature(want);
    const overloads = facts.functions.filter((item) => item.schema === want.schema && item.name === want.name);
    const live = overloads.find((item) => item.arguments === want.arguments);
    if (!live) {
      const found = overloads.map(signature);
      const detail = found.length
        ? `Missing with these arguments; the project has ${found.join(', ')}.`
        : `Missing (defined in ${want.migration}).`;
      return check('rpc_functions', name, false, detail, patchFix(want.bundle));
    }
    const problems = functionProblems(want, live);
    if (problems.length > 0)
      return check('rpc_functions', name, false, `${problems.join('; ')}.`, patchFix(want.bundle));
    const shape = [
      want.security_definer ? 'SECURITY DEFINER' : 'SECURITY INVOKER',
      want.search_path !== null ? `search_path ${want.search_path}` : null,
      `callable by ${listOrNone(want.executable_by)}`,
    ];
    return check('rpc_functions', name, true, `Returns ${want.returns}; ${shape.filter(Boolean).join(', ')}.`);
  });
}

/** Tables whose rows every member of a group may read only through the membership helpers. */
const MEMBERSHIP_TABLE = 'public.group_members';

export function rlsChecks(expected: ExpectedCatalog, facts: CatalogFacts): Check[] {
  const checks: Check[] = [];
  const bundleOfTable = (schema: string, name: string) =>
    expected.tables.find((table) => table.schema === schema && table.name === name)?.bundle;

  const publicTables = facts.tables.filter((table) => table.schema === 'public');
  const withoutRls = publicTables.filter((table) => !table.rls);
  const rlsBundles = withoutRls
    .map((table) => bundleOfTable(table.schema, table.name))
    .filter((bundle): bundle is string => Boolean(bundle));
  checks.push(
    check(
      'rls_recursion',
      'Row-level security is on for every public table',
      withoutRls.length === 0,
      withoutRls.length === 0
        ? `All ${publicTables.length} public tables have RLS enabled.`
        : `RLS is off for ${withoutRls.map((table) => qualified(table.schema, table.name)).join(', ')}: anyone with the anon key can read and write them.`,
      rlsBundles.length === withoutRls.length
        ? fixFor(expected, rlsBundles)
        : {
            text: 'Enable it: alter table <name> enable row level security; then add the policies the table needs.',
            href: null,
            bundle: null,
          },
    ),
  );

  const readers = facts.policies.filter((policy) => policy.reads.includes(MEMBERSHIP_TABLE));
  const readerBundles = readers
    .map(
      (policy) =>
        expected.policies.find(
          (want) => want.schema === policy.schema && want.table === policy.table && want.name === policy.name,
        )?.bundle,
    )
    .filter((bundle): bundle is string => Boolean(bundle));
  checks.push(
    check(
      'rls_recursion',
      'No policy reads group_members directly',
      readers.length === 0,
      readers.length === 0
        ? "Every policy reaches group membership through the definer helpers, so none recurses into group_members' own policy."
        : `These policies read ${MEMBERSHIP_TABLE} themselves, which recurses through its own policy: ${readers.map((policy) => `"${policy.name}" on ${qualified(policy.schema, policy.table)}`).join(', ')}.`,
      readerBundles.length === readers.length
        ? fixFor(expected, readerBundles)
        : {
            text: 'Rewrite them to call public._is_group_member / public._has_group_role (security definer helpers) instead.',
            href: null,
            bundle: null,
          },
    ),
  );

  // Every project function a policy calls runs inside RLS evaluation: it must be a definer (or
  // it would itself be subject to the policies it helps decide) with a fixed search_path.
  const called = [...new Set(facts.policies.flatMap((policy) => policy.calls))]
    .filter((name) => /^(public|private)\./.test(name))
    .sort();
  const weakHelpers = called.filter((name) => {
    const overloads = facts.functions.filter((fn) => qualified(fn.schema, fn.name) === name);
    return overloads.length === 0 || overloads.some((fn) => !fn.security_definer || fn.search_path === null);
  });
  const helperBundles = weakHelpers
    .map((name) => expected.functions.find((fn) => qualified(fn.schema, fn.name) === name)?.bundle)
    .filter((bundle): bundle is string => Boolean(bundle));
  checks.push(
    check(
      'rls_recursion',
      'The helpers policies call are SECURITY DEFINER with a fixed search_path',
      weakHelpers.length === 0,
      weakHelpers.length === 0
        ? `${called.length ? called.join(', ') : 'No project function is called by a policy'}${called.length ? ': all definers with search_path set.' : '.'}`
        : `Not a definer with a fixed search_path: ${weakHelpers.join(', ')}.`,
      fixFor(expected, helperBundles),
    ),
  );

  for (const want of expected.policies) {
    const name = `Policy "${want.name}" on ${qualified(want.schema, want.table)}`;
    const live = facts.policies.find(
      (policy) => policy.schema === want.schema && policy.table === want.table && policy.name === want.name,
    );
    if (!live) {
      checks.push(
        check('rls_recursion', name, false, `Missing (defined in ${want.migration}).`, patchFix(want.bundle)),
      );
      continue;
    }
    const problems: string[] = [];
    if (live.command !== want.command) problems.push(`applies to ${live.command}, expected ${want.command}`);
    if (live.permissive !== want.permissive)
      problems.push(want.permissive ? 'is restrictive, expected permissive' : 'is permissive, expected restrictive');
    if (!sameList(live.roles, want.roles))
      problems.push(`applies to ${live.roles.join(', ')}, expected ${want.roles.join(', ')}`);
    if (!sameList(live.calls, want.calls))
      problems.push(`calls ${listOrNone(live.calls)}, expected ${listOrNone(want.calls)}`);
    if (!sameList(live.reads, want.reads))
      problems.push(`reads ${listOrNone(live.reads)}, expected ${listOrNone(want.reads)}`);
    checks.push(
      problems.length
        ? check('rls_recursion', name, false, `${problems.join('; ')}.`, patchFix(want.bundle))
        : check(
            'rls_recursion',
            name,
            true,
            `${want.command} for ${want.roles.join(', ')}${want.calls.length ? `, through ${want.calls.join(', ')}` : ''}.`,
          ),
    );
  }
  return checks;
}

function describeBucket(bucket: {
  public: boolean;
  file_size_limit: number | null;
  allowed_mime_types: string[] | null;
}): string {
  const limit = bucket.file_size_limit === null ? 'no size limit' : `at most ${bucket.file_size_limit} bytes`;
  const types = bucket.allowed_mime_types === null ? 'any type' : bucket.allowed_mime_types.join(', ');
  return `${bucket.public ? 'public' : 'private'}, ${limit}, ${types}`;
}

export function bucketChecks(expected: ExpectedCatalog, facts: CatalogFacts): Check[] {
  return expected.buckets.map((want) => {
    const name = `Bucket ${want.id}`;
    const live = facts.buckets.find((bucket) => bucket.id === want.id);
    if (!live)
      return check('storage_buckets', name, false, `Missing (created by ${want.migration}).`, patchFix(want.bundle));
    const problems: string[] = [];
    if (live.public !== want.public)
      problems.push(`is ${live.public ? 'public' : 'private'}, expected ${want.public ? 'public' : 'private'}`);
    if (live.file_size_limit !== want.file_size_limit)
      problems.push(`size limit is ${live.file_size_limit ?? 'none'}, expected ${want.file_size_limit ?? 'none'}`);
    if (!sameList(live.allowed_mime_types, want.allowed_mime_types)) {
      problems.push(
        `allows ${live.allowed_mime_types?.join(', ') ?? 'any type'}, expected ${want.allowed_mime_types?.join(', ') ?? 'any type'}`,
      );
    }
    return problems.length
      ? check('storage_buckets', name, false, `${problems.join('; ')}.`, patchFix(want.bundle))
      : check('storage_buckets', name, true, `${describeBucket(live)}.`);
  });
}

/** The database's own report of which patch it has, against the version of the served patch. */
export function patchVersionCheck(expected: ExpectedCatalog, facts: FactsResult): Check {
  const name = `Database reports ${expected.patch.bundle} ${expected.patch.version} or newer`;
  const fix = patchFix(expected.patch.bundle);
  if (facts.kind === 'missing')
    return check(
      'drift',
      name,
      false,
      `Patch not applied: public.${FACTS_FUNCTION}() is missing, so the database reports no version.`,
      fix,
    );
  if (facts.kind === 'failed') return check('drift', name, false, facts.detail, fix);
  const version = facts.facts.patch_version;
  const sources = [
    version.migrations ? `migration runner ${version.migrations}` : null,
    version.supabase_cli ? `Supabase CLI ${version.supabase_cli}` : null,
    version.bundles ? `applied bundles ${version.bundles}` : null,
  ].filter(Boolean);
  if (!version.newest) return check('drift', name, false, 'The database records no migration or applied bundle.', fix);
  const ok = version.newest >= expected.patch.version;
  return check(
    'drift',
    name,
    ok,
    `The database reports ${version.newest} (${sources.join(', ')}); the served patch is ${expected.patch.version}.`,
    fix,
  );
}
