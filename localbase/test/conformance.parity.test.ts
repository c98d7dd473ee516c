// The conformance suite: localbase driven only through @supabase/supabase-js (and fetch for the
// management API), on PostgreSQL 15 in `npm test`. RLS must
// allow and deny exactly what the pgTAP suite says.
import type { SupabaseClient } from '@supabase/supabase-js';
import { beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, managementQuery, signedUpClient } from './clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let alice: Awaited<ReturnType<typeof signedUpClient>>;
let bob: Awaited<ReturnType<typeof signedUpClient>>;
let anon: SupabaseClient;
let service: SupabaseClient;

beforeAll(async () => {
  alice = await signedUpClient(localbase, 'alice');
  bob = await signedUpClient(localbase, 'bob');
  anon = clientFor(localbase);
  service = clientFor(localbase, localbase.serviceRoleKey);
});

describe('auth', () => {
  it('signs up with a session and a confirmed user, and bootstraps the satellite rows', async () => {
    const { data } = await alice.client.auth.getSession();
    expect(data.session?.user.email).toBe(alice.email);
    expect(data.session?.user.email_confirmed_at).toBeTruthy();
    const profile = await alice.client.from('users').select('id, username').single();
    expect(profile.error).toBeNull();
    expect(profile.data).toEqual({ id: alice.id, username: alice.email });
  });

  it('refuses a second sign-up with the same e-mail (422 user_already_exists)', async () => {
    const { error } = await clientFor(localbase).auth.signUp({ email: alice.email, password: 'another-pass' });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('user_already_exists');
  });

  it('logs in with the password and refuses a wrong one (400 invalid_credentials)', async () => {
    const client = clientFor(localbase);
    const wrong = await client.auth.signInWithPassword({ email: alice.email, password: 'not-the-password' });
    expect(wrong.error?.status).toBe(400);
    expect(wrong.error?.code).toBe('invalid_credentials');
    const right = await client.auth.signInWithPassword({ email: alice.email, password: alice.password });
    expect(right.error).toBeNull();
    expect(right.data.user?.id).toBe(alice.id);
  });

  it('refreshes with rotation: the spent refresh token is refused once the reuse interval is over', async () => {
    const client = clientFor(localbase);
    const login = await client.auth.signInWithPassword({ email: bob.email, password: bob.password });
    const spent = login.data.session?.refresh_token as string;
    const refreshed = await client.auth.refreshSession();
    expect(refreshed.error).toBeNull();
    expect(refreshed.data.session?.refresh_token).not.toBe(spent);
    await managementQuery(
      localbase,
      `update auth.refresh_tokens set updated_at = now() - interval '1 minute' where token = '${spent}'`,
    );
    const reused = await clientFor(localbase).auth.refreshSession({ refresh_token: spent });
    expect(reused.error?.code).toBe('refresh_token_already_used');
    const unknown = await clientFor(localbase).auth.refreshSession({ refresh_token: 'never-issued' });
    expect(unknown.error?.code).toBe('refresh_token_not_found');
  });

  it('answers the current user from the server', async () => {
    const { data, error } = await alice.client.auth.getUser();
    expect(error).toBeNull();
    expect(data.user).toMatchObject({ id: alice.id, email: alice.email, aud: 'authenticated', role: 'authenticated' });
    expect(data.user?.identities?.[0]?.provider).toBe('email');
  });

  it('logs out: the session is gone for auth and its access token stops working on the data API', async () => {
    const carol = await signedUpClient(localbase, 'carol');
    const token = (await carol.client.auth.getSession()).data.session?.access_token as string;
    expect((await carol.client.from('users').select('id')).data).toHaveLength(1);
    expect((await carol.client.auth.signOut()).error).toBeNull();
    const stale = clientFor(localbase);
    const user = await stale.auth.getUser(token);
    expect(user.error?.name).toBe('AuthSessionMissingError');
    const response = await fetch(`${localbase.url}/rest/v1/users?select=id`, {
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(401);
    // A write is sent to the database together with the session check; the check must stop it.
    const write = await fetch(`${localbase.url}/rest/v1/user_tasks`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ user_id: carol.id, title: 'written after logout' }),
    });
    expect(write.status).toBe(401);
    const { count } = await service
      .from('user_tasks')
      .select('*', { count: 'exact', head: true })
      .eq('user_id', carol.id);
    expect(count).toBe(0);
  });

  it('lists users with the service_role key and refuses a user (403 not_admin)', async () => {
    const listed = await service.auth.admin.listUsers({ page: 1, perPage: 1 });
    expect(listed.error).toBeNull();
    expect(listed.data.users).toHaveLength(1);
    expect('total' in listed.data && listed.data.total).toBeGreaterThanOrEqual(2);
    const refused = await alice.client.auth.admin.listUsers();
    expect(refused.error?.status).toBe(403);
    expect(refused.error?.code).toBe('not_admin');
  });

  it('creates and deletes users as service_role; a duplicate e-mail is 422 email_exists', async () => {
    const email = `admin-made-${process.pid}@example.com`;
    const created = await service.auth.admin.createUser({ email, password: 'created-by-admin', email_confirm: true });
    expect(created.error).toBeNull();
    const duplicate = await service.auth.admin.createUser({ email, password: 'created-by-admin' });
    expect(duplicate.error?.code).toBe('email_exists');
    const deleted = await service.auth.admin.deleteUser(created.data.user?.id as string);
    expect(deleted.error).toBeNull();
    const login = await clientFor(localbase).auth.signInWithPassword({ email, password: 'created-by-admin' });
    expect(login.error?.code).toBe('invalid_credentials');
  });
});

