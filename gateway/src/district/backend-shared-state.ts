// The shared state of gateways that front a hosted project (BACKEND_URL, SHARED_STATE=backend):
// they have no connection to its database, only its APIs. Calls go to the same `gateway_*`
// functions through the Data API (`/rest/v1/rpc/...`) with the service key, which alone may
// execute them; events go through the project's Realtime, as broadcasts on a private topic
// (realtime-broadcast.ts). The project needs the migrations (community-patch-v6.sql holds them).
import { randomUUID } from 'node:crypto';
import { BackendClient, type BackendTarget } from '../backend/backend-client.ts';
import { RealtimeBroadcast } from './realtime-broadcast.ts';
import {
  decodeEvent,
  encodeEvent,
  SharedStateListeners,
  type SharedEvent,
  type SharedState,
  type SharedStateFunction,
  type SharedStateListener,
  type SharedStateLog,
} from './shared-state.ts';

const SERVICE = { serviceRole: true } as const;

export class BackendSharedState implements SharedState {
  readonly kind = 'backend';
  readonly serverId = randomUUID();
  private readonly backend: BackendClient;
  private readonly listeners: SharedStateListeners;
  private readonly broadcast: RealtimeBroadcast;
  private readonly joined: Promise<void>;

  constructor(target: BackendTarget & { serviceRoleKey: string }, log: SharedStateLog) {
    this.backend = new BackendClient(target);
    this.listeners = new SharedStateListeners(log);
    this.broadcast = new RealtimeBroadcast({
      backendUrl: target.url,
      serviceRoleKey: target.serviceRoleKey,
      onMessage: (payload) => this.heard(payload),
      onResumed: () => this.listeners.emit({ kind: 'resync' }),
      log,
    });
    this.joined = this.broadcast.start();
  }

  call(name: SharedStateFunction, args: Record<string, unknown>): Promise<unknown> {
    return this.backend.rpc(name, args, SERVICE);
  }

  publish(event: SharedEvent): void {
    queueMicrotask(() => this.listeners.emit(event));
    this.broadcast.send(encodeEvent(this.serverId, event));
  }

  subscribe(listener: SharedStateListener): () => void {
    return this.listeners.add(listener);
  }

  ready(): Promise<void> {
    return this.joined;
  }

  close(): Promise<void> {
    return this.broadcast.close();
  }

  private heard(payload: unknown): void {
    const decoded = decodeEvent(payload);
    if (!decoded || decoded.from === this.serverId) return;
    this.listeners.emit(decoded.event);
  }
}
