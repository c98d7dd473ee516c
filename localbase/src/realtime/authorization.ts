// Realtime Authorization for private channels, as hosted Realtime decides it: by the RLS policies on
// realtime.messages (supabase/platform/40_realtime.sql), asked under the channel's role and claims
// with `realtime.topic()` naming its topic.
//   read   may the channel receive broadcasts / presence: a probe row per extension is inserted
//          (as the owner, who is not held by RLS), then selected under the caller's role; seen
//          means allowed. Asked when a private channel joins, and again when its token changes.
//   write  may it broadcast / track presence: the caller's own insert of a row for the extension;
//          a policy that refuses it (42501) means no. Asked on its first send of each.
// Everything runs in one statement, inside blocks that end by raising a sentinel, so no row is ever
// kept and every setting goes back; an error a policy raises is a "no" (hosted logs it as an RLS
// policy error and refuses).
import type pg from 'pg';
import type { VerifiedToken } from '../jwt.ts';
import { installIfChanged } from '../installed-sql.ts';
import { runOwnerReadStatement } from '../request-transaction.ts';

export type Extension = 'broadcast' | 'presence';

/** SQLSTATE the blocks raise to undo themselves (localbase's own class, as visibility.ts's LB401). */
const UNDO = 'LB402';

const AUTHORIZE_SQL = `
create schema if not exists _localbase;
revoke all on schema _localbase from public;
create or replace function _localbase.realtime_authorize(
  p_topic text, p_role text, p_claims text, p_sub text, p_claim_role text, p_headers text,
  p_extensions text[], p_write boolean)
returns table (extension text, allowed boolean, error_code text, error_message text)
language plpgsql volatile
as $$
declare
  v_extension text;
  v_probe uuid;
  v_seen boolean;
begin
  if p_role is null or p_role not in ('anon', 'authenticated', 'service_role') then
    raise exception 'realtime caller role % is not an API role', p_role using errcode = '42501';
  end if;
  perform pg_catalog.set_config('lock_timeout', '8s', true);
  foreach v_extension in array p_extensions loop
    extension := v_extension;
    allowed := false;
    error_code := null;
    error_message := null;
    v_seen := false;
    begin
      if not p_write then
        v_probe := pg_catalog.gen_random_uuid();
        insert into realtime.messages (id, topic, extension) values (v_probe, p_topic, v_extension);
      end if;
      perform pg_catalog.set_config('role', p_role, true),
              pg_catalog.set_config('realtime.topic', p_topic, true),
              pg_catalog.set_config('request.jwt.claims', p_claims, true),
              pg_catalog.set_config('request.jwt.claim.sub', p_sub, true),
              pg_catalog.set_config('request.jwt.claim.role', p_claim_role, true),
              pg_catalog.set_config('request.headers', p_headers, true),
              pg_catalog.set_config('request.method', 'GET', true),
              pg_catalog.set_config('request.path', '/realtime/v1', true);
      if p_write then
        insert into realtime.messages (topic, extension) values (p_topic, v_extension);
        v_seen := true;
      else
        select exists (select 1 from realtime.messages m where m.id = v_probe) into v_seen;
      end if;
      raise exception 'undo the authorization probe' using errcode = '${UNDO}';
    exception
      when sqlstate '${UNDO}' then
        allowed := v_seen;
      when insufficient_privilege then
        allowed := false;
        -- A write the policies refuse is the answer, not an error; a read has no such refusal.
        if not p_write then
          error_code := sqlstate;
          error_message := sqlerrm;
        end if;
      when others then
        error_code := sqlstate;
        error_message := sqlerrm;
    end;
    return next;
  end loop;
end
$$;
revoke execute on function _localbase.realtime_authorize(text, text, text, text, text, text, text[], boolean) from public;`;

export async function installAuthorization(pool: pg.Pool): Promise<void> {
  await installIfChanged(pool, {
    name: 'realtime-authorize',
    sql: AUTHORIZE_SQL,
    tables: [],
    functions: ['_localbase.realtime_authorize(text, text, text, text, text, text, text[], boolean)'],
  });
}

const AUTHORIZE_QUERY =
  'select extension, allowed, error_code, error_message from _localbase.realtime_authorize($1, $2, $3, $4, $5, $6, $7, $8)';

export interface AuthorizationAnswer {
  allowed: Map<Extension, boolean>;
  /** Errors a policy raised while it was asked (each counted as a "no"), for the log. */
  errors: { extension: Extension; code: string; message: string }[];
}

/** authorize() bound to a pool: what the socket and HTTP broadcast routes are given. */
export type Authorize = (
  topic: string,
  token: VerifiedToken,
  headers: Record<string, string>,
  extensions: readonly Extension[],
  access: 'read' | 'write',
) => Promise<AuthorizationAnswer>;

/**
 * Asks realtime.messages' policies, as `token`'s role and claims, whether the channel may read
 * (receive) or write (send) each extension of `topic` (the channel's topic without `realtime:`).
 */
export async function authorize(
  pool: pg.Pool,
  topic: string,
  token: VerifiedToken,
  headers: Record<string, string>,
  extensions: readonly Extension[],
  access: 'read' | 'write',
): Promise<AuthorizationAnswer> {
  const result = await runOwnerReadStatement(
    pool,
    AUTHORIZE_QUERY,
    [
      topic,
      token.role,
      JSON.stringify(token.claims),
      token.claims.sub ?? '',
      token.claims.role ?? '',
      JSON.stringify(headers),
      extensions,
      access === 'write',
    ],
    'read write',
  );
  const answer: AuthorizationAnswer = { allowed: new Map(), errors: [] };
  for (const row of result.rows as {
    extension: Extension;
    allowed: boolean;
    error_code: string | null;
    error_message: string | null;
  }[]) {
    answer.allowed.set(row.extension, row.allowed === true);
    if (row.error_code !== null)
      answer.errors.push({ extension: row.extension, code: row.error_code, message: row.error_message ?? '' });
  }
  return answer;
}
