// The delivery RPCs of community_notification_outbox, called with the service key through the
// backend's data API (localbase or a hosted project alike). Answers are checked with zod, so a
// backend with an older schema fails loudly instead of being misread.
import { z } from 'zod';
import type { BackendClient } from '../backend/backend-client.ts';

const claimedRowSchema = z.object({
  id: z.uuid(),
  recipient_id: z.uuid(),
  token: z.string(),
  payload: z.unknown(),
  attempts: z.number().int(),
});

const claimSchema = z.object({
  claim_id: z.uuid(),
  lease_until: z.string(),
  rows: z.array(claimedRowSchema),
  given_up: z.number().int(),
});

const failedSchema = z.object({ outcome: z.enum(['retry', 'failed', 'not_claimed']) }).loose();

export type ClaimedRow = z.infer<typeof claimedRowSchema>;
export type Claim = z.infer<typeof claimSchema>;

export interface ClaimLimits {
  batchSize: number;
  leaseSeconds: number;
  maxAttempts: number;
  maxAgeSeconds: number;
}

const SERVICE = { serviceRole: true } as const;

export class OutboxClient {
  constructor(private readonly backend: BackendClient) {}

  async claim(limits: ClaimLimits): Promise<Claim> {
    const body = await this.backend.rpc(
      'community_claim_push_batch',
      {
        p_limit: limits.batchSize,
        p_lease_seconds: limits.leaseSeconds,
        p_max_attempts: limits.maxAttempts,
        p_max_age_seconds: limits.maxAgeSeconds,
      },
      SERVICE,
    );
    return claimSchema.parse(body);
  }

  async markSent(claimId: string, ids: string[]): Promise<number> {
    return z
      .number()
      .int()
      .parse(await this.backend.rpc('community_mark_push_sent', { p_claim_id: claimId, p_ids: ids }, SERVICE));
  }

  /** retryAfterSeconds undefined gives the row up. */
  async markFailed(
    claimId: string,
    id: string,
    error: string,
    retryAfterSeconds: number | undefined,
  ): Promise<'retry' | 'failed' | 'not_claimed'> {
    const body = await this.backend.rpc(
      'community_mark_push_failed',
      { p_claim_id: claimId, p_id: id, p_error: error, p_retry_after_seconds: retryAfterSeconds ?? null },
      SERVICE,
    );
    return failedSchema.parse(body).outcome;
  }

  async removeToken(claimId: string, id: string, error: string): Promise<boolean> {
    return z
      .boolean()
      .parse(
        await this.backend.rpc(
          'community_remove_push_token',
          { p_claim_id: claimId, p_id: id, p_error: error },
          SERVICE,
        ),
      );
  }

  async release(claimId: string, ids: string[]): Promise<number> {
    return z
      .number()
      .int()
      .parse(await this.backend.rpc('community_release_push_claim', { p_claim_id: claimId, p_ids: ids }, SERVICE));
  }

  async prune(keepSeconds: number): Promise<number> {
    return z
      .number()
      .int()
      .parse(await this.backend.rpc('community_prune_push_outbox', { p_keep_seconds: keepSeconds }, SERVICE));
  }
}
