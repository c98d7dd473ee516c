// Who may see a captured row, decided for all its readers in one statement. Hosted Realtime's
// walrus does the same in one SQL function call per change: it loops over the subscriptions,
// switching role and claims for each, and asks under them whether the row may be read, so RLS and
// grants decide per subscriber. Walrus selects the row from the table by its key, so a row deleted
// before the check is shown to nobody; here the row asked about is the one the change captured
// (below), so every change reaches its readers in order, whatever happened to the row since. The
// function lives in localbase's own schema `_localbase` (installed at boot, never in a bundle) and is
// called by the database owner, which alone may switch to the API roles; nobody else may execute it.
//
// One statement per change instead of one transaction per subscriber: on PGlite every check
// queued on the single session, so a change to N subscribers cost N transactions one after the
// other. The statement runs in one read-only transaction of its own, sent in one round trip, and
// never waits for anything outside the database, so the session is held only while the checks run.
import type pg from 'pg';
import type { Claims } from '../jwt.ts';
import { installIfChanged } from '../installed-sql.ts';
import { runOwnerReadStatement } from '../request-transaction.ts';
import type { Change, TableShape } from './capture.ts';
import { sessionOf } from './channel-guard.ts';

/** One distinct reader: subscribers with the same role and claims are asked once. */
export interface Reader {
  role: string;
  claims: Claims;
}

