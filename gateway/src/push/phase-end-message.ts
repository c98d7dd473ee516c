// What a phase-end outbox row holds (queued by community_schedule_phase_end for the end of a
// student's focus or break phase), and the message her service worker receives for it.
import { z } from 'zod';

export const phaseEndPayloadSchema = z.object({
  type: z.literal('phase_end'),
  /** The phase that ended. */
  phase: z.enum(['focus', 'break']),
  ends_at: z.string(),
});

export type PhaseEndPayload = z.infer<typeof phaseEndPayloadSchema>;

export interface PhaseEndMessage extends PhaseEndPayload {
  url: string;
}

export function phaseEndMessage(payload: PhaseEndPayload): PhaseEndMessage {
  return { ...payload, url: '/focus' };
}

/** One undelivered phase end replaces another at the push service: only the latest matters. */
export const PHASE_END_TOPIC = 'phase-end';

/** A phase end heard ten minutes late is noise: the push service drops it after that. */
export const PHASE_END_TTL_SECONDS = 600;