describe('data API under RLS', () => {
  it('stores a backup for oneself and reads it back with its richness', async () => {
    const inserted = await alice.client
      .from('user_backups')
      .insert({ user_id: alice.id, payload: { sessions: [1, 2, 3], settings: { a: 1 } } })
      .select('id, richness')
      .single();
    expect(inserted.error).toBeNull();
    expect(inserted.data?.richness).toBe(4);
    const read = await alice.client.from('user_backups').select('id', { count: 'exact' });
    expect(read.count).toBe(1);
  });

  it("user B cannot read user A's backups: zero rows, even by id", async () => {
    const own = await alice.client.from('user_backups').select('id').limit(1).single();
    const byId = await bob.client.from('user_backups').select('*').eq('id', own.data?.id);
    expect(byId.error).toBeNull();
    expect(byId.data).toEqual([]);
  });

  it("user B cannot store a backup in user A's name (403 42501), and nothing is written", async () => {
    const { error, status } = await bob.client.from('user_backups').insert({ user_id: alice.id, payload: {} });
    expect(status).toBe(403);
    expect(error?.code).toBe('42501');
    expect((await alice.client.from('user_backups').select('id')).data).toHaveLength(1);
  });

  it('anon cannot read backups (401 42501)', async () => {
    const { error, status } = await anon.from('user_backups').select('*');
    expect(status).toBe(401);
    expect(error?.code).toBe('42501');
  });

  it('anon calling an authenticated-only RPC gets 401; a user gets its result', async () => {
    const refused = await anon.rpc('app_bootstrap_user');
    expect(refused.status).toBe(401);
    expect(refused.error?.code).toBe('42501');
    const allowed = await bob.client.rpc('app_bootstrap_user');
    expect(allowed.error).toBeNull();
    expect(allowed.data).toEqual({ user_id: bob.id, created: [] });
  });

  it('calls a scalar RPC with a JSON argument, by POST and by GET', async () => {
    const posted = await anon.rpc('backup_richness', { payload: { a: [1, 2], b: { c: 1 } } });
    expect(posted.data).toBe(3);
    const viaGet = await anon.rpc('backup_richness', { payload: '{"a":[1]}' }, { get: true });
    expect(viaGet.data).toBe(1);
  });

  it('answers an unknown function with 404 PGRST202 and an unknown table with 404 PGRST205', async () => {
    const fn = await alice.client.rpc('no_such_function', { x: 1 });
    expect(fn.status).toBe(404);
    expect(fn.error?.code).toBe('PGRST202');
    const table = await alice.client.from('no_such_table').select('*');
    expect(table.status).toBe(404);
    expect(table.error?.code).toBe('PGRST205');
  });

  it("updates own settings; B updating A's settings changes nothing", async () => {
    const own = await alice.client
      .from('user_settings')
      .update({ day_offset_hours: 4 })
      .eq('user_id', alice.id)
      .select('day_offset_hours');
    expect(own.data).toEqual([{ day_offset_hours: 4 }]);
    const other = await bob.client.from('user_settings').update({ day_offset_hours: 9 }).eq('user_id', alice.id);
    expect(other.error).toBeNull();
    const after = await alice.client.from('user_settings').select('day_offset_hours').single();
    expect(after.data).toEqual({ day_offset_hours: 4 });
  });

  it('a user cannot grant themselves a role (403), while service_role bypasses RLS', async () => {
    const self = await alice.client.from('user_roles').insert({ user_id: alice.id, role: 'admin' });
    expect(self.status).toBe(403);
    const granted = await service
      .from('user_roles')
      .insert({ user_id: alice.id, role: 'moderator' })
      .select('role')
      .single();
    expect(granted.data).toEqual({ role: 'moderator' });
    expect((await alice.client.from('user_roles').select('role')).data).toEqual([{ role: 'moderator' }]);
    expect((await bob.client.from('user_roles').select('role')).data).toEqual([]);
  });

  it('reads with filters, not., or=(), order, range, exact counts and single()', async () => {
    const tasks = ['read', 'write', 'revise', 'rest'].map((title, index) => ({
      user_id: alice.id,
      title,
      done: index % 2 === 0,
      task_day: index < 2 ? '2026-11-20' : null,
    }));
    expect((await alice.client.from('user_tasks').insert(tasks)).status).toBe(201);
    const open = await alice.client.from('user_tasks').select('title').eq('done', false).order('title');
    expect(open.data).toEqual([{ title: 'rest' }, { title: 'write' }]);
    const notLike = await alice.client.from('user_tasks').select('title').not('title', 'like', 're*').order('title');
    expect(notLike.data).toEqual([{ title: 'write' }]);
    const either = await alice.client
      .from('user_tasks')
      .select('title')
      .or('title.eq.read,task_day.is.null')
      .order('title', { ascending: false });
    expect(either.data).toEqual([{ title: 'revise' }, { title: 'rest' }, { title: 'read' }]);
    const listed = await alice.client
      .from('user_tasks')
      .select('title', { count: 'exact' })
      .in('title', ['read', 'rest', 'write'])
      .order('title')
      .range(1, 2);
    expect(listed.count).toBe(3);
    expect(listed.data).toEqual([{ title: 'rest' }, { title: 'write' }]);
    const counted = await alice.client.from('user_tasks').select('*', { count: 'exact', head: true }).eq('done', true);
    expect(counted.count).toBe(2);
    expect(counted.data).toBeNull();
    const one = await alice.client.from('user_tasks').select('title').eq('title', 'read').single();
    expect(one.data).toEqual({ title: 'read' });
    const many = await alice.client.from('user_tasks').select('title').single();
    expect(many.status).toBe(406);
    expect(many.error?.code).toBe('PGRST116');
    // A write asked to return a single row that touches several is refused and rolled back.
    const both = await alice.client
      .from('user_tasks')
      .update({ title: 'renamed' })
      .in('title', ['read', 'rest'])
      .select('title')
      .single();
    expect(both.status).toBe(406);
    const unchanged = await alice.client.from('user_tasks').select('title').eq('title', 'renamed');
    expect(unchanged.data).toEqual([]);
  });

  it('upserts on a conflict column and deletes with a filter', async () => {
    const first = await alice.client
      .from('user_profiles')
      .upsert({ user_id: alice.id, handle: 'ally' }, { onConflict: 'user_id' })
      .select('handle')
      .single();
    expect(first.data).toEqual({ handle: 'ally' });
    const again = await alice.client
      .from('user_profiles')
      .upsert({ user_id: alice.id, handle: 'alice' })
      .select('handle');
    expect(again.data).toEqual([{ handle: 'alice' }]);
    const removed = await alice.client.from('user_tasks').delete().eq('title', 'rest').select('title');
    expect(removed.data).toEqual([{ title: 'rest' }]);
    const bobDeletes = await bob.client.from('user_tasks').delete().eq('title', 'read').select('title');
    expect(bobDeletes.data).toEqual([]);
  });
});

