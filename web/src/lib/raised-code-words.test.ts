// Every code in the registry of raised codes has a sentence, found through the key the registry
// names, and the screens show it: the community's describer, the outbox's session refusals and the
// account screens. The first test proves the check fails on a code whose key has no sentence.
import { describe, expect, it } from 'vitest';
import { RAISED_CODES, type RaisedCode } from '#contracts/raised-codes.ts';
import { accountProblem } from './account-words.ts';
import { ApiError } from './api.ts';
import { CommunityError } from './community/backend.ts';
import { describeCommunityError } from './community/words.ts';
import { RAISED_CODE_SENTENCES, sentenceOfRaisedCode } from './raised-code-words.ts';
import { sessionRefusal } from './session-refusals.ts';

/** The registered codes whose sentence key names no sentence. */
function codesWithoutSentence(registry: Record<string, RaisedCode>, sentences: Record<string, string>): string[] {
  return Object.entries(registry)
    .filter(([, entry]) => !Object.hasOwn(sentences, entry.sentence) || !sentences[entry.sentence]?.trim())
    .map(([code, entry]) => `${code} (${entry.sentence})`);
}

describe('sentences for raised codes', () => {
  it('the check fails on a registered code whose sentence key has no sentence', () => {
    const planted: Record<string, RaisedCode> = {
      ...RAISED_CODES,
      planted_code: { sqlstates: ['P0999'], status: 400, sentence: 'planted_sentence' },
    };
    expect(codesWithoutSentence(planted, RAISED_CODE_SENTENCES)).toContain('planted_code (planted_sentence)');
    const { handle_taken: _dropped, ...missing } = RAISED_CODE_SENTENCES;
    expect(codesWithoutSentence(RAISED_CODES, missing)).toContain('handle_taken (handle_taken)');
  });

  it('has a sentence for every registered code, and no sentence the registry never names', () => {
    expect(codesWithoutSentence(RAISED_CODES, RAISED_CODE_SENTENCES)).toEqual([]);
    const named = new Set(Object.values(RAISED_CODES).map((entry) => entry.sentence));
    expect(Object.keys(RAISED_CODE_SENTENCES).filter((key) => !named.has(key as never))).toEqual([]);
    for (const sentence of Object.values(RAISED_CODE_SENTENCES)) expect(sentence).toMatch(/^[A-Z].*\.$/);
  });

  it('finds a sentence by the code, through a shared key too, and none for anything else', () => {
    expect(sentenceOfRaisedCode('handle_taken')).toBe(RAISED_CODE_SENTENCES.handle_taken);
    expect(sentenceOfRaisedCode('not_authenticated')).toBe(RAISED_CODE_SENTENCES.signed_out);
    expect(sentenceOfRaisedCode('invalid_invite_type')).toBe(RAISED_CODE_SENTENCES.app_out_of_date);
    for (const other of ['offline', 'PGRST116', '__proto__', 'constructor', '']) {
      expect(sentenceOfRaisedCode(other), other).toBeUndefined();
    }
  });
});

describe('the screens that show them', () => {
  it("the community's describer: the registry's sentence, the app's own words, else the server's message", () => {
    expect(describeCommunityError(new CommunityError('last_owner', 'transfer ownership first'))).toBe(
      RAISED_CODE_SENTENCES.last_owner,
    );
    expect(describeCommunityError(new CommunityError('not_authenticated', 'sign in first'))).toBe(
      'Signed out on this device — sign in again.',
    );
    expect(describeCommunityError(new CommunityError('offline', ''))).toMatch(/cannot be reached/);
    expect(describeCommunityError(new CommunityError('something_new', 'a hint from the server'))).toBe(
      'a hint from the server',
    );
    expect(describeCommunityError(new CommunityError('constructor', ''))).toBe('The server refused this. Try again.');
  });

  it("the outbox's session refusals and the account screens", () => {
    const refused = sessionRefusal(new ApiError(400, 'P0054', 'session_overlaps'));
    expect([refused?.code, refused?.message]).toEqual(['session_overlaps', RAISED_CODE_SENTENCES.session_overlaps]);
    expect(sessionRefusal(new ApiError(400, 'P0004', 'invalid_message'))).toBeNull();
    expect(accountProblem(new ApiError(400, 'invalid_confirmation', 'type your handle'))).toBe(
      RAISED_CODE_SENTENCES.invalid_confirmation,
    );
  });
});
