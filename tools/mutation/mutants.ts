// The mutants of a policy set, and which of them are equivalent (cannot change what any API
// request may do, so no test could ever kill them).
//
// For every policy: widen each clause it has to `true` (`using (true)`, `with check (true)`) and
// drop it; for every covered table: disable row-level security. A mutant is equivalent, and is
// reported but neither run nor counted, when one of these holds:
//   - the clause it widens is already `true`;
//   - none of the policy's roles is an API role under RLS (anon, authenticated), or none of them
//     holds the privilege for any of the policy's commands: the privilege check refuses first;
//   - (permissive policies) every API role and command the mutant opens is already opened by
//     another permissive policy of the table whose matching clause is `true`: the policies are
//     OR-ed, so the mutant adds nothing (dropping the own-row read beside a read-all policy);
//   - (disable RLS) no API role holds any privilege on the table, or every privilege they hold
//     is already opened by a permissive `true` policy and no restrictive policy exists.
import {
  API_ROLES,
  COMMANDS,
  qualifiedName,
  quoteIdent,
  type ApiRole,
  type Catalog,
  type Command,
  type Policy,
  type Table,
  type TableRef,
} from './catalog.ts';

export type MutantKind = 'widen-using' | 'widen-check' | 'drop' | 'disable-rls';

export interface Mutant {
  kind: MutantKind;
  target: TableRef;
  /** The policy it mutates; absent for disable-rls. */
  policy?: string;
  /** One line a reader can find in the source: `widen using of "p" on public.t`. */
  label: string;
  /** The statement that turns the built database into this mutant. */
  sql: string;
  /** Why it cannot change behaviour; absent for a mutant that must be killed. */
  equivalentBecause?: string;
}

const TRUE = 'true';

export function commandsOf(policy: Policy): Command[] {
  return policy.command === 'ALL' ? [...COMMANDS] : [policy.command];
}

export function apiRolesOf(policy: Policy): ApiRole[] {
  if (policy.roles.includes('public')) return [...API_ROLES];
  return API_ROLES.filter((role) => policy.roles.includes(role));
}

/** The clause PostgreSQL checks rows against on INSERT/UPDATE: WITH CHECK, or USING when absent. */
function effectiveCheck(policy: Policy): string | null {
  return policy.check ?? (policy.command === 'INSERT' ? null : policy.using);
}

/** Whether the policy lets every row through for this command, for whatever clauses it applies. */
function opensEveryRow(policy: Policy, command: Command): boolean {
  switch (command) {
    case 'SELECT':
    case 'DELETE':
      return policy.using === TRUE;
    case 'INSERT':
      return effectiveCheck(policy) === TRUE;
    case 'UPDATE':
      return policy.using === TRUE && effectiveCheck(policy) === TRUE;
  }
}

function usingMatters(command: Command): boolean {
  return command !== 'INSERT';
}

function checkMatters(command: Command): boolean {
  return command === 'INSERT' || command === 'UPDATE';
}

interface Grant {
  role: ApiRole;
  command: Command;
}

/** The (role, command) pairs through which this policy can decide anything. */
function liveGrants(policy: Policy, table: Table | undefined): Grant[] {
  return apiRolesOf(policy).flatMap((role) =>
    commandsOf(policy)
      .filter((command) => table?.privileges[role][command] ?? false)
      .map((command) => ({ role, command })),
  );
}

function appliesTo(policy: Policy, grant: Grant): boolean {
  return apiRolesOf(policy).includes(grant.role) && commandsOf(policy).includes(grant.command);
}

/** Another permissive policy on the same table that already opens every row for this grant. */
function openedElsewhere(
  policies: Policy[],
  self: Policy | null,
  target: TableRef,
  grant: Grant,
  opens: (other: Policy) => boolean,
): Policy | undefined {
  return policies.find(
    (other) =>
      other !== self && other.permissive && sameTable(other, target) && appliesTo(other, grant) && opens(other),
  );
}

function sameTable(a: TableRef, b: TableRef): boolean {
  return a.schema === b.schema && a.table === b.table;
}

function describeGrant(grant: Grant): string {
  return `${grant.role} ${grant.command}`;
}

