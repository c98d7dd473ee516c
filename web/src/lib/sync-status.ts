// What the app says about syncing, in one place, so the sidebar line and the banner never
// disagree. "Everything is synced" only when every change was kept on this device, nothing waits,
// nothing was refused, the server answers and this device is still signed in; a change the device
// could not keep is said first, then offline, then a sign-in the server ended, then how many
// changes wait.
import { plural } from './format.ts';

export interface SyncFacts {
  /** Outbox entries still to send, and entries the backend refused for good. */
  pending: number;
  failed: number;
  /** Why the last flush stopped: `offline`, `signed_out`, a server trouble's code; null when it drained. */
  blockedBy: string | null;
  syncing: boolean;
  /** The outbox was read (a page that just opened has not yet). */
  known: boolean;
  /** The browser's network, and whether this server answered its last check. */
  online: boolean;
  serverReachable: boolean;
  /** A change this device could not keep (IndexedDB refused it, or it threw before the write). */
  unsaved: boolean;
  /** The server ended this device's sign-in (signed out elsewhere, a new password, a ban). */
  signedOut: boolean;
}

export type SyncTone = 'ok' | 'busy' | 'waiting' | 'offline' | 'danger';

export interface SyncLine {
  tone: SyncTone;
  text: string;
  /** The server cannot be reached (the offline banner shows). */
  offline: boolean;
}

export function describeSync(facts: SyncFacts): SyncLine {
  const waiting = facts.pending > 0 ? ` · ${plural(facts.pending, 'change')} waiting` : '';
  const offline = !facts.online || !facts.serverReachable || facts.blockedBy === 'offline';
  // Not even on this device: nothing about syncing may sound reassuring until a change is kept again.
  if (facts.unsaved) return { tone: 'danger', text: 'A change was not saved', offline };
  if (offline) return { tone: 'offline', text: `Offline${waiting}`, offline: true };
  if (facts.signedOut || (facts.blockedBy === 'signed_out' && facts.pending > 0))
    return { tone: 'waiting', text: `${SIGNED_OUT_TEXT}${waiting}`, offline: false };
  if (!facts.known) return { tone: 'busy', text: 'Checking for changes…', offline: false };
  if (facts.failed > 0)
    return { tone: 'danger', text: `${plural(facts.failed, 'change')} could not sync${waiting}`, offline: false };
  if (facts.pending > 0) {
    if (facts.syncing) return { tone: 'busy', text: `Syncing ${plural(facts.pending, 'change')}…`, offline: false };
    if (facts.blockedBy) return { tone: 'waiting', text: `Server trouble${waiting}`, offline: false };
    return { tone: 'busy', text: `${plural(facts.pending, 'change')} waiting`, offline: false };
  }
  return { tone: 'ok', text: 'Everything is synced', offline: false };
}

/** The one name of a sign-in the server ended, wherever the app says it. */
export const SIGNED_OUT_TEXT = 'Signed out on this device — sign in again';

/** What a screen says where the student acted, when this device could not keep the change (the banner names it). */
export const NOT_SAVED_TEXT = 'Not saved on this device. Try again; if it keeps failing, reload the page.';
