// The consent card and the stealth switch say what the privacy table shows, for every combination
// of consent and switches: whatever they say others "still see" is exactly what the table marks as
// seen, and neither claims that someone sees nothing when the table shows they see something.
import { describe, expect, it } from 'vitest';
import { PRIVACY_KEYS, type Enrollment, type PrivacySwitches } from '#contracts/community-rows.ts';
import { consentStatement, stealthStatement, whoSeesWhat } from './sharing.ts';

function* everyEnrollment(): Generator<Enrollment> {
  const keys = ['consent', ...PRIVACY_KEYS] as const;
  for (let bits = 0; bits < 2 ** keys.length; bits++) {
    const on = (index: number) => (bits & (1 << index)) !== 0;
    const privacy = Object.fromEntries(PRIVACY_KEYS.map((key, index) => [key, on(index + 1)])) as PrivacySwitches;
    yield { consent: on(0), consented_at: null, privacy } as Enrollment;
  }
}

/** The phrases a statement says the audience still sees ("a, b and c"). */
function claimed(statement: string, audience: 'buddies' | 'groups'): string[] {
  const both = /Buddies and group members still see ([^.]*)\./.exec(statement)?.[1];
  const own =
    audience === 'buddies'
      ? /[Bb]uddies still see ([^;.]*)/.exec(statement)?.[1]
      : /group members still see ([^;.]*)/.exec(statement)?.[1];
  const text = both ?? own;
  return text ? text.split(/, | and /) : [];
}

describe('what the privacy screen says', () => {
  it('has the consent card (when off) and stealth (when on) name exactly what the table shows as seen', () => {
    let checked = 0;
    for (const enrollment of everyEnrollment()) {
      const table = whoSeesWhat(enrollment);
      const seen = (audience: 'buddies' | 'groups') =>
        table.filter((item) => item[audience] === true).map((item) => item.phrase);
      const statements = [
        ...(enrollment.consent ? [] : [consentStatement(enrollment)]),
        ...(enrollment.privacy.stealthMode ? [stealthStatement(enrollment)] : []),
      ];
      for (const statement of statements) {
        expect(claimed(statement, 'buddies'), statement).toEqual(seen('buddies'));
        expect(claimed(statement, 'groups'), statement).toEqual(seen('groups'));
        if (seen('buddies').length || seen('groups').length) expect(statement).not.toMatch(/see nothing more of/);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(64);
  });

  it("says group members still see today's minutes when consent is off and study time is shared", () => {
    const enrollment = {
      consent: false,
      consented_at: null,
      privacy: {
        stealthMode: false,
        shareTasks: false,
        shareSubjectBreakdown: false,
        shareQuestionCounts: false,
        shareExactTime: true,
        shareCurrentSubject: true,
      },
    } as Enrollment;
    expect(consentStatement(enrollment)).toBe(
      "Off: your live status is never sent, so you appear offline to everyone. Buddies and group members still see today's minutes.",
    );
  });

  it('never has stealth promise what the table denies: no live status while stealth is on', () => {
    for (const enrollment of everyEnrollment()) {
      if (!enrollment.privacy.stealthMode) continue;
      const live = whoSeesWhat(enrollment).slice(0, 4);
      expect(live.every((item) => item.buddies !== true && item.groups !== true)).toBe(true);
      expect(stealthStatement(enrollment)).toMatch(/^You always appear offline to buddies and group members/);
    }
  });

  it('words stealth off by whether the student takes part at all', () => {
    const base = { consented_at: null, privacy: { stealthMode: false } } as unknown as Enrollment;
    expect(stealthStatement({ ...base, consent: true })).toMatch(
      /^Buddies and group members see whether you are studying/,
    );
    expect(stealthStatement({ ...base, consent: false })).toMatch(/^Once you take part in the community/);
  });
});
