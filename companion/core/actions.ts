// The remote's actions and the body POST /api/pip/action takes for each, built and checked with the
// contract's schema (contracts/phone-actions.ts): a target the server would refuse (anything but a
// whole number from 1 to 10000) is refused here first, with a sentence.
import { MAX_TARGET, pipAction, type PipAction, type PipActionName } from '#contracts/phone-actions.ts';

export { MAX_TARGET, PIP_ACTIONS, type PipActionName } from '#contracts/phone-actions.ts';

export type ActionBody = PipAction;

export type ActionBodyResult = { ok: true; body: ActionBody } | { ok: false; message: string };

export function actionBody(action: PipActionName, target?: number): ActionBodyResult {
  const parsed = pipAction.safeParse(action === 'target' ? { action, target } : { action });
  if (parsed.success) return { ok: true, body: parsed.data };
  return {
    ok: false,
    message: action === 'target' ? `A target is a whole number from 1 to ${MAX_TARGET}.` : `Unknown action ${action}.`,
  };
}

/** What the phone says after the server took an action, from the answer's delivered count. */
export function describeDelivery(delivered: number): string {
  if (delivered === 0) return 'No focus page open: nothing changed.';
  if (delivered === 1) return 'Sent to the focus page.';
  return `Sent to ${delivered} focus pages.`;
}
