// Plain words for the community's failures, so no screen shows a raw code: a code the database
// raised gets the sentence the registry of raised codes names for it (raised-code-words.ts); the
// codes below are the app's own (no connection, an answer it cannot read) and PostgREST's.
import { RAISED_CODE_SENTENCES, sentenceOfRaisedCode } from '../raised-code-words.ts';
import { CommunityError } from './backend.ts';

const APP_WORDS: Record<string, string> = {
  offline: 'The server cannot be reached. Check that studyhall is running on your computer, then try again.',
  signed_out: RAISED_CODE_SENTENCES.signed_out,
  not_allowed: 'You are not allowed to do that.',
  not_enrolled: 'Your community settings are missing on the server. Reload the page.',
  unexpected_answer: 'The server answered in a way this version of the app does not understand. Reload the page.',
  '23514': 'Something is too long or empty. Check the fields and try again.',
};

export function describeCommunityError(error: unknown): string {
  if (!(error instanceof CommunityError)) return 'Something went wrong on this page. Try again.';
  const own = Object.hasOwn(APP_WORDS, error.code) ? APP_WORDS[error.code] : undefined;
  return sentenceOfRaisedCode(error.code) ?? own ?? (error.message || 'The server refused this. Try again.');
}

export function codeOf(error: unknown): string | null {
  return error instanceof CommunityError ? error.code : null;
}
