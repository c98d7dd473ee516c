// Verify and the patch manager against a real localbase (PGlite in `npm test`, PostgreSQL 15 in
// `npm run test:pg`): a fresh project is all green; each kind of damage turns its own check red
// with the bundle that repairs it; apply-sql runs that bundle through localbase's Management API
// and verify is green again; a wrong token gets the API's 401 and changes nothing; the token is
// written nowhere. admin_catalog_facts() is for the service role only.
import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyReport, type VerifyReport } from '#contracts/admin-api.ts';
import { BUNDLES, bundleVersion } from '#db/bundles/build.ts';
import { readMigrationFiles } from '#db/sql-files.ts';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signInWithSecret } from './admin-helpers.ts';
import { makeTempDir, startTestGateway, type TestGateway } from './helpers.ts';

const SECRET = 'verify-test-admin-secret-123';
const LEADERBOARD_POLICIES = [
  'authenticated read all summaries for leaderboards',
  'authenticated read all daily stats for leaderboards',
];

let localbase: Localbase;
let gateway: TestGateway;
let logs: Awaited<ReturnType<typeof makeTempDir>>;
let cookie: string;
let logStream: ReturnType<typeof createWriteStream>;

async function ownerQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await localbase.database.pool.query(sql, params)).rows as T[];
}

/** A new run's report as JSON, exactly in the contract's shape (contracts/admin-api.ts). */
async function verify(): Promise<VerifyReport> {
  const response = await gateway.app.inject({ method: 'POST', url: '/__admin/verify', headers: { cookie } });
  expect(response.statusCode, response.body).toBe(200);
  const report = verifyReport.parse(response.json());
  expect(report).toEqual(response.json());
  return report;
}

const failing = (report: VerifyReport) =>
  report.categories.flatMap((category) => category.checks.filter((item) => !item.ok));

async function applySql(body: Record<string, unknown>) {
  return gateway.app.inject({ method: 'POST', url: '/__admin/apply-sql', headers: { cookie }, payload: body });
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

async function filesContaining(dirs: string[], needle: string): Promise<string[]> {
  const found: string[] = [];
  for (const dir of dirs) {
    for (const file of await filesUnder(dir)) {
      if ((await readFile(file)).includes(Buffer.from(needle))) found.push(path.relative(dir, file));
    }
  }
  return found;
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  logs = await makeTempDir('admin-logs');
  // Everything the gateway logs, at its most talkative, goes under LOG_DIR.
  logStream = createWriteStream(path.join(logs.dir, 'gateway.log'));
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    config: { admin: { enabled: true, secret: SECRET, emails: [] }, logDir: logs.dir },
    logger: { level: 'trace', stream: logStream },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    // As npm start does with the localbase it runs.
    localbaseToken: localbase.accessToken,
  });
  cookie = await signInWithSecret(gateway.app, SECRET);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  logStream?.end();
  await localbase?.close();
  await logs?.remove();
});

/** The version community-patch-v6.sql records: its newest migration's timestamp. */
async function communityPatchVersion(): Promise<string> {
  const patch = BUNDLES.find((bundle) => bundle.file === 'community-patch-v6.sql');
  return bundleVersion((await readMigrationFiles()).filter((migration) => patch?.includes(migration)));
}

/** The last run, as a view of the page shows it (JSON). */
async function lastRun(): Promise<VerifyReport> {
  const response = await gateway.app.inject({ url: '/__admin/verify', headers: { cookie } });
  expect(response.statusCode, response.body).toBe(200);
  return verifyReport.parse(response.json());
}

