// Runs presence for the signed-in student: while a focus session is open (and the student agreed
// to take part in the community) the app heartbeats through supabase-js, loaded only then; it says
// `offline` when the session finishes, on sign-out, and when the page goes away.
import { effect } from '@preact/signals';
import { CONSENT_EVENT, rememberedConsent } from '../lib/community/consent.ts';
import { PresenceReporter, presenceReport, sendOfflineBeacon, type HeartbeatBody } from '../lib/community/presence.ts';
import { AUTH_STORAGE_KEY } from '../lib/session-storage.ts';
import { advance } from '../lib/timer.ts';
import { selection, snapshotOf } from './focus.ts';
import { account, timer } from './signals.ts';

async function sendHeartbeat(body: HeartbeatBody): Promise<void> {
  const { supabase } = await import('../lib/supabase.ts');
  const { error } = await (await supabase()).rpc('community_heartbeat', body);
  if (error) throw new Error(error.message);
}

const reporter = new PresenceReporter(sendHeartbeat);
let stopEffect: (() => void) | undefined;

function currentReport() {
  const user = account.value;
  if (!user || !rememberedConsent(user.userId)) return null;
  const now = Date.now();
  const state = advance(timer.value, now);
  return presenceReport(snapshotOf(state, selection(), now), state.startedAtMs);
}

function storedCredentials(): { anonKey: string; accessToken: string; backendUrl: string } | null {
  try {
    const session = JSON.parse(localStorage.getItem(AUTH_STORAGE_KEY) ?? 'null') as { access_token?: string } | null;
    const config = JSON.parse(localStorage.getItem('studyhall-client-config') ?? 'null') as {
      anon_key?: string;
      backend_url?: string;
    } | null;
    if (!session?.access_token || !config?.anon_key || !config.backend_url) return null;
    return { accessToken: session.access_token, anonKey: config.anon_key, backendUrl: config.backend_url };
  } catch {
    return null;
  }
}

function onPageHide(): void {
  if (!reporter.live) return;
  const credentials = storedCredentials();
  if (credentials) sendOfflineBeacon(credentials);
  reporter.forget();
}

function onPageShow(event: PageTransitionEvent): void {
  // Back from the back/forward cache: the session may still be open.
  if (event.persisted) void reporter.update(currentReport());
}

function onConsentChange(): void {
  void reporter.update(currentReport());
}

export function startPresence(): void {
  if (stopEffect) return;
  stopEffect = effect(() => {
    void timer.value; // follow every timer change (phase, pause, subject)
    void account.value;
    void reporter.update(currentReport());
  });
  window.addEventListener('pagehide', onPageHide);
  window.addEventListener('pageshow', onPageShow);
  window.addEventListener(CONSENT_EVENT, onConsentChange);
}

/** Before signing out: tell the backend, while the token still works. */
export async function stopPresence(): Promise<void> {
  stopEffect?.();
  stopEffect = undefined;
  window.removeEventListener('pagehide', onPageHide);
  window.removeEventListener('pageshow', onPageShow);
  window.removeEventListener(CONSENT_EVENT, onConsentChange);
  await Promise.race([reporter.update(null), new Promise((resolve) => setTimeout(resolve, 2000))]);
}
