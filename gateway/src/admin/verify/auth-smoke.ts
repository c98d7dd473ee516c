// The auth pipeline, end to end against the real backend: a temporary account is created with the
// admin API (and marked as a check account, so its deletion leaves no audit row), signs in with its
// password, is bootstrapped exactly as /__auth/login does it, and must then have every satellite
// row; the account is deleted afterwards even when a step failed.
import { z } from 'zod';
import type { BackendClient } from '../../backend/backend-client.ts';
import { ensureSatelliteRows } from '../../auth/satellite-rows.ts';
import { passwordGrant } from '../../auth/sessions.ts';
import { createTemporaryAccount, deleteAccount, type TemporaryAccount } from '../backend-users.ts';
import { check, patchFix, type Check } from './checks.ts';

/** What signup and login leave behind for every account (app_bootstrap_user and its triggers). */
export const SATELLITE_ROWS: { table: string; key: string }[] = [
  { table: 'users', key: 'id' },
  { table: 'user_profiles', key: 'user_id' },
  { table: 'user_settings', key: 'user_id' },
  { table: 'user_stats_summary', key: 'user_id' },
  { table: 'community_enrollments', key: 'user_id' },
];

const SCHEMA_FIX = {
  text: 'Run the Table schema and RPC checks above; apply the bundle they name.',
  href: null,
  bundle: null,
};

export async function authSmokeChecks(backend: BackendClient): Promise<Check[]> {
  const checks: Check[] = [];
  const step = (name: string, ok: boolean, detail: string) =>
    checks.push(check('auth_smoke', name, ok, detail, SCHEMA_FIX));
  let account: TemporaryAccount | undefined;
  try {
    account = await createTemporaryAccount(backend, 'verify');
    step('Create a temporary user with the admin API', true, `${account.email} (${account.id}).`);
    checks.push(
      check(
        'auth_smoke',
        'The database takes it as a check account (its deletion leaves no audit row)',
        account.unmarked === undefined,
        account.unmarked === undefined
          ? 'Marked with admin_mark_check_account.'
          : `admin_mark_check_account refused: ${account.unmarked}. Its deletion will be in the audit log.`,
        patchFix('community-patch-v6.sql'),
      ),
    );
    const session = await passwordGrant(backend, { username: account.email, password: account.password });
    step('Sign in with its password', true, `Session for ${session.user.id}, expires in ${session.expires_in} s.`);
    const report = await ensureSatelliteRows(
      backend,
      { token: session.access_token, userId: account.id },
      account.email,
    );
    step(
      'Bootstrap the account as /__auth/login does',
      report.warnings.length === 0,
      report.warnings.length
        ? `Warnings: ${report.warnings.join('; ')}.`
        : `Created ${report.created.join(', ') || 'nothing (the trigger had)'}; handle ${report.handle ?? 'none'}.`,
    );
    for (const { table, key } of SATELLITE_ROWS) {
      const rows = await backend
        .select(`${table}?select=${key}&${key}=eq.${account.id}`, { serviceRole: true })
        .catch((error: Error) => error);
      if (rows instanceof Error) step(`Row in public.${table}`, false, rows.message);
      else step(`Row in public.${table}`, rows.length === 1, rows.length === 1 ? 'Present.' : `Found ${rows.length}.`);
    }
    const [profile] = z
      .array(z.object({ handle: z.string().nullable() }))
      .parse(await backend.select(`user_profiles?select=handle&user_id=eq.${account.id}`, { serviceRole: true }));
    step(
      'The profile has a community handle',
      Boolean(profile?.handle),
      profile?.handle ? `Handle ${profile.handle}.` : 'No handle was set.',
    );
  } catch (error) {
    step(
      account ? 'Sign in and bootstrap' : 'Create a temporary user with the admin API',
      false,
      (error as Error).message,
    );
  } finally {
    if (account) {
      const deleted = await deleteAccount(backend, account.id).then(
        () => undefined,
        (error: Error) => error,
      );
      step(
        'Delete the temporary user',
        deleted === undefined,
        deleted === undefined
          ? `${account.email} deleted.`
          : `Could not delete ${account.email}: ${deleted.message}. Delete it in the backend's auth admin.`,
      );
    }
  }
  return checks;
}
