// Every satellite row a new or returning user needs, created with the user's own token:
// app_bootstrap_user (users, profile, settings, stats; the community enrollment follows from the
// users row by trigger) and, when the community schema is installed, the community handle.
import { z } from 'zod';
import { BackendError, type BackendClient } from '../backend/backend-client.ts';
import type { Caller } from './bearer.ts';

export interface SatelliteReport {
  user_id: string;
  created: string[];
  handle: string | null;
  warnings: string[];
}

const bootstrapResult = z.object({ user_id: z.string(), created: z.array(z.string()) });

/** A handle proposal from the e-mail's local part: lower case letters, digits and underscores. */
export function handleFromEmail(email: string): string {
  const local = (email.split('@')[0] ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return (local.length >= 3 ? local : `student_${local}`).slice(0, 24);
}

function isMissingFunction(error: unknown): boolean {
  return error instanceof BackendError && (error.code === 'PGRST202' || error.code === '42883' || error.status === 404);
}

export async function ensureSatelliteRows(
  backend: BackendClient,
  caller: Caller,
  email: string | undefined,
): Promise<SatelliteReport> {
  const credential = { userToken: caller.token };
  const result = bootstrapResult.parse(await backend.rpc('app_bootstrap_user', {}, credential));
  const report: SatelliteReport = { ...result, handle: null, warnings: [] };
  // A handle the student already has (chosen or proposed earlier) is never replaced here.
  const [profile] = z
    .array(z.object({ handle: z.string().nullable() }))
    .parse(await backend.select(`user_profiles?select=handle&user_id=eq.${caller.userId}`, credential));
  if (profile?.handle) return { ...report, handle: profile.handle };
  if (!email) return report;
  const proposal = handleFromEmail(email);
  try {
    await backend.rpc('community_bootstrap_profile', { p_handle: proposal }, credential);
    report.handle = proposal;
  } catch (error) {
    // Without the community schema (or with the proposal already taken) the account still works;
    // the app offers to pick a handle later. The reason is reported, not hidden.
    report.warnings.push(
      isMissingFunction(error)
        ? 'community_profile_unavailable'
        : `community_profile_failed: ${(error as Error).message}`,
    );
  }
  return report;
}