describe('storage', () => {
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);

  it('uploads an avatar into the own folder and downloads it, signed in and publicly', async () => {
    const path = `${alice.id}/avatar.png`;
    const uploaded = await alice.client.storage.from('avatars').upload(path, new Blob([png], { type: 'image/png' }));
    expect(uploaded.error).toBeNull();
    expect(uploaded.data?.fullPath).toBe(`avatars/${path}`);
    const downloaded = await bob.client.storage.from('avatars').download(path);
    expect(downloaded.error).toBeNull();
    expect(downloaded.data?.type).toBe('image/png');
    expect(new Uint8Array(await (downloaded.data as Blob).arrayBuffer())).toEqual(png);
    const publicUrl = anon.storage.from('avatars').getPublicUrl(path).data.publicUrl;
    const response = await fetch(publicUrl);
    expect(response.status).toBe(200);
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(png);
  });

  it("refuses an upload into another user's folder, and overwrites only with upsert", async () => {
    const foreign = await bob.client.storage
      .from('avatars')
      .upload(`${alice.id}/evil.png`, new Blob([png], { type: 'image/png' }));
    expect(foreign.error).not.toBeNull();
    expect((foreign.error as { statusCode?: string }).statusCode).toBe('403');
    const path = `${alice.id}/avatar.png`;
    const duplicate = await alice.client.storage.from('avatars').upload(path, new Blob([png], { type: 'image/png' }));
    expect((duplicate.error as { statusCode?: string } | null)?.statusCode).toBe('409');
    const replaced = await alice.client.storage
      .from('avatars')
      .upload(path, new Blob([new Uint8Array([9])], { type: 'image/png' }), { upsert: true });
    expect(replaced.error).toBeNull();
    const downloaded = await alice.client.storage.from('avatars').download(path);
    expect(new Uint8Array(await (downloaded.data as Blob).arrayBuffer())).toEqual(new Uint8Array([9]));
  });

  it('keeps private files private: the owner lists and reads them, another user sees nothing', async () => {
    const path = `${alice.id}/notes/week1.txt`;
    const uploaded = await alice.client.storage
      .from('study-material')
      .upload(path, 'photosynthesis', { contentType: 'text/plain' });
    expect(uploaded.error).toBeNull();
    const folders = await alice.client.storage.from('study-material').list(alice.id);
    expect(folders.data?.map((entry) => [entry.name, entry.id])).toEqual([['notes', null]]);
    const files = await alice.client.storage.from('study-material').list(`${alice.id}/notes`);
    expect(files.data?.map((entry) => entry.name)).toEqual(['week1.txt']);
    expect((await bob.client.storage.from('study-material').list(`${alice.id}/notes`)).data).toEqual([]);
    const stolen = await bob.client.storage.from('study-material').download(path);
    expect(stolen.error).not.toBeNull();
    const publicRead = await fetch(`${localbase.url}/storage/v1/object/public/study-material/${path}`);
    expect(publicRead.status).toBe(400);
    expect(await publicRead.json()).toMatchObject({ statusCode: '404' });
  });

  it('removes only what the caller may delete, and the bytes go with the row', async () => {
    const path = `${alice.id}/notes/week1.txt`;
    expect((await bob.client.storage.from('study-material').remove([path])).data).toEqual([]);
    const removed = await alice.client.storage.from('study-material').remove([path]);
    expect(removed.data?.map((entry) => entry.name)).toEqual([path]);
    expect((await alice.client.storage.from('study-material').download(path)).error).not.toBeNull();
  });

  it('stores a JSON upload byte for byte', async () => {
    const text = '{ "sessions": [1,2],\n  "note": "kept as written" }';
    const path = `${alice.id}/backup.json`;
    const uploaded = await alice.client.storage.from('backups').upload(path, text, { contentType: 'application/json' });
    expect(uploaded.error).toBeNull();
    const downloaded = await alice.client.storage.from('backups').download(path);
    expect(await (downloaded.data as Blob).text()).toBe(text);
    expect(downloaded.data?.type).toBe('application/json');
  });

  it('lists buckets for anyone and refuses bucket creation to a user', async () => {
    const buckets = await anon.storage.listBuckets();
    expect(buckets.data?.map((bucket) => bucket.id).sort()).toEqual([
      'avatars',
      'backups',
      'group-icons',
      'study-material',
    ]);
    const created = await alice.client.storage.createBucket('mine');
    expect((created.error as { statusCode?: string } | null)?.statusCode).toBe('403');
  });
});