/** Why widening or dropping this policy changes nothing, or undefined when it can. */
function policyEquivalence(
  catalog: Catalog,
  policy: Policy,
  kind: Exclude<MutantKind, 'disable-rls'>,
): string | undefined {
  if (kind === 'widen-using' && policy.using === TRUE) return 'its USING clause is already true';
  if (kind === 'widen-check' && policy.check === TRUE) return 'its WITH CHECK clause is already true';
  const table = catalog.tables.find((candidate) => sameTable(candidate, policy));
  if (apiRolesOf(policy).length === 0) {
    return `it applies only to ${policy.roles.join(', ')}, not to anon or authenticated (service_role bypasses RLS)`;
  }
  const grants = liveGrants(policy, table).filter(({ command }) =>
    kind === 'widen-using' ? usingMatters(command) : kind === 'widen-check' ? checkMatters(command) : true,
  );
  if (grants.length === 0) {
    return `no API role holds the privilege it would decide (${apiRolesOf(policy).join(', ')} on ${commandsOf(policy).join(', ')})`;
  }
  if (!policy.permissive) return undefined;
  const opens = (other: Policy, command: Command): boolean =>
    kind === 'widen-using'
      ? other.using === TRUE && usingMatters(command)
      : kind === 'widen-check'
        ? effectiveCheck(other) === TRUE
        : opensEveryRow(other, command);
  const coveredBy = grants.map((grant) =>
    openedElsewhere(catalog.policies, policy, policy, grant, (other) => opens(other, grant.command)),
  );
  if (coveredBy.every((other) => other !== undefined)) {
    const names = [...new Set(coveredBy.map((other) => `"${other?.name}"`))].join(', ');
    return `${names} already opens every row for ${grants.map(describeGrant).join(', ')}`;
  }
  return undefined;
}

function rlsEquivalence(catalog: Catalog, table: Table): string | undefined {
  const grants = API_ROLES.flatMap((role) =>
    COMMANDS.filter((command) => table.privileges[role][command]).map((command) => ({ role, command })),
  );
  if (grants.length === 0) return 'neither anon nor authenticated holds any privilege on it';
  const policies = catalog.policies.filter((policy) => sameTable(policy, table));
  if (policies.some((policy) => !policy.permissive)) return undefined;
  if (
    grants.every((grant) =>
      openedElsewhere(policies, null, table, grant, (other) => opensEveryRow(other, grant.command)),
    )
  ) {
    return 'permissive policies already open every row for every privilege the API roles hold';
  }
  return undefined;
}

function policyLabel(policy: Policy): string {
  return `"${policy.name}" on ${policy.schema}.${policy.table}`;
}

export function mutantsOf(catalog: Catalog): Mutant[] {
  const mutants: Mutant[] = [];
  for (const policy of catalog.policies) {
    const on = `${quoteIdent(policy.name)} on ${qualifiedName(policy)}`;
    const base = { target: { schema: policy.schema, table: policy.table }, policy: policy.name };
    if (policy.using !== null) {
      mutants.push({
        ...base,
        kind: 'widen-using',
        label: `widen using of ${policyLabel(policy)}`,
        sql: `alter policy ${on} using (true)`,
        equivalentBecause: policyEquivalence(catalog, policy, 'widen-using'),
      });
    }
    if (policy.check !== null) {
      mutants.push({
        ...base,
        kind: 'widen-check',
        label: `widen with check of ${policyLabel(policy)}`,
        sql: `alter policy ${on} with check (true)`,
        equivalentBecause: policyEquivalence(catalog, policy, 'widen-check'),
      });
    }
    mutants.push({
      ...base,
      kind: 'drop',
      label: `drop ${policyLabel(policy)}`,
      sql: `drop policy ${on}`,
      equivalentBecause: policyEquivalence(catalog, policy, 'drop'),
    });
  }
  for (const table of catalog.tables.filter((candidate) => candidate.rlsEnabled)) {
    mutants.push({
      kind: 'disable-rls',
      target: { schema: table.schema, table: table.table },
      label: `disable row level security on ${table.schema}.${table.table}`,
      sql: `alter table ${qualifiedName(table)} disable row level security`,
      equivalentBecause: rlsEquivalence(catalog, table),
    });
  }
  return mutants;
}
