import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { currentStudyDay, periodStart } from '../src/leaderboard/periods.ts';
import { rankByPoints, sumByUser } from '../src/leaderboard/rankings.ts';
import { startTestGateway } from './helpers.ts';

const utc = { day_offset_hours: 0, timezone_offset_minutes: 0 };

describe('periods', () => {
  it('applies the day offset and the timezone to find the study day', () => {
    const at0130Utc = Date.parse('2026-03-11T01:30:00Z');
    expect(currentStudyDay(at0130Utc, utc)).toBe('2026-03-11');
    expect(currentStudyDay(at0130Utc, { day_offset_hours: 4, timezone_offset_minutes: 0 })).toBe('2026-03-10');
    expect(currentStudyDay(at0130Utc, { day_offset_hours: 0, timezone_offset_minutes: -120 })).toBe('2026-03-10');
    expect(
      currentStudyDay(Date.parse('2026-03-11T23:30:00Z'), { day_offset_hours: 0, timezone_offset_minutes: 60 }),
    ).toBe('2026-03-12');
  });

  it('starts a week on Monday, a month on the 1st, and "all" nowhere', () => {
    const wednesday = Date.parse('2026-03-11T12:00:00Z');
    expect(periodStart('day', wednesday, utc)).toBe('2026-03-11');
    expect(periodStart('week', wednesday, utc)).toBe('2026-03-09');
    expect(periodStart('week', Date.parse('2026-03-09T12:00:00Z'), utc)).toBe('2026-03-09');
    expect(periodStart('week', Date.parse('2026-03-15T12:00:00Z'), utc)).toBe('2026-03-09');
    expect(periodStart('month', wednesday, utc)).toBe('2026-03-01');
    expect(periodStart('all', wednesday, utc)).toBeNull();
  });
});

describe('rankings', () => {
  it('sums each user over days, scores minutes + correct, shares ranks on ties and leaves out zero', () => {
    const totals = sumByUser([
      { user_id: 'a', minutes: 20, correct: 5 },
      { user_id: 'b', minutes: 30, correct: 0 },
      { user_id: 'a', minutes: 10, correct: 0 },
      { user_id: 'c', minutes: 25, correct: 5 },
      { user_id: 'd', minutes: 1, correct: 0 },
      { user_id: 'z', minutes: 0, correct: 0 },
    ]);
    expect(rankByPoints(totals).map(({ user_id, points, rank }) => [user_id, points, rank])).toEqual([
      ['a', 35, 1],
      ['b', 30, 2],
      ['c', 30, 2],
      ['d', 1, 4],
    ]);
  });
});

describe('POST /__leaderboard credentials', () => {
  it("reads the backend only with the caller's token, never the service key", async () => {
    const authorizations: string[] = [];
    const backend = http.createServer((request, response) => {
      authorizations.push(`${request.headers.apikey} | ${request.headers.authorization}`);
      response.setHeader('content-type', 'application/json');
      response.end('[]');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
    const gateway = await startTestGateway({ backend: { url, anonKey: 'anon-key', serviceRoleKey: 'service-key' } });
    // Unsigned is fine here: the fake backend does not verify; what matters is what it is sent.
    const token = `e30.${Buffer.from(JSON.stringify({ sub: '11111111-2222-3333-4444-555555555555' })).toString('base64url')}.sig`;
    try {
      for (const period of ['day', 'all']) {
        const response = await gateway.app.inject({
          method: 'POST',
          url: '/__leaderboard',
          headers: { authorization: `Bearer ${token}` },
          payload: { period },
        });
        expect(response.statusCode, response.body).toBe(200);
        expect(response.json().me).toMatchObject({ rank: null, points: 0 });
      }
      expect(authorizations.length).toBeGreaterThanOrEqual(6);
      expect(new Set(authorizations)).toEqual(new Set([`anon-key | Bearer ${token}`]));
    } finally {
      await gateway.close();
      backend.close();
    }
  });
});
