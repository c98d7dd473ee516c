// Decides whether this gateway delivers start alerts, and with which VAPID keys:
//   - VAPID_* set: those keys, whatever the backend;
//   - localbase in this process: keys generated once in DATA_DIR; servers that share a database (a
//     district) all sign with the pair the first of them stored there (gateway_push_identity);
//   - a hosted backend without VAPID_*: no push. Several gateways may front one hosted project and
//     a browser's subscription only accepts pushes signed with the key it subscribed with, so the
//     keys must be named, not generated per machine.
// The worker also needs the service key (the delivery RPCs are service-role only). Without it the
// public key is still served (another gateway may deliver) and the gateway says once why it does not.
import { BackendClient, type BackendTarget } from '../backend/backend-client.ts';
import type { GatewayConfig } from '../config.ts';
import { z } from 'zod';
import type { SharedState } from '../district/shared-state.ts';
import { OutboxClient } from './outbox-client.ts';
import { PushWorker, type PushLog, type PushWorkerSettings } from './push-worker.ts';
import { defaultVapidSubject, loadOrCreateVapidKeys, type VapidKeys } from './vapid-keys.ts';

export type VapidResolution =
  { ok: true; keys: VapidKeys; source: 'environment' | 'data_dir' | 'shared_state' } | { ok: false; reason: string };

const storedIdentity = z.object({ public_key: z.string(), private_key: z.string(), subject: z.string() });

export interface PushServiceOptions {
  config: GatewayConfig;
  backend: BackendTarget;
  log: PushLog;
  /** Worker overrides (tests and benchmarks: plain-HTTP receivers, short polls and backoff). */
  settings?: Partial<PushWorkerSettings>;
  /** The state the servers of a district share: the VAPID identity comes from it. */
  sharedState?: SharedState;
}

export class PushService {
  private resolution: Promise<VapidResolution> | undefined;
  private worker: PushWorker | undefined;
  private starting: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: PushServiceOptions) {}

  /** The VAPID keys, resolved (and for localbase generated) on first use. */
  vapidKeys(): Promise<VapidResolution> {
    this.resolution ??= this.resolveVapidKeys();
    return this.resolution;
  }

  private async resolveVapidKeys(): Promise<VapidResolution> {
    const { config } = this.options;
    if (config.vapid) return { ok: true, keys: config.vapid, source: 'environment' };
    if (config.backend) {
      return {
        ok: false,
        reason: 'a hosted backend needs VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT for Web Push',
      };
    }
    try {
      const keys = await loadOrCreateVapidKeys(config.dataDir, defaultVapidSubject(config.admin.emails));
      if (!this.options.sharedState) return { ok: true, keys, source: 'data_dir' };
      // This DATA_DIR's pair is an offer: the first server's stored pair wins, for every server.
      const stored = storedIdentity.parse(
        await this.options.sharedState.call('gateway_push_identity', {
          p_public_key: keys.publicKey,
          p_private_key: keys.privateKey,
          p_subject: keys.subject,
        }),
      );
      return {
        ok: true,
        keys: { publicKey: stored.public_key, privateKey: stored.private_key, subject: stored.subject },
        source: 'shared_state',
      };
    } catch (error) {
      this.options.log.error({ err: error }, 'push: cannot read or create the VAPID keys');
      return { ok: false, reason: 'the VAPID keys cannot be read (the server log says why)' };
    }
  }

  /** Starts delivering when keys and the service key allow it; otherwise logs why, once. */
  start(): Promise<void> {
    this.starting ??= (async () => {
      const vapid = await this.vapidKeys();
      if (this.stopped) return;
      if (!vapid.ok) {
        this.options.log.warn({ reason: vapid.reason }, `push: start alerts are not delivered: ${vapid.reason}`);
        return;
      }
      if (!this.options.backend.serviceRoleKey) {
        this.options.log.warn(
          {},
          'push: start alerts are not delivered: the delivery needs the service key (set BACKEND_SERVICE_ROLE_KEY)',
        );
        return;
      }
      const outbox = new OutboxClient(new BackendClient(this.options.backend));
      const settings = { allowPlainHttp: this.options.config.pushAllowPlainHttp ?? false, ...this.options.settings };
      this.worker = new PushWorker(outbox, vapid.keys, this.options.log, settings);
      this.worker.start();
      this.options.log.info({ vapid_keys: vapid.source }, 'push: delivering start alerts');
    })();
    return this.starting;
  }

  /** The delivery loop, once started (undefined when push is off). */
  get activeWorker(): PushWorker | undefined {
    return this.worker;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.starting;
    await this.worker?.stop();
  }
}
