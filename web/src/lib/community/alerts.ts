// Start alerts: "tell me when this buddy or group starts studying". The caller's own alerts are a
// table they read; writes go through community_set_start_alert. One quiet window (in the
// browser's timezone) applies to all of them; it is kept in the student's settings preferences so
// an alert created later gets it too.
import { z } from 'zod';
import { startAlertJson } from '#contracts/community-answers.ts';
import { START_ALERT_COLUMNS, startAlertRow, type StartAlertRow } from '#contracts/community-rows.ts';
import { client, CommunityError, communityError, currentUserId, rows, rpc } from './backend.ts';

export type AlertTarget = 'buddy' | 'group';

export interface QuietHours {
  /** "22:00" local time, or null for no quiet window. */
  start: string | null;
  end: string | null;
}

/** Minutes east of UTC, as the database counts them (UTC+2 -> 120). */
export function browserOffsetMinutes(date = new Date()): number {
  return -date.getTimezoneOffset();
}

export async function listAlerts(): Promise<StartAlertRow[]> {
  return rows((await client()).from('community_start_alerts').select(START_ALERT_COLUMNS), startAlertRow);
}

export function alertFor(alerts: readonly StartAlertRow[], type: AlertTarget, id: string): boolean {
  return alerts.some((alert) => alert.target_type === type && alert.target_id === id && alert.enabled);
}

const quietPreference = z.object({ start: z.string().nullable(), end: z.string().nullable() });

export async function readQuietHours(): Promise<QuietHours> {
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  const found = await rows(
    (await client()).from('user_settings').select('preferences').eq('user_id', userId).limit(1),
    z.object({ preferences: z.record(z.string(), z.unknown()) }),
  );
  const stored = quietPreference.safeParse(found[0]?.preferences.startAlertQuietHours);
  return stored.success ? stored.data : { start: null, end: null };
}

export async function setAlert(type: AlertTarget, id: string, enabled: boolean): Promise<void> {
  const quiet = await readQuietHours();
  await rpc(
    'community_set_start_alert',
    {
      p_target_type: type,
      p_target_id: id,
      p_quiet_start: quiet.start,
      p_quiet_end: quiet.end,
      p_timezone_offset_minutes: browserOffsetMinutes(),
      p_enabled: enabled,
    },
    startAlertJson,
  );
}

/** Saves the window for every alert now and for alerts made later. */
export async function saveQuietHours(quiet: QuietHours): Promise<void> {
  const userId = await currentUserId();
  if (!userId) throw new CommunityError('signed_out', 'Sign in again.');
  await rpc(
    'community_sync_quiet_hours',
    { p_quiet_start: quiet.start, p_quiet_end: quiet.end, p_timezone_offset_minutes: browserOffsetMinutes() },
    z.number(),
  );
  const sb = await client();
  const current = await rows(
    sb.from('user_settings').select('preferences').eq('user_id', userId).limit(1),
    z.object({ preferences: z.record(z.string(), z.unknown()) }),
  );
  const preferences = { ...(current[0]?.preferences ?? {}), startAlertQuietHours: quiet };
  const { error, status } = await sb.from('user_settings').update({ preferences }).eq('user_id', userId);
  if (error) throw communityError(error, status);
}
