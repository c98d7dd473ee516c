// /__auth/bootstrap's bundle: everything the app hydrates from after login, read with the caller's
// token in parallel. The community enrollment is null when the community schema is not installed.
import { z } from 'zod';
import { authUser } from '#contracts/auth-answers.ts';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import type { Caller } from './bearer.ts';
import { latestBackupSummary } from './backups.ts';
import { ensureSatelliteRows } from './satellite-rows.ts';

async function oneRow(backend: BackendClient, caller: Caller, table: string, column = 'user_id'): Promise<unknown> {
  const rows = await backend.select(`${table}?select=*&${column}=eq.${caller.userId}&limit=1`, {
    userToken: caller.token,
  });
  return rows[0] ?? null;
}

async function optionalRow(backend: BackendClient, caller: Caller, table: string): Promise<unknown> {
  try {
    return await oneRow(backend, caller, table);
  } catch (error) {
    if (error instanceof BackendError && (error.code === '42P01' || error.code === 'PGRST205' || error.status === 404))
      return null;
    throw error;
  }
}

export async function loadProfileBundle(backend: BackendClient, caller: Caller) {
  const { body } = await backend.request('/auth/v1/user', { credential: { userToken: caller.token } });
  const user = authUser.parse(body);
  const bootstrap = await ensureSatelliteRows(backend, caller, user.email);
  const [account, profile, settings, roles, enrollment, stats, latestBackup] = await Promise.all([
    oneRow(backend, caller, 'users', 'id'),
    oneRow(backend, caller, 'user_profiles'),
    oneRow(backend, caller, 'user_settings'),
    backend.select(`user_roles?select=role&user_id=eq.${caller.userId}`, { userToken: caller.token }),
    optionalRow(backend, caller, 'community_enrollments'),
    oneRow(backend, caller, 'user_stats_summary'),
    latestBackupSummary(backend, caller),
  ]);
  return {
    ok: true as const,
    user,
    account,
    profile,
    settings,
    roles: z
      .array(z.object({ role: z.string() }))
      .parse(roles)
      .map((row) => row.role),
    enrollment,
    stats,
    latest_backup: latestBackup,
    created: bootstrap.created,
  };
}
