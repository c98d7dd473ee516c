// The start-alert delivery loop. On its own timer it claims a batch of due outbox rows (leased to
// this gateway, so another gateway on the same database takes other rows), sends each as Web Push
// with bounded concurrency and a deadline per push, and settles every row: sent, retried later
// with backoff, given up, or its token removed when the push service says the subscription is
// gone. Nothing here runs inside a request, so requests never wait for it.
//
// Delivery is at least once: a gateway that dies after sending but before marking a row sent sends
// it again after the lease. stop() lets pushes already on the wire finish and be settled, and hands
// rows it had not started back to the queue at once.
import type { OutboxClient, Claim, ClaimedRow } from './outbox-client.ts';
import { parsePushToken } from './push-subscription.ts';
import { startAlertMessage, startAlertPayloadSchema, startAlertTopic } from './start-alert-message.ts';
import { PHASE_END_TOPIC, PHASE_END_TTL_SECONDS, phaseEndMessage, phaseEndPayloadSchema } from './phase-end-message.ts';
import type { HostResolver } from './public-address.ts';
import type { VapidKeys } from './vapid-keys.ts';
import { createPushAgent, sendWebPush, systemResolver, VapidSigner } from './web-push-sender.ts';

export interface PushWorkerSettings {
  /** Rows per claim. */
  batchSize: number;
  /** Pushes on the wire at once. */
  concurrency: number;
  /** Wait between claims when the last one found less than a full batch. */
  pollIntervalMs: number;
  /** How long claimed rows stay hidden from other gateways: longer than a whole batch can take. */
  leaseSeconds: number;
  /** Claims of one row before it is given up. */
  maxAttempts: number;
  /** A start alert older than this is stale and given up rather than sent. */
  maxAgeSeconds: number;
  /** How long the push service keeps a message for a device that is offline. */
  ttlSeconds: number;
  /** Deadline of one push request, connection to answer. */
  requestTimeoutMs: number;
  /** Retry n waits retryBaseSeconds * 2^(n-1), at most retryMaxSeconds (a Retry-After may ask for more). */
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  /** Plain-HTTP endpoints: only for loopback test receivers; browsers always give https. */
  allowPlainHttp: boolean;
  /** How endpoint hosts are looked up before a connection (tests play DNS with it). */
  resolveHost: HostResolver;
  /** Settled rows older than keepSettledSeconds are deleted every pruneEveryMs. */
  pruneEveryMs: number;
  keepSettledSeconds: number;
}

export const DEFAULT_PUSH_SETTINGS: PushWorkerSettings = {
  batchSize: 50,
  concurrency: 16,
  pollIntervalMs: 1000,
  leaseSeconds: 120,
  maxAttempts: 8,
  maxAgeSeconds: 3600,
  ttlSeconds: 3600,
  requestTimeoutMs: 10_000,
  retryBaseSeconds: 2,
  retryMaxSeconds: 300,
  allowPlainHttp: false,
  resolveHost: systemResolver,
  pruneEveryMs: 3600_000,
  keepSettledSeconds: 7 * 86400,
};

/** The part of pino the worker uses. */
export interface PushLog {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

export interface PushWorkerStats {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
  gone: number;
  released: number;
}

type RowResult = 'sent' | 'settled';

/** Longest wait between claims while the backend keeps failing. */
const MAX_ERROR_BACKOFF_MS = 30_000;

export class PushWorker {
  readonly settings: PushWorkerSettings;
  readonly stats: PushWorkerStats = { claimed: 0, sent: 0, retried: 0, failed: 0, gone: 0, released: 0 };
  private readonly agent;
  private readonly signer: VapidSigner;
  private timer: NodeJS.Timeout | undefined;
  private cycle: Promise<void> | undefined;
  private started = false;
  private stopping = false;
  private stopped: Promise<void> | undefined;
  private failingSince: number | undefined;
  private lastPruneAt = 0;

