// What an e-mail link brought back to this page (lib/auth-link.ts), followed once at start: a
// recovery link signs the student in and asks for a new password; the last of the two links that
// confirm an e-mail change signs her in, the first only says the other is still needed; a failed
// one says why and offers a new link. The fragment is removed from the address at
// once, so the tokens are neither kept in the history nor shared by copying the address.
import { signal } from '@preact/signals';
import { authLinkProblem, readAuthLink } from '../lib/auth-link.ts';

export type AuthLinkOutcome =
  | { kind: 'adopting' }
  | { kind: 'recovery' }
  | { kind: 'email-changed' }
  | { kind: 'email-half-confirmed' }
  | { kind: 'failed'; problem: string }
  | null;

/** Kept for the tab, so a reload before the new password is saved still shows the form. */
const RECOVERING_KEY = 'studyhall-recovering';

function recoveringBefore(): AuthLinkOutcome {
  try {
    return sessionStorage.getItem(RECOVERING_KEY) === '1' ? { kind: 'recovery' } : null;
  } catch {
    return null;
  }
}

function rememberRecovering(on: boolean): void {
  try {
    if (on) sessionStorage.setItem(RECOVERING_KEY, '1');
    else sessionStorage.removeItem(RECOVERING_KEY);
  } catch {
    // Storage refused: a reload then opens the app instead of the form, nothing worse.
  }
}

export const authLinkOutcome = signal<AuthLinkOutcome>(recoveringBefore());

export async function followAuthLink(): Promise<void> {
  const link = readAuthLink(location.hash);
  if (!link) return;
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
  if (link.kind === 'error') {
    authLinkOutcome.value = { kind: 'failed', problem: authLinkProblem(link.code) };
    return;
  }
  if (link.kind === 'message') {
    authLinkOutcome.value = { kind: 'email-half-confirmed' };
    return;
  }
  authLinkOutcome.value = { kind: 'adopting' };
  try {
    const { adoptLinkSession } = await import('./account.ts');
    await adoptLinkSession(link);
    rememberRecovering(link.type === 'recovery');
    authLinkOutcome.value = { kind: link.type === 'recovery' ? 'recovery' : 'email-changed' };
  } catch {
    authLinkOutcome.value = { kind: 'failed', problem: authLinkProblem('') };
  }
}

/** The page has shown what the link did. */
export function dismissAuthLink(): void {
  rememberRecovering(false);
  authLinkOutcome.value = null;
}
