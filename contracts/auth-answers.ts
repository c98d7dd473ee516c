// What the /__auth wrapper routes answer (docs/api.md#auth-wrappers): a GoTrue session with the
// satellite rows a first sign-in creates, the account's backups and its profile. Rows the backend
// owns are passed on as the backend sent them (loose objects): the database is their contract
// (docs/database.md), these schemas name what the app relies on.
import { z } from 'zod';

export const authUser = z.object({ id: z.string(), email: z.string().optional() }).loose();

/** GoTrue's session, as its token endpoint answers it. */
export const session = z
  .object({
    access_token: z.string().min(1),
    refresh_token: z.string().min(1),
    expires_in: z.number(),
    expires_at: z.number().optional(),
    token_type: z.string(),
    user: authUser,
  })
  .loose();

/** The rows ensured at sign-up and sign-in (app_bootstrap_user and the community handle). */
export const satelliteReport = z.object({
  user_id: z.string(),
  created: z.array(z.string()).describe('The satellite tables a row was created in by this call.'),
  handle: z.string().nullable(),
  warnings: z.array(z.string()),
});

export const signedIn = z.object({ ok: z.literal(true), session, user: authUser, bootstrap: satelliteReport });

export const signUpPending = z
  .object({ ok: z.literal(true), session: z.null(), confirmation_required: z.literal(true) })
  .describe('The account waits for its e-mail to be confirmed.');

export const registeredAnswer = z.object({ ok: z.literal(true), registered: z.boolean() });

export const backupSummary = z.object({
  id: z.string(),
  source: z.string().describe('manual, auto, snapshot, import or restore'),
  app_version: z.string().nullable(),
  richness: z.number(),
  size_bytes: z.number(),
  created_at: z.string(),
});

export const backupWithPayload = backupSummary.extend({ payload: z.record(z.string(), z.unknown()) });

export const backupFound = z.object({ ok: z.literal(true), backup: backupWithPayload.nullable() });
export const backupStored = z.object({ ok: z.literal(true), backup: backupSummary });
export const snapshotStored = backupStored.extend({
  object: z.string().describe('The storage object the snapshot was also written to.'),
});
export const backupRestored = z.object({
  ok: z.literal(true),
  restored_from: backupSummary,
  backup: backupSummary.describe('The restore, recorded as the newest backup.'),
  payload: z.record(z.string(), z.unknown()),
});

export const profileRow = z.object({ user_id: z.string(), profile_data: z.record(z.string(), z.unknown()) }).loose();
export const profileAnswer = z.object({ ok: z.literal(true), profile: profileRow });

/** Everything the app loads after sign-in, in one answer. */
export const profileBundle = z.object({
  ok: z.literal(true),
  user: authUser,
  account: z.unknown().describe('The users row.'),
  profile: z.unknown().describe('The user_profiles row.'),
  settings: z.unknown().describe('The user_settings row.'),
  roles: z.array(z.string()),
  enrollment: z.unknown().describe('The community_enrollments row, or null without the community schema.'),
  stats: z.unknown().describe('The user_stats_summary row.'),
  latest_backup: backupSummary.nullable(),
  created: z.array(z.string()),
});
