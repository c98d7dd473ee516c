// The companion's state, in signals: settings, what the poll last learned, the clock of the render
// tick, and the outcome of the latest tap. The components read these; only this file talks to the
// core (poll, client, settings), so the screens hold no rules of their own.
import { computed, signal } from '@preact/signals';
import { actionBody, describeDelivery, type PipActionName } from '../../../core/actions.ts';
import { createPipClient, type PipClient, type StateAnswer } from '../../../core/pip-client.ts';
import { normalizePairingCode } from '../../../core/pairing-code.ts';
import { isLoopbackServer, normalizeServerUrl } from '../../../core/server-url.ts';
import { formatRemaining, remainingMsAt, startRenderTick } from '../../../core/render-tick.ts';
import {
  loadSettings,
  saveAutoStart,
  savePairingCode,
  saveServerUrl,
  type CompanionSettings,
} from '../../../core/settings.ts';
import { PHASE_END_SHOWN_MS, PhaseEndWatcher, type PhoneEnd } from '../../../core/phase-end.ts';
import { isSessionRunning } from '../../../core/snapshot.ts';
import { startStatePoller, type PollerView, type StatePoller } from '../../../core/state-poller.ts';
import { playChime, primeChime } from '../platform/chime.ts';
import type { Platform } from '../platform/platform.ts';

export type Tone = 'neutral' | 'success' | 'warning' | 'danger';

export interface Notice {
  text: string;
  tone: Tone;
  /** Increments on every notice, so the same text twice still announces and animates. */
  serial: number;
}

export type FieldResult = { ok: true } | { ok: false; message: string };

export type ConnectionTest = { ok: true; text: string } | { ok: false; text: string };

/** The phase-end vibration: long, short, long, so it is told apart from a tap's buzz. */
export const PHASE_END_VIBRATION = [300, 120, 300];

/** After an action, ask for the snapshot again this soon: the page applies it and posts its new state. */
export const REFRESH_AFTER_ACTION_MS = 250;

