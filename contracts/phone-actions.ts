// The phone's actions (docs/api.md#timer-relay): the body of POST /api/pip/action and its answer.
// The gateway validates the body with pipAction; the companion builds its bodies through the same
// schema, so it refuses a bad target before sending, with the server's own rule.
import * as z from 'zod/mini';

/** The actions that count an attempt (or take the last one back). */
export const COUNT_ACTIONS = ['correct', 'incorrect', 'skip', 'undo'] as const;
/**
 * The actions that run the timer: start an idle session, pause a running phase, resume a paused
 * one, finish the session (the page settles it as its own Finish button does).
 */
export const TIMER_ACTIONS = ['start', 'pause', 'resume', 'finish'] as const;
/** Every action a phone may send. */
export const PIP_ACTIONS = [...COUNT_ACTIONS, ...TIMER_ACTIONS, 'target'] as const;
/** The largest target a phone may set (questions in a session). */
export const MAX_TARGET = 10_000;

export type CountActionName = (typeof COUNT_ACTIONS)[number];
export type TimerActionName = (typeof TIMER_ACTIONS)[number];
export type PipActionName = (typeof PIP_ACTIONS)[number];

/** A target: a whole number of questions from 1 to MAX_TARGET. */
export const targetValue = z.int().check(z.minimum(1), z.maximum(MAX_TARGET));

/** The body of POST /api/pip/action. */
export const pipAction = z.discriminatedUnion('action', [
  z.strictObject({ action: z.enum(COUNT_ACTIONS) }),
  z.strictObject({ action: z.enum(TIMER_ACTIONS) }),
  z.strictObject({ action: z.literal('target'), target: targetValue }),
]);

export type PipAction = z.infer<typeof pipAction>;

/** The 202 answer: how many open focus-page streams took the action, and its relay id. */
export const actionAccepted = z.object({
  accepted: z.literal(true),
  delivered: z.int().check(z.minimum(0)),
  id: z.int().check(z.positive()),
});

export type ActionAccepted = z.infer<typeof actionAccepted>;
