// The shapes of a catalog as public.admin_catalog_facts() describes it, and of the expected catalog
// (supabase/bundles/expected-catalog.json) that `npm run db:bundle` derives from the migrations:
// the same facts, for the objects the migrations create, each with the migration that defines it
// and the smallest bundle that (re)creates it. The admin console compares a live project with it.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { bundlesDir } from '../paths.ts';

export const EXPECTED_CATALOG_FILE = 'expected-catalog.json';
export const expectedCatalogPath = path.join(bundlesDir, EXPECTED_CATALOG_FILE);

/** The cumulative patch whose version a database should report. */
export const PATCH_BUNDLE = 'community-patch-v6.sql';

const column = z.object({ name: z.string(), type: z.string(), nullable: z.boolean() });
const trigger = z.object({ name: z.string(), function: z.string() });

export const factsTable = z.object({
  schema: z.string(),
  name: z.string(),
  rls: z.boolean(),
  columns: z.array(column),
  triggers: z.array(trigger),
});

export const factsFunction = z.object({
  schema: z.string(),
  name: z.string(),
  arguments: z.string(),
  returns: z.string(),
  security_definer: z.boolean(),
  search_path: z.string().nullable(),
  executable_by: z.array(z.string()),
});

export const factsPolicy = z.object({
  schema: z.string(),
  table: z.string(),
  name: z.string(),
  command: z.enum(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'ALL']),
  permissive: z.boolean(),
  roles: z.array(z.string()),
  reads: z.array(z.string()),
  calls: z.array(z.string()),
});

export const factsBucket = z.object({
  id: z.string(),
  public: z.boolean(),
  file_size_limit: z.number().nullable(),
  allowed_mime_types: z.array(z.string()).nullable(),
});

export const catalogFacts = z.object({
  facts_version: z.literal(1),
  server_version_num: z.number(),
  tables: z.array(factsTable),
  functions: z.array(factsFunction),
  policies: z.array(factsPolicy),
  buckets: z.array(factsBucket),
  patch_version: z.object({
    newest: z.string().nullable(),
    migrations: z.string().nullable(),
    supabase_cli: z.string().nullable(),
    bundles: z.string().nullable(),
  }),
});

export type CatalogFacts = z.infer<typeof catalogFacts>;
export type FactsTable = z.infer<typeof factsTable>;
export type FactsFunction = z.infer<typeof factsFunction>;
export type FactsPolicy = z.infer<typeof factsPolicy>;
export type FactsBucket = z.infer<typeof factsBucket>;

/** Where an expected object comes from: the migration that defines it, and the bundle to apply. */
const provenance = z.object({ migration: z.string(), bundle: z.string() });

export const expectedCatalog = z.object({
  generated_by: z.string(),
  patch: z.object({ bundle: z.string(), version: z.string() }),
  bundles: z.array(
    z.object({ file: z.string(), version: z.string(), sha256: z.string(), migrations: z.array(z.string()) }),
  ),
  tables: z.array(
    factsTable
      .extend({
        columns: z.array(column.extend(provenance.shape)),
        triggers: z.array(trigger.extend(provenance.shape)),
      })
      .extend(provenance.shape),
  ),
  functions: z.array(factsFunction.extend(provenance.shape)),
  policies: z.array(factsPolicy.extend(provenance.shape)),
  buckets: z.array(factsBucket.extend(provenance.shape)),
});

export type ExpectedCatalog = z.infer<typeof expectedCatalog>;
export type ExpectedTable = ExpectedCatalog['tables'][number];
export type ExpectedFunction = ExpectedCatalog['functions'][number];
export type ExpectedPolicy = ExpectedCatalog['policies'][number];
export type ExpectedBucket = ExpectedCatalog['buckets'][number];

/** The committed expected catalog, validated. */
export async function readExpectedCatalog(file = expectedCatalogPath): Promise<ExpectedCatalog> {
  return expectedCatalog.parse(JSON.parse(await readFile(file, 'utf8')));
}

/** The file's text: stable key order and one object per line, so a diff shows what changed. */
export function renderExpectedCatalog(catalog: ExpectedCatalog): string {
  const lines = (items: unknown[]) => items.map((item) => `    ${JSON.stringify(item)}`).join(',\n');
  const section = (name: string, items: unknown[]) => `  "${name}": [\n${lines(items)}\n  ]`;
  return [
    '{',
    `  "generated_by": ${JSON.stringify(catalog.generated_by)},`,
    `  "patch": ${JSON.stringify(catalog.patch)},`,
    `${section('bundles', catalog.bundles)},`,
    `${section('tables', catalog.tables)},`,
    `${section('functions', catalog.functions)},`,
    `${section('policies', catalog.policies)},`,
    `${section('buckets', catalog.buckets)}`,
    '}',
    '',
  ].join('\n');
}
