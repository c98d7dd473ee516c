// POST /__leaderboard {period}: rankings for the period and the caller's own rank, read with the
// caller's JWT only (never the service key), so the read policies on user_stats_summary and
// daily_user_stats decide who appears: the caller and the students whose privacy switches let
// leaderboards show them (docs/database.md#leaderboards-and-privacy). Without the policies the
// board shows only the caller (the fix is supabase/bundles/leaderboard-rls-fix.sql).
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { leaderboardAnswer } from '#contracts/gateway-answers.ts';
import type { BackendClient } from '../backend/backend-client.ts';
import { bearerBeforeBody, requireBearer, type Caller } from '../auth/bearer.ts';
import { withErrorBody } from '../route-schemas.ts';
import { periodStart, type DaySettings } from './periods.ts';
import { rankByPoints, sumByUser, type StudyTotals } from './rankings.ts';

export const LEADERBOARD_SIZE = 50;

const leaderboardBody = z.object({ period: z.enum(['day', 'week', 'month', 'all']) });
const count = z.number().int().min(0);
const dailyRow = z.object({ user_id: z.string(), minutes: count, correct: count });
const summaryRow = z.object({ user_id: z.string(), total_minutes: count, total_correct: count });
const settingsRow = z.object({ day_offset_hours: z.number(), timezone_offset_minutes: z.number() });
const profileRow = z.object({
  user_id: z.string(),
  handle: z.string().nullable(),
  display_name: z.string().nullable(),
  avatar_url: z.string().nullable(),
});

async function callerDaySettings(backend: BackendClient, caller: Caller): Promise<DaySettings> {
  const rows = await backend.select(
    `user_settings?select=day_offset_hours,timezone_offset_minutes&user_id=eq.${caller.userId}`,
    { userToken: caller.token },
  );
  return rows.length ? settingsRow.parse(rows[0]) : { day_offset_hours: 0, timezone_offset_minutes: 0 };
}

async function readTotals(backend: BackendClient, caller: Caller, start: string | null): Promise<StudyTotals[]> {
  const credential = { userToken: caller.token };
  if (start === null) {
    const rows = z
      .array(summaryRow)
      .parse(await backend.select('user_stats_summary?select=user_id,total_minutes,total_correct', credential));
    return rows.map((row) => ({ user_id: row.user_id, minutes: row.total_minutes, correct: row.total_correct }));
  }
  return sumByUser(
    z
      .array(dailyRow)
      .parse(
        await backend.select(`daily_user_stats?select=user_id,minutes,correct&study_day=gte.${start}`, credential),
      ),
  );
}

type Period = z.infer<typeof leaderboardBody>['period'];

/** The top of the board for the period, and the caller's own rank, read with the caller's token. */
async function readLeaderboard(backend: BackendClient, caller: Caller, period: Period) {
  const start = periodStart(period, Date.now(), await callerDaySettings(backend, caller));
  const ranked = rankByPoints(await readTotals(backend, caller, start));
  const top = ranked.slice(0, LEADERBOARD_SIZE);
  const me = ranked.find((entry) => entry.user_id === caller.userId) ?? null;
  const ids = [...new Set([...top.map((entry) => entry.user_id), caller.userId])];
  const profiles = z
    .array(profileRow)
    .parse(
      await backend.select(
        `user_profiles?select=user_id,handle,display_name,avatar_url&user_id=in.(${ids.join(',')})`,
        { userToken: caller.token },
      ),
    );
  const byId = new Map(profiles.map((profile) => [profile.user_id, profile]));
  const describe = (userId: string) => {
    const profile = byId.get(userId);
    return {
      handle: profile?.handle ?? null,
      display_name: profile?.display_name ?? null,
      avatar_url: profile?.avatar_url ?? null,
    };
  };
  return {
    ok: true as const,
    period,
    since: start,
    entries: top.map((entry) => ({ ...entry, ...describe(entry.user_id), is_me: entry.user_id === caller.userId })),
    me: me
      ? { ...me, ...describe(me.user_id) }
      : { user_id: caller.userId, rank: null, points: 0, minutes: 0, correct: 0, ...describe(caller.userId) },
    total_ranked: ranked.length,
  };
}

const leaderboardRoutes: FastifyPluginAsyncZod<{ backend: BackendClient }> = async (app, options) => {
  const schema = { body: leaderboardBody, response: withErrorBody({ 200: leaderboardAnswer }) };
  app.post('/__leaderboard', { preValidation: bearerBeforeBody, schema }, async (request) => {
    const caller = requireBearer(request);
    const { period } = request.body;
    return readLeaderboard(options.backend.forRoute(), caller, period);
  });
};

export default leaderboardRoutes;