  constructor(
    private readonly outbox: OutboxClient,
    vapid: VapidKeys,
    private readonly log: PushLog,
    settings: Partial<PushWorkerSettings> = {},
  ) {
    this.settings = { ...DEFAULT_PUSH_SETTINGS, ...settings };
    const worstBatchMs =
      Math.ceil(this.settings.batchSize / this.settings.concurrency) * this.settings.requestTimeoutMs;
    if (this.settings.leaseSeconds * 1000 <= worstBatchMs) {
      // A lease shorter than a batch could let another gateway re-claim rows still being sent.
      throw new Error(
        `push: leaseSeconds (${this.settings.leaseSeconds}) must exceed a whole batch's worst time (${worstBatchMs} ms)`,
      );
    }
    this.agent = createPushAgent(this.settings.concurrency, {
      resolve: this.settings.resolveHost,
      allowPlainHttpLoopback: this.settings.allowPlainHttp,
    });
    this.signer = new VapidSigner(vapid);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    this.schedule(0);
  }

  /** Stops claiming; pushes already on the wire finish and are settled, unstarted rows are released. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.stopping = true;
      if (this.timer) clearTimeout(this.timer);
      await this.cycle;
      await this.agent.close();
    })();
    return this.stopped;
  }

  private schedule(delayMs: number): void {
    if (this.stopping) return;
    this.timer = setTimeout(() => {
      this.cycle = this.runCycle().finally(() => {
        this.cycle = undefined;
      });
    }, delayMs);
    // The server keeps the process alive; an idle worker alone should not.
    this.timer.unref();
  }

  private async runCycle(): Promise<void> {
    let nextDelay = this.settings.pollIntervalMs;
    try {
      const claim = await this.outbox.claim(this.settings);
      this.recovered();
      this.stats.claimed += claim.rows.length;
      if (claim.rows.length > 0) await this.deliverClaim(claim);
      // A full batch means more rows are probably due: claim again at once.
      if (claim.rows.length + claim.given_up >= this.settings.batchSize) nextDelay = 0;
      await this.pruneWhenDue();
    } catch (error) {
      nextDelay = this.failed(error);
    }
    this.schedule(nextDelay);
  }

  private async deliverClaim(claim: Claim): Promise<void> {
    const queue = [...claim.rows];
    const sentIds: string[] = [];
    // Once stopping, no lane starts another row; what is left in the queue is released below.
    const next = () => (this.stopping ? undefined : queue.shift());
    const lane = async () => {
      for (let row = next(); row; row = next()) {
        if ((await this.deliverRow(claim.claim_id, row)) === 'sent') sentIds.push(row.id);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.settings.concurrency, queue.length) }, lane));
    // One call settles every success of the batch.
    if (sentIds.length > 0) {
      await this.settle(
        () => this.outbox.markSent(claim.claim_id, sentIds),
        { rows: sentIds.length },
        'marking pushes sent failed; they will be sent again after the lease',
      );
      this.stats.sent += sentIds.length;
    }
    if (queue.length > 0) {
      const ids = queue.map((row) => row.id);
      await this.settle(
        () => this.outbox.release(claim.claim_id, ids),
        { rows: ids.length },
        'releasing unsent rows failed; they return after the lease',
      );
      this.stats.released += ids.length;
    }
  }

  private async deliverRow(claimId: string, row: ClaimedRow): Promise<RowResult> {
    const push = this.messageOf(row.payload);
    if (!push)
      return this.giveUp(claimId, row, 'unsupported_payload: not a start alert or phase end this gateway can send');
    const token = parsePushToken(row.token, { allowPlainHttp: this.settings.allowPlainHttp });
    if (!token.ok) return this.giveUp(claimId, row, `invalid_subscription: ${token.reason}`);
    const { subscription } = token;
    if (subscription.expirationTime != null && subscription.expirationTime < Date.now()) {
      return this.removeToken(claimId, row, 'subscription_expired: the browser said it expires before now');
    }
    const outcome = await sendWebPush(subscription, JSON.stringify(push.message), {
      vapid: this.signer,
      ttlSeconds: Math.min(this.settings.ttlSeconds, push.ttlSeconds ?? this.settings.ttlSeconds),
      topic: push.topic,
      timeoutMs: this.settings.requestTimeoutMs,
      dispatcher: this.agent,
    });
    const where = { row: row.id, attempt: row.attempts, push_service: new URL(subscription.endpoint).origin };
    switch (outcome.kind) {
      case 'sent':
        return 'sent';
      case 'gone':
        return this.removeToken(claimId, row, outcome.error);
      case 'failed':
        this.log.warn({ ...where, status: outcome.status, error: outcome.error }, 'push refused; giving the alert up');
        return this.giveUp(claimId, row, outcome.error);
      case 'retry': {
        if (row.attempts >= this.settings.maxAttempts) {
          this.log.warn({ ...where, error: outcome.error }, 'push failed on its last attempt; giving the alert up');
          return this.giveUp(claimId, row, outcome.error);
        }
        const retryAfter = this.retryDelaySeconds(row.attempts, outcome.retryAfterSeconds);
        await this.settle(
          () => this.outbox.markFailed(claimId, row.id, outcome.error, retryAfter),
          where,
          'scheduling a push retry failed',
        );
        this.stats.retried += 1;
        return 'settled';
      }
    }
  }

  /** The message, topic and lifetime of a row's payload, or undefined for a kind this gateway cannot send. */
  private messageOf(payload: unknown): { message: object; topic: string; ttlSeconds?: number } | undefined {
    const startAlert = startAlertPayloadSchema.safeParse(payload);
    if (startAlert.success)
      return { message: startAlertMessage(startAlert.data), topic: startAlertTopic(startAlert.data) };
    const phaseEnd = phaseEndPayloadSchema.safeParse(payload);
    if (phaseEnd.success)
      return { message: phaseEndMessage(phaseEnd.data), topic: PHASE_END_TOPIC, ttlSeconds: PHASE_END_TTL_SECONDS };
    return undefined;
  }

