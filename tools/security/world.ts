// The world the attack matrix attacks: alice, the victim, has rows in every table of `public`,
// each made the way the app makes it (sign-up triggers, RPCs, the app's own inserts); bob, the
// attacker, is a signed-in stranger with nothing to do with her; carol is alice's buddy and owns a
// group alice asked to join. A table that gains no row of alice's here fails the matrix, so a new
// table must be seeded below before it can pass.
import type pg from 'pg';
import { actAs, student } from './acting.ts';

export interface World {
  alice: string;
  bob: string;
  carol: string;
}

async function signUp(client: pg.ClientBase, name: string): Promise<string> {
  // What GoTrue does at sign-up; the on_auth_user_created trigger bootstraps the public rows.
  const { rows } = await client.query<{ id: string }>(
    `insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at)
     values (gen_random_uuid(), 'authenticated', 'authenticated', $1, '', now(), now(), now()) returning id`,
    [`${name}@matrix.test`],
  );
  const id = rows[0]?.id;
  if (!id) throw new Error(`sign-up of ${name} returned no id`);
  return id;
}

export async function seedWorld(client: pg.ClientBase): Promise<World> {
  const world: World = {
    alice: await signUp(client, 'alice'),
    bob: await signUp(client, 'bob'),
    carol: await signUp(client, 'carol'),
  };
  const alice = student(world.alice);
  const carol = student(world.carol);

  await actAs(client, alice, `select public.app_bootstrap_user()`);
  await actAs(client, alice, `select public.community_bootstrap_profile('alice_matrix')`);
  await actAs(client, carol, `select public.community_bootstrap_profile('carol_matrix')`);
  await actAs(client, alice, `update public.user_settings set day_offset_hours = 4`);
  // alice shares study time and question counts, so the leaderboard rule has rows to allow.
  await actAs(
    client,
    alice,
    `update public.community_enrollments set privacy = privacy || '{"shareQuestionCounts": true}'`,
  );
  // Roles are granted by the admin console with the service key.
  await client.query(`insert into public.user_roles (user_id, role) values ($1, 'moderator')`, [world.alice]);
  // The owner confirms an ADMIN_EMAIL account on the console's roles page (with the service key).
  await client.query(
    `insert into public.admin_email_confirmations (user_id, email, confirmed_by) values ($1, 'alice@matrix.test', 'secret')`,
    [world.alice],
  );

  // Study data.
  await actAs(
    client,
    alice,
    `select public.record_study_session(now() - interval '1 hour', 25, 'bio', 'Biology', null, null, 5, 1, 0)`,
  );
  await actAs(client, alice, `insert into public.user_tasks (user_id, title) values (auth.uid(), 'Read chapter 3')`);
  await actAs(
    client,
    alice,
    `insert into public.user_subjects (id, user_id, name) values (gen_random_uuid(), auth.uid(), 'Biology')`,
  );
  await actAs(
    client,
    alice,
    `insert into public.user_backups (user_id, payload) values (auth.uid(), '{"tasks": [1, 2]}')`,
  );
  // An admin repair archives the backup it replaces (the admin console does it with the service key).
  await client.query(
    `select public.admin_replace_current_backup($1, (select id from public.user_backups where user_id = $1 order by created_at desc, id desc limit 1),
                                                '{"tasks": [1, 2, 3]}', 'matrix', 'repair', 'owner@studyhall.invalid')`,
    [world.alice],
  );

  // Groups: a private one and a public one of alice's, a message, an invite; carol's request group.
  const [privateGroup] = await actAs<{ id: string }>(
    client,
    alice,
    `insert into public.groups (name, visibility, join_policy, created_by)
     values ('Alice Private Circle', 'private', 'invite', auth.uid()) returning id`,
  );
  await actAs(
    client,
    alice,
    `insert into public.groups (name, visibility, join_policy, created_by)
                              values ('Alice Public Hall', 'public', 'open', auth.uid())`,
  );
  await actAs(client, alice, `select public.community_send_group_message($1, 'private notes')`, [privateGroup?.id]);
  await actAs(client, alice, `select public.community_create_invite('group', $1)`, [privateGroup?.id]);
  await actAs(client, alice, `select public.community_create_invite('buddy', null)`);
  const [carolGroup] = await actAs<{ id: string }>(
    client,
    carol,
    `insert into public.groups (name, visibility, join_policy, created_by)
     values ('Carol Request Room', 'public', 'request', auth.uid()) returning id`,
  );
  await actAs(client, alice, `select public.community_join_group($1)`, [carolGroup?.id]);
  await actAs(client, alice, `select public.community_submit_report('group', $1, 'off-topic posts')`, [carolGroup?.id]);
  // Moderation of alice is recorded in the audit log (by a moderating definer function).
  await client.query(
    `select private.record_audit('service_role', 'matrix', $1::uuid, 'users', $1::text, '{"note": "matrix"}')`,
    [world.alice],
  );

  // Buddies, presence, a start alert on carol with a device token; carol starting to study then
  // leaves a notification for alice in the outbox.
  await actAs(client, alice, `select public.community_request_buddy('carol_matrix')`);
  await actAs(
    client,
    carol,
    `select public.community_respond_buddy(id, true) from public.community_friends where friend_id = auth.uid()`,
  );
  await actAs(client, alice, `select public.community_heartbeat('idle', 'bio', 'Biology')`);
  await actAs(client, alice, `select public.community_set_start_alert('buddy', $1)`, [world.carol]);
  await actAs(client, alice, `select public.community_register_device_token('alice-device-token')`);
  await actAs(client, carol, `select public.community_heartbeat('studying')`);
  return world;
}