/** What the database answered for one reader: seen or not, and the error that kept it from reading. */
export interface ReaderVerdict {
  visible: boolean;
  /** SQLSTATE of the error the reader's check raised, null when it ran. */
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * Readers per statement. A change to more distinct readers is decided in slices of this size, one
 * statement each, so that on PGlite other requests get the session between slices instead of
 * waiting for every check of one change at once.
 */
export const READERS_PER_STATEMENT = 500;

/**
 * The fewest readers a slice of a change's checks gets when they are spread over several
 * connections: each slice pays a round trip and prepares the check again for its role (a few
 * milliseconds), so a smaller one costs more than it saves.
 */
export const MIN_READERS_PER_SLICE = 25;

/**
 * How a change's `count` distinct readers are cut into statements for `connections` connections:
 * with one, slices of READERS_PER_STATEMENT, run one after the other; with several, as evenly as
 * they share out, each of at least MIN_READERS_PER_SLICE and at most READERS_PER_STATEMENT readers.
 */
export function checkSlices(count: number, connections: number): { start: number; end: number }[] {
  const size =
    connections <= 1
      ? READERS_PER_STATEMENT
      : Math.min(READERS_PER_STATEMENT, Math.max(MIN_READERS_PER_SLICE, Math.ceil(count / connections)));
  const slices: { start: number; end: number }[] = [];
  for (let start = 0; start < count; start += size) slices.push({ start, end: Math.min(count, start + size) });
  return slices;
}

/**
 * Bound on waiting for a lock (a migration holding the table) during the checks. The statement as
 * a whole has the `authenticated` statement timeout (on PGlite, through the engine's watchdog).
 */
export const CHECK_LOCK_TIMEOUT = '8s';

/** The session-level name of the prepared check (apart from the Data API's `lb_` statements). */
const CHECK_STATEMENT = '_localbase_realtime_check';

/** SQLSTATE of the check the function answers for a reader whose session has ended (see request-transaction.ts). */
export const SESSION_ENDED_CODE = 'LB401';

// The check of a captured INSERT or UPDATE reads the row as it was written, not as the table holds
// it by the time of the drain: the change queue keeps the row's image (capture.ts), and a row that
// was updated or deleted since must still be shown to whoever could read it then, in order. So the
// check does not select the row from the table; it evaluates the table's SELECT policies on the
// image, as row-level security would on that row (realtime_row_check_sql): the permissive policies
// that apply to the reader's role OR'd, the restrictive ones AND'd, none when the role bypasses
// RLS or the table has none. The policies are deparsed with an empty search path (every name
// qualified, so they mean what they meant when created) and their column references resolve to the
// image, a one-row subquery of typed constants aliased as the table. A policy's sub-selects and
// functions still read the live database under the reader's role and claims, as RLS runs them.
// The reader's role must hold SELECT on the key columns, as a SELECT of the row by its key would.
// Unlike RLS, names in a policy are resolved again as the reader (when the check is re-planned for
// its role): a policy calling a function in a schema the role may not use is a "no" for it.
const ROW_CHECK_SQL = `
-- The SELECT that asks whether p_role may read p_record as a row of p_table: the image as a one-row
-- subquery aliased as the table, filtered by the table's SELECT policies for that role. NULL when the
-- role may not select the table's key columns.
create or replace function _localbase.realtime_row_check_sql(p_table regclass, p_role text, p_record jsonb, p_key text[])
returns text
language plpgsql stable
set search_path = ''
as $$
declare
  v_relation record;
  v_image text;
  v_permissive text;
  v_restrictive text;
  v_applies boolean;
begin
  if exists (select 1 from pg_catalog.unnest(p_key) k where not pg_catalog.has_column_privilege(p_role, p_table, k, 'SELECT')) then
    return null;
  end if;
  select c.relname, c.relrowsecurity, c.relforcerowsecurity, c.relowner into v_relation
    from pg_catalog.pg_class c where c.oid = p_table;
  -- Each column typed by the table once and inlined as a constant of its type (a type's text output
  -- and input round-trip exactly): per reader the check then only evaluates the policies.
  execute (
    select pg_catalog.format('select pg_catalog.concat_ws(%L, %s) from pg_catalog.jsonb_populate_record(null::%s, $1) r',
             ', ',
             pg_catalog.string_agg(pg_catalog.format('pg_catalog.quote_nullable(r.%I::text) || %L', a.attname,
               '::' || pg_catalog.format_type(a.atttypid, a.atttypmod) || ' as ' || pg_catalog.quote_ident(a.attname)),
               ', ' order by a.attnum),
             p_table)
    from pg_catalog.pg_attribute a where a.attrelid = p_table and a.attnum > 0 and not a.attisdropped)
    using p_record into v_image;
  -- As check_enable_rls decides: no RLS on the table, a role with BYPASSRLS, or the owner of a table
  -- that does not force it, reads every row.
  v_applies := v_relation.relrowsecurity
    and not (select r.rolbypassrls from pg_catalog.pg_roles r where r.rolname = p_role)
    and not (pg_catalog.pg_has_role(p_role, v_relation.relowner, 'USAGE') and not v_relation.relforcerowsecurity);
  if v_applies then
    select pg_catalog.string_agg('(' || pg_catalog.pg_get_expr(p.polqual, p.polrelid) || ')', ' or ' order by p.polname)
             filter (where p.polpermissive),
           pg_catalog.string_agg('(' || pg_catalog.pg_get_expr(p.polqual, p.polrelid) || ')', ' and ' order by p.polname)
             filter (where not p.polpermissive)
      into v_permissive, v_restrictive
      from pg_catalog.pg_policy p
      where p.polrelid = p_table and p.polcmd in ('r', '*') and p.polqual is not null
        and (0 operator(pg_catalog.=) any (p.polroles)
             or exists (select 1 from pg_catalog.unnest(p.polroles) r where r operator(pg_catalog.<>) 0 and pg_catalog.pg_has_role(p_role, r, 'USAGE')));
  end if;
  return pg_catalog.format('select true from (select %s) as %I where %s', v_image, v_relation.relname,
    case when not v_applies then 'true'
         else coalesce('(' || v_permissive || ')', 'false') || coalesce(' and ' || v_restrictive, '') end);
end
$$;
revoke execute on function _localbase.realtime_row_check_sql(regclass, text, jsonb, text[]) from public;`;

// SECURITY INVOKER on purpose: a SECURITY DEFINER function may not switch role. The caller is the
// owner's pool (no role switch), so `role` starts as the session user and goes back to it after
// the last reader. The role is one of the three API roles whatever the argument says. The search path
// is not pinned, so the functions policies call see what a Data API request sees; every name here
// is qualified.
//
// The check is prepared once per role (readers are taken role by role) with the row's image inlined
// (realtime_row_check_sql), and executed per reader, as walrus prepares its check: planning it for
// every reader cost about three times the check itself on PGlite. It is prepared as the owner
// (the role is reset first), and the role is switched only when the next reader's differs from the
// current one; the claims are set for every reader and read when the plan runs (auth.uid() is
// current_setting), as with the Data API's own prepared statements. A prepared statement outlives a
// failed transaction, so a leftover one is dropped first.
//
// The readers' fields are unpacked once, in one query, into arrays taken in check order (role by
// role); whether each one's session is still live is decided there too, as the owner (the API roles
// cannot read auth.sessions). Per reader the loop then only indexes arrays.
//
// The claims go into `request.jwt.claims`, as the Data API sets them, and the token's `sub` and
// `role` also into `request.jwt.claim.sub` / `request.jwt.claim.role`, which auth.uid() and
// auth.role() read before they parse the claims (Supabase's definitions, kept from PostgREST's older
// per-claim settings; hosted Realtime sets them for its channel authorization, and only the claims
// for postgres_changes). They answer the same; only the JSON is not parsed again in every policy
// check, which cost a tenth of it. The caller passes both as read from the verified token ('' when
// absent: the functions then read the claims, as in a Data API request).
//
// Each reader's check runs in a block of its own (a subtransaction): an error it raises (no grant,
// a policy function that raises) is that reader's answer, the settings and any role switch made in
// the block are rolled back with it, and the next reader is checked as before (its role switched
// again, since current_user is then no longer its role). One block for a run of readers, opened
// again after one that fails, measured no faster on either engine.
const VISIBILITY_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;
${ROW_CHECK_SQL}
-- The five-argument version of an older install would make calls without p_check_row ambiguous.
drop function if exists _localbase.realtime_visibility(text, text, text[], jsonb, jsonb);
create or replace function _localbase.realtime_visibility(
  p_schema text, p_table text, p_primary_key text[], p_record jsonb, p_readers jsonb, p_check_row boolean default true)
returns table (reader integer, visible boolean, error_code text, error_message text)
language plpgsql volatile
as $$
declare
  v_indexes integer[];
  v_roles text[];
  v_claims text[];
  v_subs text[];
  v_claim_roles text[];
  v_live boolean[];
  v_count integer;
  v_at integer;
  v_found boolean;
  v_table regclass;
  v_prepared_for text;
  v_check text;
begin
  -- A table without a primary key has no row a reader could be asked about: nobody sees it.
  if coalesce(pg_catalog.array_length(p_primary_key, 1), 0) = 0 then
    return;
  end if;
  v_table := pg_catalog.format('%I.%I', p_schema, p_table)::regclass;
  -- Nothing a check runs (a policy, a function it calls) may write. The request settings are the
  -- same for every reader.
  perform pg_catalog.set_config('transaction_read_only', 'on', true),
          pg_catalog.set_config('lock_timeout', '${CHECK_LOCK_TIMEOUT}', true),
          pg_catalog.set_config('request.method', 'GET', true),
          pg_catalog.set_config('request.path', '/realtime/v1', true),
          pg_catalog.set_config('request.headers', '{}', true);
  if exists (select 1 from pg_catalog.pg_prepared_statements p where p.name = '${CHECK_STATEMENT}') then
    deallocate ${CHECK_STATEMENT};
  end if;
  with readers as (
    select (e.ordinality - 1)::integer as index, e.value ->> 'role' as role, e.value ->> 'claims' as claims,
           coalesce(e.value ->> 'sub', '') as sub, coalesce(e.value ->> 'claimRole', '') as claim_role,
           (e.value ->> 'session')::uuid as session
    from pg_catalog.jsonb_array_elements(p_readers) with ordinality e
  ), live as (
    select s.id from auth.sessions s
    join auth.users u on u.id = s.user_id and not coalesce(u.banned_until operator(pg_catalog.>) pg_catalog.now(), false)
    where s.id in (select r.session from readers r)
  )
  select pg_catalog.array_agg(r.index order by r.role, r.index),
         pg_catalog.array_agg(r.role order by r.role, r.index),
         pg_catalog.array_agg(r.claims order by r.role, r.index),
         pg_catalog.array_agg(r.sub order by r.role, r.index),
         pg_catalog.array_agg(r.claim_role order by r.role, r.index),
         pg_catalog.array_agg(r.session is null or r.session in (select l.id from live l) order by r.role, r.index)
    into v_indexes, v_roles, v_claims, v_subs, v_claim_roles, v_live
    from readers r;
  v_count := coalesce(pg_catalog.array_length(v_indexes, 1), 0);
  -- A deleted row cannot be selected: the reader needs only a grant to read the table (and a live
  -- session), as Supabase Realtime sends DELETEs without an RLS check.
  if not p_check_row then
    for v_at in 1 .. v_count loop
      reader := v_indexes[v_at];
      error_code := null;
      error_message := null;
      if v_roles[v_at] is null or v_roles[v_at] not in ('anon', 'authenticated', 'service_role') then
        visible := false;
        error_code := '42501';
        error_message := pg_catalog.format('realtime reader role %s is not an API role', v_roles[v_at]);
      elsif not v_live[v_at] then
        visible := false;
        error_code := '${SESSION_ENDED_CODE}';
        error_message := 'session_ended';
      else
        visible := pg_catalog.has_any_column_privilege(v_roles[v_at], v_table, 'SELECT');
      end if;
      return next;
    end loop;
    return;
  end if;
  for v_at in 1 .. v_count loop
    reader := v_indexes[v_at];
    visible := false;
    error_code := null;
    error_message := null;
    begin
      -- Checked for every reader, not only on a switch: the owner's name as a reader's role
      -- would otherwise need no switch and bypass RLS.
      if v_roles[v_at] is null or v_roles[v_at] not in ('anon', 'authenticated', 'service_role') then
        raise exception 'realtime reader role % is not an API role', v_roles[v_at] using errcode = '42501';
      end if;
      if not v_live[v_at] then
        error_code := '${SESSION_ENDED_CODE}';
        error_message := 'session_ended';
      else
        if v_prepared_for is distinct from v_roles[v_at] then
          perform pg_catalog.set_config('role', 'none', true);
          if exists (select 1 from pg_catalog.pg_prepared_statements p where p.name = '${CHECK_STATEMENT}') then
            deallocate ${CHECK_STATEMENT};
          end if;
          v_check := _localbase.realtime_row_check_sql(v_table, v_roles[v_at], p_record, p_primary_key);
          if v_check is not null then
            execute 'prepare ${CHECK_STATEMENT} as ' || v_check;
          end if;
          v_prepared_for := v_roles[v_at];
        end if;
        if v_check is null then
          raise exception 'permission denied for table %', p_table using errcode = '42501';
        end if;
        -- The role is switched only when it differs from the current one (readers come role by
        -- role), not back and forth for each reader; asking current_user, not remembering the
        -- last switch, also covers a switch undone by a failed block or made by a policy.
        if current_user operator(pg_catalog.<>) v_roles[v_at] then
          perform pg_catalog.set_config('role', v_roles[v_at], true);
        end if;
        perform pg_catalog.set_config('request.jwt.claims', v_claims[v_at], true),
                pg_catalog.set_config('request.jwt.claim.sub', v_subs[v_at], true),
                pg_catalog.set_config('request.jwt.claim.role', v_claim_roles[v_at], true);
        execute 'execute ${CHECK_STATEMENT}' into v_found;
        visible := coalesce(v_found, false);
      end if;
    exception when others then
      error_code := sqlstate;
      error_message := sqlerrm;
    end;
    return next;
  end loop;
  perform pg_catalog.set_config('role', 'none', true);
  if exists (select 1 from pg_catalog.pg_prepared_statements p where p.name = '${CHECK_STATEMENT}') then
    deallocate ${CHECK_STATEMENT};
  end if;
end
$$;
revoke execute on function _localbase.realtime_visibility(text, text, text[], jsonb, jsonb, boolean) from public;`;

export async function installVisibility(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'realtime-visibility',
    sql: VISIBILITY_SQL,
    tables: [],
    functions: [
      '_localbase.realtime_visibility(text, text, text[], jsonb, jsonb, boolean)',
      '_localbase.realtime_row_check_sql(regclass, text, jsonb, text[])',
    ],
  });
}

const VISIBILITY_QUERY =
  'select reader, visible, error_code, error_message from _localbase.realtime_visibility($1, $2, $3, $4, $5, $6)';

/**
 * Asks the database, in one statement, which readers may see the change's row (for a DELETE:
 * which may read the table); the verdicts come
 * back in the order of `readers`. A failure of the statement itself (the function is gone, a lock
 * wait or the statement timed out) rejects, and the caller withholds the change from all of them.
 */
export async function readersVerdicts(
  pool: pg.Pool,
  change: Change,
  shape: TableShape,
  readers: readonly Reader[],
): Promise<ReaderVerdict[]> {
  const payload = readers.map((reader) => ({
    role: reader.role,
    claims: JSON.stringify(reader.claims),
    sub: reader.claims.sub ?? '',
    claimRole: reader.claims.role ?? '',
    session: sessionOf(reader.claims),
  }));
  const result = await runOwnerReadStatement(pool, VISIBILITY_QUERY, [
    change.schema_name,
    change.table_name,
    shape.primaryKey,
    // An INSERT or UPDATE is checked on its new row; a DELETE's row is gone (see the function).
    JSON.stringify(change.event === 'DELETE' ? change.old_record : change.record),
    JSON.stringify(payload),
    change.event !== 'DELETE',
  ]);
  const verdicts: ReaderVerdict[] = readers.map(() => ({ visible: false, errorCode: null, errorMessage: null }));
  for (const row of result.rows as {
    reader: number;
    visible: boolean;
    error_code: string | null;
    error_message: string | null;
  }[]) {
    verdicts[row.reader] = {
      visible: row.visible === true,
      errorCode: row.error_code,
      errorMessage: row.error_message,
    };
  }
  return verdicts;
}
