// The companion's only two requests: GET /api/pip/state and POST /api/pip/action. Every answer is
// sorted into what the screen needs to know: a snapshot or a delivery, the server unreachable (the
// offline badge), a pairing problem (ask for the code) or a rate limit (wait). fetch is passed in:
// the browser's own, or the Android app's, which CapacitorHttp routes through the native stack so
// plain-HTTP servers on the LAN work from the web view.
import { actionAccepted } from '#contracts/phone-actions.ts';
import { PIP_CODE_HEADER } from '#contracts/pip-pairing.ts';
import { parseTimerSnapshot, type TimerSnapshot } from '#contracts/timer-snapshot.ts';
import type { ActionBody } from './actions.ts';

export const REQUEST_TIMEOUT_MS = 4_000;
/** The answer header of a server that holds state requests until the snapshot changes. */
const WAIT_HEADER = 'x-pip-wait-ms';
export const PAIRING_CODE_HEADER = PIP_CODE_HEADER;

export interface FetchResponseLike {
  status: number;
  headers: { get(name: string): string | null };
  json(): Promise<unknown>;
}

export type FetchLike = (
  url: string,
  init: {
    method: 'GET' | 'POST';
    headers: Record<string, string>;
    body?: string;
    signal: AbortSignal;
    cache?: 'no-store';
  },
) => Promise<FetchResponseLike>;

export type PairingProblem = 'pairing_required' | 'pairing_code_invalid';

export type Failure =
  | { kind: 'unreachable'; message: string }
  | { kind: 'pairing'; reason: PairingProblem; message: string }
  | { kind: 'rate_limited'; retryAfterMs: number; message: string }
  | { kind: 'refused'; status: number; message: string };

/**
 * `waited`: the server held the request until the snapshot changed or its wait ran out (a server
 * that knows the long poll says so in x-pip-wait-ms), so the next request may go at once.
 */
export type StateAnswer = { kind: 'snapshot'; snapshot: TimerSnapshot; waited?: boolean } | Failure;
export type ActionAnswer = { kind: 'accepted'; delivered: number; id: number } | Failure;

export interface PipClient {
  readonly serverUrl: string;
  /** With `after` (the updatedAt shown, 0 for none), a server that can waits for a newer snapshot. */
  getState(after?: number): Promise<StateAnswer>;
  sendAction(body: ActionBody): Promise<ActionAnswer>;
}

export interface PipClientOptions {
  serverUrl: string;
  pairingCode: string | null;
  fetch: FetchLike;
  timeoutMs?: number;
}

function errorOf(body: unknown): { error?: string; message?: string } {
  return typeof body === 'object' && body !== null ? (body as { error?: string; message?: string }) : {};
}

async function readJson(response: FetchResponseLike): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

export function createPipClient({
  serverUrl,
  pairingCode,
  fetch,
  timeoutMs = REQUEST_TIMEOUT_MS,
}: PipClientOptions): PipClient {
  const headers: Record<string, string> = pairingCode ? { [PAIRING_CODE_HEADER]: pairingCode } : {};

  async function request(
    path: string,
    method: 'GET' | 'POST',
    body?: string,
  ): Promise<{ response: FetchResponseLike; json: unknown } | Failure> {
    const controller = new AbortController();
    // Some fetch implementations (a native bridge) may ignore the signal: the race ends the wait anyway.
    const timedOut = new Promise<never>((_resolve, reject) =>
      controller.signal.addEventListener('abort', () => reject(new Error('timeout'))),
    );
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      const exchange = (async () => {
        const response = await fetch(`${serverUrl}${path}`, {
          method,
          headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
          signal: controller.signal,
          cache: 'no-store',
          ...(body === undefined ? {} : { body }),
        });
        return { response, json: await readJson(response) };
      })();
      exchange.catch(() => {});
      return await Promise.race([exchange, timedOut]);
    } catch {
      return {
        kind: 'unreachable',
        message: controller.signal.aborted
          ? `${serverUrl} did not answer within ${timeoutMs / 1000} s.`
          : `Cannot reach ${serverUrl}.`,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  function failureOf(response: FetchResponseLike, json: unknown): Failure {
    const { error, message } = errorOf(json);
    if (response.status === 401 && (error === 'pairing_required' || error === 'pairing_code_invalid')) {
      return {
        kind: 'pairing',
        reason: error,
        message: message ?? 'This server needs the pairing code of a focus page.',
      };
    }
    if (response.status === 429) {
      const seconds = Number(response.headers.get('retry-after'));
      return {
        kind: 'rate_limited',
        retryAfterMs: Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 60_000,
        message: message ?? 'Too many attempts; waiting before trying again.',
      };
    }
    if (response.status >= 500 || response.status === 404) {
      return { kind: 'unreachable', message: `${serverUrl} answered ${response.status}: is it a studyhall server?` };
    }
    return {
      kind: 'refused',
      status: response.status,
      message: message ?? `The server refused the request (${response.status}).`,
    };
  }

  return {
    serverUrl,
    async getState(after) {
      const result = await request(after === undefined ? '/api/pip/state' : `/api/pip/state?after=${after}`, 'GET');
      if ('kind' in result) return result;
      if (result.response.status !== 200) return failureOf(result.response, result.json);
      const snapshot = parseTimerSnapshot(result.json);
      const waited = after !== undefined && Number(result.response.headers.get(WAIT_HEADER)) > 0;
      return snapshot
        ? { kind: 'snapshot', snapshot, ...(waited ? { waited } : {}) }
        : { kind: 'unreachable', message: `${serverUrl} does not answer like a studyhall server.` };
    },
    async sendAction(body) {
      const result = await request('/api/pip/action', 'POST', JSON.stringify(body));
      if ('kind' in result) return result;
      if (result.response.status !== 202 && result.response.status !== 200)
        return failureOf(result.response, result.json);
      const answer = actionAccepted.safeParse(result.json);
      if (!answer.success)
        return { kind: 'unreachable', message: `${serverUrl} does not answer like a studyhall server.` };
      return { kind: 'accepted', delivered: answer.data.delivered, id: answer.data.id };
    },
  };
}
