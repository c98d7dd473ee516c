// One private Realtime channel that the gateways fronting one hosted project share for their
// events, joined with the service key: hosted Realtime authorizes a private channel by the RLS
// policies on realtime.messages, which no student's role passes for this topic and which the
// service role bypasses, so students can neither hear nor send on it. realtime-js keeps the socket
// up and joins again after a drop; each join after the first is reported, as events may have been
// missed meanwhile.
import { RealtimeClient, type RealtimeChannel } from '@supabase/supabase-js';
import ws from 'ws';
import type { SharedStateLog } from './shared-state.ts';

/** The topic of the gateways' events (private: only the service role may join it). */
export const GATEWAY_TOPIC = 'studyhall-gateway';
/** The broadcast event name the gateways send and listen for. */
export const GATEWAY_BROADCAST_EVENT = 'gateway-event';

export interface RealtimeBroadcastOptions {
  /** The backend's base URL (https://<project>.supabase.co, or localbase's). */
  backendUrl: string;
  serviceRoleKey: string;
  onMessage: (payload: unknown) => void;
  /** Joined again after the channel or its socket was lost. */
  onResumed: () => void;
  log: SharedStateLog;
}

export class RealtimeBroadcast {
  private readonly client: RealtimeClient;
  private readonly channel: RealtimeChannel;
  private joinedOnce = false;
  private failing = false;
  private resolveFirst: () => void = () => {};
  private readonly firstJoin = new Promise<void>((resolve) => {
    this.resolveFirst = resolve;
  });

  constructor(private readonly options: RealtimeBroadcastOptions) {
    const endpoint = `${options.backendUrl.replace(/\/+$/, '').replace(/^http/, 'ws')}/realtime/v1`;
    this.client = new RealtimeClient(endpoint, {
      params: { apikey: options.serviceRoleKey },
      transport: ws as never,
      logLevel: 'error',
    });
    this.channel = this.client.channel(GATEWAY_TOPIC, {
      config: { private: true, broadcast: { self: false, ack: false } },
    });
    this.channel.on('broadcast', { event: GATEWAY_BROADCAST_EVENT }, (message) => options.onMessage(message.payload));
  }

  /** Joins the topic; resolves once joined (realtime-js retries until then). */
  async start(): Promise<void> {
    await this.client.setAuth(this.options.serviceRoleKey);
    this.channel.subscribe((status, error) => {
      if (status === 'SUBSCRIBED') {
        if (this.failing) this.options.log.info({ topic: GATEWAY_TOPIC }, 'shared state: joined the event topic again');
        this.failing = false;
        if (this.joinedOnce) this.options.onResumed();
        this.joinedOnce = true;
        this.resolveFirst();
        return;
      }
      if (!this.failing)
        this.options.log.warn(
          { err: error, status, topic: GATEWAY_TOPIC },
          'shared state: the event topic was lost; realtime joins it again',
        );
      this.failing = true;
    });
    return this.firstJoin;
  }

  send(payload: object): void {
    this.channel
      .send({ type: 'broadcast', event: GATEWAY_BROADCAST_EVENT, payload })
      .then((answer) => {
        if (answer !== 'ok') this.options.log.warn({ answer }, 'shared state: an event could not be sent');
      })
      .catch((error: unknown) => this.options.log.warn({ err: error }, 'shared state: an event could not be sent'));
  }

  async close(): Promise<void> {
    this.resolveFirst();
    await this.client.removeAllChannels().catch(() => {});
    this.client.disconnect();
  }
}
