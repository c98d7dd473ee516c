// The five remote actions and the body POST /api/pip/action takes for each. A target is a whole
// number from 1 to 10000 (the server refuses anything else, so the phone says so before sending).

export const PIP_ACTIONS = ['correct', 'incorrect', 'skip', 'undo', 'target'] as const;
export type PipActionName = (typeof PIP_ACTIONS)[number];
export const MAX_TARGET = 10_000;

export type ActionBody = { action: Exclude<PipActionName, 'target'> } | { action: 'target'; target: number };

export type ActionBodyResult = { ok: true; body: ActionBody } | { ok: false; message: string };

export function actionBody(action: PipActionName, target?: number): ActionBodyResult {
  if (action !== 'target') return { ok: true, body: { action } };
  if (target === undefined || !Number.isInteger(target) || target < 1 || target > MAX_TARGET) {
    return { ok: false, message: `A target is a whole number from 1 to ${MAX_TARGET}.` };
  }
  return { ok: true, body: { action, target } };
}

/** What the phone says after the server took an action, from the answer's delivered count. */
export function describeDelivery(delivered: number): string {
  if (delivered === 0) return 'No focus page open: nothing changed.';
  if (delivered === 1) return 'Sent to the focus page.';
  return `Sent to ${delivered} focus pages.`;
}
