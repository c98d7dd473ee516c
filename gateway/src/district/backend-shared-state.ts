// The shared state of gateways that front a hosted project (BACKEND_URL, SHARED_STATE=backend):
// they have no connection to its database, only its APIs. Calls go to the same `gateway_*`
// functions through the Data API (`/rest/v1/rpc/...`) with the service key, which alone may
// execute them; events go through the project's Realtime, as broadcasts on a private topic
// (realtime-broadcast.ts). The project needs the migrations (community-patch-v6.sql holds them).
import { BackendClient, type BackendTarget } from '../backend/backend-client.ts';
import { RealtimeBroadcast } from './realtime-broadcast.ts';
import type { SharedStateFunction, SharedStateLog, WireEvent } from './shared-state.ts';
import { SharedStateEvents } from './shared-state-events.ts';

const SERVICE = { serviceRole: true } as const;

export class BackendSharedState extends SharedStateEvents {
  readonly kind = 'backend';
  private readonly backend: BackendClient;
  private readonly broadcast: RealtimeBroadcast;
  private readonly joined: Promise<void>;

  constructor(target: BackendTarget & { serviceRoleKey: string }, log: SharedStateLog) {
    super(log);
    this.backend = new BackendClient(target);
    this.broadcast = new RealtimeBroadcast({
      backendUrl: target.url,
      serviceRoleKey: target.serviceRoleKey,
      onMessage: (payload) => this.heard(payload),
      onResumed: () => this.resumed(),
      log,
    });
    this.joined = this.broadcast.start();
  }

  call(name: SharedStateFunction, args: Record<string, unknown>): Promise<unknown> {
    return this.backend.rpc(name, args, SERVICE);
  }

  ready(): Promise<void> {
    return this.joined;
  }

  close(): Promise<void> {
    return this.broadcast.close();
  }

  protected send(event: WireEvent): void {
    this.broadcast.send(event);
  }
}
