// What the app says about syncing, in one place, so the sidebar line and the banner never
// disagree. "Everything is synced" only when nothing waits, nothing was refused and the server
// answers; while changes wait the line says how many, and offline says so first.
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
  if (!facts.online || !facts.serverReachable || facts.blockedBy === 'offline')
    return { tone: 'offline', text: `Offline${waiting}`, offline: true };
  if (!facts.known) return { tone: 'busy', text: 'Checking for changes…', offline: false };
  if (facts.blockedBy === 'signed_out' && facts.pending > 0)
    return { tone: 'waiting', text: `Sign in to sync${waiting}`, offline: false };
  if (facts.failed > 0)
    return { tone: 'danger', text: `${plural(facts.failed, 'change')} could not sync${waiting}`, offline: false };
  if (facts.pending > 0) {
    if (facts.syncing) return { tone: 'busy', text: `Syncing ${plural(facts.pending, 'change')}…`, offline: false };
    if (facts.blockedBy) return { tone: 'waiting', text: `Server trouble${waiting}`, offline: false };
    return { tone: 'busy', text: `${plural(facts.pending, 'change')} waiting`, offline: false };
  }
  return { tone: 'ok', text: 'Everything is synced', offline: false };
}