describe('verify on a project built from the migrations', () => {
  it('runs once on the first view, shows that run on the next, runs anew on POST, and writes no audit row', async () => {
    const auditRows = async () =>
      (await ownerQuery<{ count: number }>('select count(*)::int as count from public.admin_audit_log'))[0]?.count;
    const before = await auditRows();
    const first = await lastRun();
    expect((await lastRun()).generated_at).toBe(first.generated_at);
    const page = await gateway.app.inject({ url: '/__admin/verify', headers: { cookie, accept: 'text/html' } });
    expect(page.body).toContain(`<time datetime="${first.generated_at}">`);
    expect(page.body).toMatch(/Checked just now \(<time/);
    expect(page.body).toContain('<form class="actions" method="post" action="/__admin/verify">');

    const again = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/verify',
      headers: { cookie, accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(again.statusCode).toBe(303);
    expect(again.headers.location).toBe('/__admin/verify');
    const second = await lastRun();
    expect(Date.parse(second.generated_at)).toBeGreaterThan(Date.parse(first.generated_at));
    // Two runs, each with a temporary account made and deleted: nothing in the audit log.
    expect(await auditRows()).toBe(before);
    expect(await ownerQuery(`select 1 from auth.users where email like 'verify-%@studyhall.invalid'`)).toEqual([]);

    // Another site cannot make the console run it.
    const forged = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/verify',
      headers: { cookie, origin: 'https://elsewhere.example' },
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.json().error).toBe('csrf_refused');
    expect((await lastRun()).generated_at).toBe(second.generated_at);
  });

  it('passes every check of the eight categories', async () => {
    const report = await verify();
    expect(failing(report)).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.categories.map((category) => category.id)).toEqual([
      'table_schema',
      'rpc_functions',
      'rls_recursion',
      'edge_interceptors',
      'local_endpoints',
      'auth_smoke',
      'storage_buckets',
      'drift',
    ]);
    for (const category of report.categories) expect(category.checks.length, category.name).toBeGreaterThan(0);
    const names = report.categories.flatMap((category) => category.checks.map((item) => item.name));
    expect(names).toEqual(
      expect.arrayContaining([
        'public.groups',
        'Policy "authenticated read all summaries for leaderboards" on public.user_stats_summary',
        'POST /__backend/functions/v1/finish-session answers 502',
        'GET /sw.js has every build placeholder substituted',
        'Delete the temporary user',
        'Bucket backups',
        'community-patch-v6.sql equals what the builder makes from the migrations',
        `Database reports community-patch-v6.sql ${await communityPatchVersion()} or newer`,
      ]),
    );
    // The smoke test's account is gone again.
    expect(await ownerQuery(`select 1 from auth.users where email like 'verify-%@studyhall.invalid'`)).toEqual([]);
  });

  it('shows the same facts as a page: a table of category, check, status, detail, fix', async () => {
    const response = await gateway.app.inject({ url: '/__admin/verify', headers: { cookie, accept: 'text/html' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    // One table per category (the category is its heading), each row check, status, detail, fix.
    expect(response.body).toContain(
      '<table class="stack" aria-label="Table schema"><thead><tr><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead>',
    );
    expect(response.body).toMatch(/All \d+ checks pass\./);
    expect(response.body).not.toContain('<h2>To do</h2>');
  });
});

describe('verify names the database engine', () => {
  it('fails one check, with the move command as its fix, while PGlite is kept for older data', async () => {
    const kept = await startTestGateway({
      backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
      config: { admin: { enabled: true, secret: SECRET, emails: [] } },
      database: {
        engine: 'PGlite 0.5.14 (PostgreSQL 18.6)',
        notice: 'DATA_DIR holds a PGlite database (/data/pgdata), kept on PGlite',
        legacy_pglite: true,
      },
      localbaseToken: localbase.accessToken,
    });
    const current = await startTestGateway({
      backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
      config: { admin: { enabled: true, secret: SECRET, emails: [] } },
      database: { engine: 'PostgreSQL 15.18 (embedded)', notice: null, legacy_pglite: false },
      localbaseToken: localbase.accessToken,
    });
    try {
      const engineCheck = async (gatewayUnderTest: TestGateway) => {
        const response = await gatewayUnderTest.app.inject({
          url: '/__admin/verify',
          headers: { cookie: await signInWithSecret(gatewayUnderTest.app, SECRET) },
        });
        const report = verifyReport.parse(response.json());
        return report.categories
          .flatMap((category) => category.checks)
          .find((item) => item.name.startsWith('The database runs on the embedded PostgreSQL'));
      };
      expect(await engineCheck(kept)).toMatchObject({
        ok: false,
        detail: 'PGlite 0.5.14 (PostgreSQL 18.6): DATA_DIR holds a PGlite database (/data/pgdata), kept on PGlite',
        fix: { text: expect.stringContaining('npm run db:move-to-postgres') },
      });
      expect(await engineCheck(current)).toMatchObject({ ok: true, detail: 'PostgreSQL 15.18 (embedded).' });
    } finally {
      await kept.close();
      await current.close();
    }
  }, 120_000);
});

describe('admin_catalog_facts()', () => {
  it('is executable by the service role only', async () => {
    const call = (key: string, token = key) =>
      fetch(`${localbase.url}/rest/v1/rpc/admin_catalog_facts`, {
        method: 'POST',
        headers: { apikey: key, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
    const anon = await call(localbase.anonKey);
    expect(anon.status).toBe(401);
    expect((await anon.json()).code).toBe('42501');
    const signup = await gateway.app.inject({
      method: 'POST',
      url: '/__auth/signup',
      payload: { username: 'facts-reader@example.com', password: 'facts-reader-1' },
    });
    const user = await call(localbase.anonKey, signup.json().session.access_token);
    expect(user.status).toBe(403);
    expect((await user.json()).code).toBe('42501');
    const service = await call(localbase.serviceRoleKey);
    expect(service.status).toBe(200);
    expect((await service.json()).facts_version).toBe(1);
  });
});

describe('the leaderboard policies, end to end through the Management API', () => {
  it('turns red without them, stays red with a wrong token, and is all green after apply-sql with leaderboard-rls-fix', async () => {
    const policiesPresent = async () =>
      (
        await ownerQuery<{ policyname: string }>(
          `select policyname from pg_policies where policyname = any($1) order by 1`,
          [LEADERBOARD_POLICIES],
        )
      ).map((row) => row.policyname);
    await ownerQuery(
      `drop policy "${LEADERBOARD_POLICIES[0]}" on public.user_stats_summary; drop policy "${LEADERBOARD_POLICIES[1]}" on public.daily_user_stats;`,
    );

    const red = await verify();
    expect(red.ok).toBe(false);
    const missing = failing(red);
    expect(missing.map((item) => item.name).sort()).toEqual([
      'Policy "authenticated read all daily stats for leaderboards" on public.daily_user_stats',
      'Policy "authenticated read all summaries for leaderboards" on public.user_stats_summary',
    ]);
    for (const item of missing) {
      expect(item.category).toBe('rls_recursion');
      expect(item.detail).toMatch(/^Missing \(defined in \d{14}_(security_)?leaderboard_read_policies\.sql\)\.$/);
      expect(item.fix).toEqual({
        text: 'Apply leaderboard-rls-fix.sql.',
        href: '/__admin/patch?bundle=leaderboard-rls-fix.sql#apply',
        bundle: 'leaderboard-rls-fix.sql',
      });
    }
    const page = await gateway.app.inject({ url: '/__admin/verify', headers: { cookie, accept: 'text/html' } });
    // Failing checks come first, in a table of category, check, status, detail and fix.
    expect(page.body).toContain(
      '<h2>To do</h2><div class="scroll"><table class="stack"><thead><tr><th scope="col">Category</th><th scope="col">Check</th><th scope="col">Status</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead>',
    );
    expect(page.body).toContain(
      '<a href="/__admin/patch?bundle=leaderboard-rls-fix.sql#apply">Apply leaderboard-rls-fix.sql.</a>',
    );
    const patchPage = await gateway.app.inject({
      url: '/__admin/patch?bundle=leaderboard-rls-fix.sql',
      headers: { cookie, accept: 'text/html' },
    });
    expect(patchPage.body).toMatch(/<option value="leaderboard-rls-fix" selected>/);
    // The apply form holds localbase's management token, so the admin need not look for it; the
    // page's JSON answer does not carry it.
    const filledIn = /<input type="password" name="access_token"[^>]* value="([^"]+)">/.exec(patchPage.body)?.[1];
    expect(filledIn).toBe(localbase.accessToken);
    expect(patchPage.body).not.toContain('npm run backend');
    const patchJson = await gateway.app.inject({
      url: '/__admin/patch',
      headers: { cookie, accept: 'application/json' },
    });
    expect(patchJson.body).not.toContain(localbase.accessToken);

    const wrongToken = `sbp_${'0'.repeat(40)}`;
    const refused = await applySql({ bundle: 'leaderboard-rls-fix', access_token: wrongToken });
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({
      ok: false,
      error: 'management_api_error',
      status: 401,
      result: { message: 'Unauthorized' },
      project_ref: 'local',
    });
    expect(await policiesPresent()).toEqual([]);
    expect((await verify()).ok).toBe(false);

    const applied = await applySql({ bundle: 'leaderboard-rls-fix', access_token: filledIn ?? '' });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json()).toEqual({
      ok: true,
      status: 201,
      result: [],
      project_ref: 'local',
      bundle: 'leaderboard-rls-fix.sql',
    });
    expect(applied.body).not.toContain(localbase.accessToken);
    expect(await policiesPresent()).toEqual([...LEADERBOARD_POLICIES].sort());
    const green = await verify();
    expect(failing(green)).toEqual([]);

    // The audit log and its file mirror name what was applied and how it went, never the token.
    const audit = (await readFile(path.join(logs.dir, 'admin-audit.log'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(audit.filter((entry) => entry.action === 'apply_sql').map((entry) => [entry.bundle, entry.status])).toEqual([
      ['leaderboard-rls-fix.sql', 401],
      ['leaderboard-rls-fix.sql', 201],
    ]);
    expect(
      await ownerQuery(
        `select detail ->> 'bundle' as bundle, (detail ->> 'status')::int as status, detail ->> 'console_admin' as admin
         from public.admin_audit_log where action = 'console:apply_sql' order by id`,
      ),
    ).toEqual([
      { bundle: 'leaderboard-rls-fix.sql', status: 401, admin: 'secret' },
      { bundle: 'leaderboard-rls-fix.sql', status: 201, admin: 'secret' },
    ]);

    // Neither token was written anywhere under LOG_DIR or localbase's DATA_DIR, except that the
    // real one lives in keys.json, where localbase created it.
    await new Promise((resolve) => logStream.write('', resolve));
    expect((await filesUnder(logs.dir)).map((file) => path.basename(file)).sort()).toEqual([
      'admin-audit.log',
      'gateway.log',
    ]);
    expect((await readFile(path.join(logs.dir, 'gateway.log'), 'utf8')).length).toBeGreaterThan(1000);
    expect(await filesContaining([logs.dir, localbase.dataDir], wrongToken)).toEqual([]);
    expect(await filesContaining([logs.dir, localbase.dataDir], localbase.accessToken)).toEqual(['keys.json']);
  });

  it("answers apply-sql errors in the API's own words and refuses what it cannot send", async () => {
    const sqlError = await applySql({ sql: 'select * from no_such_table_here', access_token: localbase.accessToken });
    expect(sqlError.statusCode).toBe(400);
    expect(sqlError.json()).toMatchObject({
      ok: false,
      status: 400,
      result: { message: expect.stringContaining('no_such_table_here') },
    });
    const pasted = await applySql({ sql: 'select 41 + 1 as answer', access_token: localbase.accessToken });
    expect(pasted.json()).toEqual({ ok: true, status: 201, result: [{ answer: 42 }], project_ref: 'local' });
    const otherProject = await applySql({
      sql: 'select 1',
      access_token: localbase.accessToken,
      project_ref: 'abcdefghij',
    });
    expect(otherProject.statusCode).toBe(404);
    expect((await applySql({ bundle: 'app-complete', access_token: localbase.accessToken })).statusCode).toBe(400);
    expect(
      (await applySql({ bundle: 'leaderboard-rls-fix', sql: 'select 1', access_token: localbase.accessToken })).json()
        .error,
    ).toBe('invalid_request');
    expect((await applySql({ bundle: 'leaderboard-rls-fix' })).json().error).toBe('invalid_request');
    expect((await applySql({ sql: 'select 1', access_token: 'x', project_ref: '../../v1/other' })).json().error).toBe(
      'invalid_request',
    );
    // From the page's form, the confirmation box is required.
    const form = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/apply-sql',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        source: 'bundle',
        bundle: 'leaderboard-rls-fix',
        access_token: localbase.accessToken,
        project_ref: 'local',
      }).toString(),
    });
    expect(form.statusCode).toBe(400);
    expect(form.json().error).toBe('confirmation_required');
  });
});

describe('each kind of damage, and the bundle that repairs it', () => {
  it('reports a missing admin_catalog_facts() as "patch not applied", and community-patch-v6.sql restores it and records its version', async () => {
    await ownerQuery('drop function public.admin_catalog_facts(); drop table public.community_reports cascade;');
    const red = await verify();
    const notApplied = failing(red).filter((item) => item.name === 'admin_catalog_facts()');
    expect(notApplied.map((item) => item.category).sort()).toEqual([
      'rls_recursion',
      'rpc_functions',
      'storage_buckets',
      'table_schema',
    ]);
    for (const item of notApplied) {
      expect(item.detail).toMatch(/^Patch not applied/);
      expect(item.fix?.bundle).toBe('community-patch-v6.sql');
    }
    const drift = failing(red).find((item) => item.category === 'drift');
    expect(drift?.detail).toMatch(/^Patch not applied/);

    const applied = await applySql({ bundle: 'community-patch-v6', access_token: localbase.accessToken });
    expect(applied.statusCode, applied.body).toBe(200);
    const green = await verify();
    expect(failing(green)).toEqual([]);
    const version = green.categories
      .find((category) => category.id === 'drift')
      ?.checks.find((item) => item.name.startsWith('Database reports'));
    expect(version?.detail).toContain(`applied bundles ${await communityPatchVersion()}`);
  });

  it('names a policy that reads group_members directly, a function callable by anon, a bucket made public and a missing table', async () => {
    await ownerQuery(`
      create policy "members read messages directly" on public.group_chat_messages for select to authenticated
        using (exists (select 1 from public.group_members m where m.group_id = group_chat_messages.group_id and m.user_id = (select auth.uid())));
      grant execute on function public.admin_catalog_facts() to anon;
      update storage.buckets set public = true where id = 'backups';
      drop table public.user_backup_archive;`);
    try {
      const problems = Object.fromEntries(failing(await verify()).map((item) => [item.name, item]));
      expect(Object.keys(problems).sort()).toEqual([
        'Bucket backups',
        'No policy reads group_members directly',
        'public.admin_catalog_facts()',
        'public.user_backup_archive',
      ]);
      expect(problems['No policy reads group_members directly']?.detail).toContain(
        '"members read messages directly" on public.group_chat_messages',
      );
      expect(problems['public.admin_catalog_facts()']?.detail).toBe(
        'executable by anon, service_role; expected service_role.',
      );
      // The bucket-limits migration upserts every bucket row, so the live project's patch repairs it.
      expect(problems['Bucket backups']).toMatchObject({
        detail: 'is public, expected private.',
        fix: { bundle: 'community-patch-v6.sql' },
      });
      expect(problems['public.user_backup_archive']).toMatchObject({
        detail: expect.stringMatching(/^Missing/),
        fix: { bundle: 'community-patch-v6.sql' },
      });
    } finally {
      await ownerQuery(`
        drop policy "members read messages directly" on public.group_chat_messages;
        revoke execute on function public.admin_catalog_facts() from anon;
        update storage.buckets set public = false where id = 'backups';`);
      expect((await applySql({ bundle: 'community-patch-v6', access_token: localbase.accessToken })).statusCode).toBe(
        200,
      );
    }
    expect(failing(await verify())).toEqual([]);
  });

  it("deletes the smoke test's temporary user even when a step fails", async () => {
    const accounts = async () =>
      (await ownerQuery<{ count: number }>('select count(*)::int as count from auth.users'))[0]?.count;
    const before = await accounts();
    await ownerQuery('revoke execute on function public.app_bootstrap_user() from authenticated');
    try {
      const smoke = (await verify()).categories.find((category) => category.id === 'auth_smoke');
      expect(smoke?.ok).toBe(false);
      expect(smoke?.checks.find((item) => !item.ok)?.name).toBe('Sign in and bootstrap');
      expect(smoke?.checks.at(-1)).toMatchObject({ name: 'Delete the temporary user', ok: true });
      expect(await accounts()).toBe(before);
    } finally {
      await ownerQuery('grant execute on function public.app_bootstrap_user() to authenticated');
    }
  });
});

describe('the patch manager', () => {
  it('lists the served patches with their version and serves them and app-complete.sql as downloads', async () => {
    const page = (await gateway.app.inject({ url: '/__admin/patch', headers: { cookie } })).json();
    expect(page).toMatchObject({
      management_api_url: localbase.url,
      project_ref: 'local',
      patch: { bundle: 'community-patch-v6.sql' },
    });
    expect(
      page.bundles.map((bundle: { file: string; applicable: boolean }) => [bundle.file, bundle.applicable]),
    ).toEqual([
      ['app-complete.sql', false],
      ['community-patch-v6.sql', true],
      ['leaderboard-rls-fix.sql', true],
    ]);
    const served = await readFile(
      path.join(import.meta.dirname, '..', '..', 'supabase', 'bundles', 'community-patch-v6.sql'),
      'utf8',
    );
    const download = await gateway.app.inject({ url: '/__admin/patch/community-patch-v6.sql', headers: { cookie } });
    expect(download.headers['content-disposition']).toBe('attachment; filename="community-patch-v6.sql"');
    expect(download.body).toBe(served);
    const schema = await gateway.app.inject({ url: '/__admin/schema', headers: { cookie, accept: 'text/html' } });
    expect(schema.headers['content-disposition']).toBe('attachment; filename="app-complete.sql"');
    expect(schema.body).toMatch(/^-- app-complete\.sql: generated by `npm run db:bundle`/);
    expect(
      (await gateway.app.inject({ url: '/__admin/patch/../../package.json', headers: { cookie } })).statusCode,
    ).not.toBe(200);
    expect((await gateway.app.inject({ url: '/__admin/patch/seed.sql', headers: { cookie } })).statusCode).toBe(404);
  });
});