  /** Exponential backoff with jitter, so rows that failed together do not all come back together. */
  retryDelaySeconds(attempts: number, retryAfterSeconds: number | undefined): number {
    const { retryBaseSeconds, retryMaxSeconds, maxAgeSeconds } = this.settings;
    const backoff = Math.min(retryMaxSeconds, retryBaseSeconds * 2 ** Math.max(0, attempts - 1));
    const jittered = Math.min(retryMaxSeconds, Math.max(1, Math.round(backoff * (0.75 + Math.random() * 0.5))));
    return Math.min(maxAgeSeconds, Math.max(jittered, retryAfterSeconds ?? 0));
  }

  private async giveUp(claimId: string, row: ClaimedRow, error: string): Promise<RowResult> {
    await this.settle(
      () => this.outbox.markFailed(claimId, row.id, error, undefined),
      { row: row.id },
      'giving a push up failed',
    );
    this.stats.failed += 1;
    return 'settled';
  }

  private async removeToken(claimId: string, row: ClaimedRow, error: string): Promise<RowResult> {
    await this.settle(
      () => this.outbox.removeToken(claimId, row.id, error),
      { row: row.id },
      'removing a gone push token failed',
    );
    this.stats.gone += 1;
    return 'settled';
  }

  /** A settling call that fails leaves the row to come back after its lease: logged, not thrown. */
  private async settle(call: () => Promise<unknown>, context: object, message: string): Promise<void> {
    try {
      await call();
    } catch (error) {
      this.log.warn({ ...context, err: error }, `push: ${message}`);
    }
  }

  private async pruneWhenDue(): Promise<void> {
    if (Date.now() - this.lastPruneAt < this.settings.pruneEveryMs) return;
    this.lastPruneAt = Date.now();
    const pruned = await this.outbox.prune(this.settings.keepSettledSeconds);
    if (pruned > 0) this.log.info({ rows: pruned }, 'push: pruned settled outbox rows');
  }

  /** Logs the first failure of a streak only; waits longer while the backend keeps failing. */
  private failed(error: unknown): number {
    const now = Date.now();
    if (this.failingSince === undefined) {
      this.failingSince = now;
      this.log.warn({ err: error }, 'push: claiming start alerts failed; retrying in the background');
    }
    const failingFor = now - this.failingSince;
    return Math.min(MAX_ERROR_BACKOFF_MS, Math.max(this.settings.pollIntervalMs, failingFor));
  }

  private recovered(): void {
    if (this.failingSince === undefined) return;
    this.log.info({ failing_ms: Date.now() - this.failingSince }, 'push: claiming start alerts works again');
    this.failingSince = undefined;
  }
}