describe('management API and functions', () => {
  it('runs SQL as the owner with the access token (201, rows) and refuses a wrong token (401, nothing run)', async () => {
    const ok = await managementQuery(localbase, 'select count(*)::int as n from auth.users');
    expect(ok.status).toBe(201);
    expect(((await ok.json()) as { n: number }[])[0]?.n).toBeGreaterThanOrEqual(2);
    const refused = await managementQuery(localbase, 'create table public.should_not_exist (id int)', 'sbp_wrong');
    expect(refused.status).toBe(401);
    const check = await managementQuery(localbase, "select to_regclass('public.should_not_exist') is null as absent");
    expect(await check.json()).toEqual([{ absent: true }]);
    const failed = await managementQuery(localbase, 'select * from no_such_relation');
    expect(failed.status).toBe(400);
    expect(await failed.json()).toMatchObject({ message: expect.stringContaining('no_such_relation') });
  });

  it("does not let a console script's session settings leak into later API requests", async () => {
    const script =
      "select pg_catalog.set_config('search_path', '', false); set role anon; set check_function_bodies = false; select 1 as done";
    for (let attempt = 0; attempt < 3; attempt++) {
      expect((await managementQuery(localbase, script)).status).toBe(201);
    }
    const after = await managementQuery(
      localbase,
      "select current_user as who, current_setting('search_path') as path",
    );
    expect(await after.json()).toEqual([
      { who: expect.not.stringMatching(/^anon$/), path: expect.stringContaining('public') },
    ]);
    const read = await alice.client.from('user_backups').select('id');
    expect(read.error).toBeNull();
    expect(read.data).toHaveLength(1);
  });

  it('answers every edge function with 404 function_not_found', async () => {
    const { error } = await alice.client.functions.invoke('hello', { body: { a: 1 } });
    expect(error).not.toBeNull();
    const response = await fetch(`${localbase.url}/functions/v1/hello`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'function_not_found' });
  });
});
