// Signing out, in the order that matters: presence says `offline` first, while the access token
// still works, so buddies and groups stop seeing this student as studying; then the session ends.
// It sits above auth.ts and presence.ts: presence reads the timer, the timer records sessions
// through the outbox, and the outbox asks auth.ts for tokens, so auth.ts cannot import presence.
import { endSession } from './auth.ts';
import { stopPresence } from './presence.ts';

export async function signOut(): Promise<void> {
  await stopPresence().catch(() => undefined);
  await endSession();
}