export function createCompanion(platform: Platform) {
  const settings = signal<CompanionSettings | undefined>(undefined);
  const poll = signal<PollerView>({
    snapshot: undefined,
    offline: false,
    problem: undefined,
    consecutiveFailures: 0,
    nextPollAt: undefined,
  });
  const now = signal(Date.now());
  const notice = signal<Notice | undefined>(undefined);
  const sending = signal<PipActionName | undefined>(undefined);
  /** The latest phase end announced, shown on the face for a while. */
  const phaseEnded = signal<PhoneEnd | undefined>(undefined);
  const phaseEnds = new PhaseEndWatcher();
  let serial = 0;
  let client: PipClient | undefined;
  let poller: StatePoller | undefined;
  let stopTick: (() => void) | undefined;
  let stopResume: (() => void) | undefined;
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;

  const snapshot = computed(() => poll.value.snapshot);
  const remainingMs = computed(() => (snapshot.value ? remainingMsAt(snapshot.value, now.value) : undefined));
  /** Changes once a second although the tick runs every 40 ms, so the face re-renders only then. */
  const displayTime = computed(() =>
    remainingMs.value === undefined ? undefined : formatRemaining(remainingMs.value),
  );
  const sessionRunning = computed(() => isSessionRunning(snapshot.value));
  const needsPairing = computed(() => poll.value.problem?.kind === 'pairing');
  /** The end to show now ("Focus phase over"), until PHASE_END_SHOWN_MS after it or a pause or a new session. */
  const endShown = computed(() => {
    const end = phaseEnded.value;
    return end && now.value - end.endedAtMs < PHASE_END_SHOWN_MS ? end : undefined;
  });

  /** Every tick and snapshot: a phase that just ended buzzes, chimes and shows. */
  function watchPhaseEnd(time: number): void {
    const end = phaseEnds.check(poll.value.snapshot, time);
    if (!end) return;
    phaseEnded.value = end;
    navigator.vibrate?.(PHASE_END_VIBRATION);
    playChime();
  }

  function say(text: string, tone: Tone): void {
    notice.value = { text, tone, serial: ++serial };
  }

  function connect(current: CompanionSettings): void {
    poller?.stop();
    client = createPipClient({ serverUrl: current.serverUrl, pairingCode: current.pairingCode, fetch: platform.fetch });
    const activeClient = client;
    poller = startStatePoller({
      getState: (after) => activeClient.getState(after),
      loopback: isLoopbackServer(current.serverUrl),
      networkAvailable: () => platform.networkAvailable(),
      onChange: (view) => (poll.value = view),
    });
  }

  async function start(initialPairingCode?: string): Promise<void> {
    let loaded = await loadSettings(platform.storage, { serverUrl: platform.defaultServerUrl });
    // A stored server this platform cannot reach (a browser: another origin) gives way to the default.
    if (platform.serverUrlProblem(loaded.serverUrl)) loaded = { ...loaded, serverUrl: platform.defaultServerUrl };
    if (initialPairingCode) {
      const saved = await savePairingCode(platform.storage, initialPairingCode);
      if (saved.ok) loaded = { ...loaded, pairingCode: saved.code };
    }
    settings.value = loaded;
    connect(loaded);
    stopTick = startRenderTick((time) => {
      now.value = time;
      watchPhaseEnd(time);
    });
    stopResume = platform.onResume(() => poller?.pollNow());
  }

  function stop(): void {
    poller?.stop();
    stopTick?.();
    stopResume?.();
    if (refreshTimer !== undefined) clearTimeout(refreshTimer);
  }

  async function sendAction(action: PipActionName, target?: number): Promise<boolean> {
    const body = actionBody(action, target);
    if (!body.ok) {
      say(body.message, 'warning');
      return false;
    }
    if (!client) return false;
    primeChime();
    sending.value = action;
    const answer = await client.sendAction(body.body);
    sending.value = undefined;
    switch (answer.kind) {
      case 'accepted':
        say(describeDelivery(answer.delivered), answer.delivered === 0 ? 'warning' : 'success');
        if (answer.delivered > 0) navigator.vibrate?.(12);
        // The page applies the action and posts its new snapshot; fetch it a moment later.
        if (refreshTimer !== undefined) clearTimeout(refreshTimer);
        refreshTimer = setTimeout(() => poller?.pollNow(), REFRESH_AFTER_ACTION_MS);
        return answer.delivered > 0;
      case 'unreachable':
        say(`Not sent: ${answer.message}`, 'danger');
        poller?.pollNow();
        return false;
      case 'pairing':
        say('Not sent: enter the pairing code shown on the focus page.', 'danger');
        poller?.pollNow();
        return false;
      default:
        say(`Not sent: ${answer.message}`, 'danger');
        return false;
    }
  }

  async function updateSettings(next: CompanionSettings): Promise<void> {
    const reconnect = next.serverUrl !== settings.value?.serverUrl || next.pairingCode !== settings.value?.pairingCode;
    settings.value = next;
    if (reconnect) connect(next);
  }

  async function saveServer(input: string): Promise<FieldResult> {
    const checked = normalizeServerUrl(input);
    if (!checked.ok) return checked;
    const problem = platform.serverUrlProblem(checked.url);
    if (problem) return { ok: false, message: problem };
    const saved = await saveServerUrl(platform.storage, checked.url);
    if (!saved.ok) return saved;
    if (settings.value) await updateSettings({ ...settings.value, serverUrl: saved.url });
    return { ok: true };
  }

  async function savePairing(input: string): Promise<FieldResult> {
    const saved = await savePairingCode(platform.storage, input);
    if (!saved.ok) return saved;
    if (settings.value) await updateSettings({ ...settings.value, pairingCode: saved.code });
    return { ok: true };
  }

  async function setAutoStart(on: boolean): Promise<void> {
    await saveAutoStart(platform.storage, on);
    if (settings.value) settings.value = { ...settings.value, autoStart: on };
  }

  /** Asks the typed server (not yet saved) for the timer, and says plainly what came back. */
  async function testConnection(serverInput: string, codeInput: string): Promise<ConnectionTest> {
    const checked = normalizeServerUrl(serverInput);
    if (!checked.ok) return { ok: false, text: checked.message };
    const problem = platform.serverUrlProblem(checked.url);
    if (problem) return { ok: false, text: problem };
    const code = codeInput.trim() === '' ? null : (normalizePairingCode(codeInput) ?? null);
    const probe = createPipClient({ serverUrl: checked.url, pairingCode: code, fetch: platform.fetch });
    const started = performance.now();
    const answer: StateAnswer = await probe.getState();
    const ms = Math.round(performance.now() - started);
    switch (answer.kind) {
      case 'snapshot': {
        const page =
          answer.snapshot.updatedAt === null
            ? 'no focus page has reported yet'
            : isSessionRunning(answer.snapshot)
              ? 'a session is running'
              : 'the focus page is open';
        return { ok: true, text: `Connected in ${ms} ms: ${page}.` };
      }
      case 'pairing':
        return {
          ok: false,
          text:
            answer.reason === 'pairing_required'
              ? 'Connected, but this server needs the pairing code from the focus page.'
              : 'Connected, but the pairing code is not right.',
        };
      default:
        return { ok: false, text: answer.message };
    }
  }

  return {
    platform,
    settings,
    poll,
    now,
    notice,
    sending,
    snapshot,
    remainingMs,
    displayTime,
    sessionRunning,
    needsPairing,
    endShown,
    start,
    stop,
    sendAction,
    saveServer,
    savePairing,
    setAutoStart,
    testConnection,
  };
}

export type Companion = ReturnType<typeof createCompanion>;
