// What a claimed outbox row holds, and the message a browser's service worker receives for it.
import { z } from 'zod';

export const startAlertPayloadSchema = z.object({
  type: z.literal('start_alert'),
  actor: z.object({ id: z.uuid(), handle: z.string().nullable() }),
  target_type: z.enum(['buddy', 'group']),
  target_id: z.uuid(),
  started_at: z.string(),
  // Present only when the actor shares their current subject (null otherwise).
  subject: z.string().nullable().optional(),
});

export type StartAlertPayload = z.infer<typeof startAlertPayloadSchema>;

/** The service worker's message: the outbox payload plus the page a click should open. */
export interface StartAlertMessage extends StartAlertPayload {
  subject: string | null;
  url: string;
}

export function startAlertMessage(payload: StartAlertPayload): StartAlertMessage {
  return {
    ...payload,
    subject: payload.subject ?? null,
    url: payload.target_type === 'group' ? `/groups/${payload.target_id}` : '/buddies',
  };
}

/**
 * Pushes about the same actor replace each other at the push service while undelivered (a phone
 * that was off shows one "started studying", not five). A topic is at most 32 URL-safe characters:
 * the actor's id without dashes is exactly that.
 */
export function startAlertTopic(payload: StartAlertPayload): string {
  return payload.actor.id.replace(/-/g, '');
}
