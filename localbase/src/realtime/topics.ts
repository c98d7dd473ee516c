// Who has joined each topic, for what does not come from the database: broadcast (a client's
// message relayed to the topic's other channels, as Supabase Realtime relays it) and presence
// (presence.ts). Channels of all sockets of this server meet here; a topic lives while someone
// has joined it.
import type { Frame } from './frames.ts';

export interface TopicMember {
  topic: string;
  /**
   * Where the channel meets others (roomOf): a private channel of a topic and a public one of the
   * same topic never hear each other, as in Supabase Realtime.
   */
  room: string;
  /**
   * What a private channel was authorized to receive (authorization.ts); a public channel
   * receives both.
   */
  receives: { broadcast: boolean; presence: boolean };
  joinRef: string | null;
  /** `config.broadcast.self`: whether the channel gets its own broadcasts back. */
  broadcastSelf: boolean;
  /** `config.presence`: the key it tracks under, and whether it gets presence state and diffs. */
  presence: { key: string; enabled: boolean };
  /** Sends in the member's socket's own serializer. */
  send(frame: Frame): void;
  /** When it joined: a broadcast sent from the database before then is not its. */
  joinedAt: Date;
}

/**
 * Largest broadcast payload: Supabase Realtime's limit on its free plan (256 KB). Every message is
 * copied to every channel of the topic, so the bound is on what one send can multiply.
 */
export const REALTIME_MAX_BROADCAST_BYTES = 256 * 1024;

/** What a broadcast carries to its receivers, exactly as Realtime forwards it. */
export interface BroadcastMessage {
  type: 'broadcast';
  event: string;
  payload: unknown;
}

/** The room of a channel topic: public channels meet under the topic itself, private ones apart. */
export function roomOf(topic: string, isPrivate: boolean): string {
  return isPrivate ? `private\0${topic}` : topic;
}

export class Topics {
  private readonly members = new Map<string, Set<TopicMember>>();

  add(member: TopicMember): void {
    let joined = this.members.get(member.room);
    if (!joined) {
      joined = new Set();
      this.members.set(member.room, joined);
    }
    joined.add(member);
  }

  remove(member: TopicMember): void {
    const joined = this.members.get(member.room);
    if (!joined) return;
    joined.delete(member);
    if (joined.size === 0) this.members.delete(member.room);
  }

  membersOf(room: string): ReadonlySet<TopicMember> {
    return this.members.get(room) ?? new Set();
  }

  /**
   * Relays a broadcast to the room's channels that may receive it: all but the sender, unless it
   * asked for its own; with `sentAt` (a message queued by the database), only to channels that had
   * joined by then.
   */
  broadcast(room: string, message: BroadcastMessage, sender?: TopicMember, sentAt?: Date): void {
    for (const member of this.membersOf(room)) {
      if (member === sender && !member.broadcastSelf) continue;
      if (!member.receives.broadcast) continue;
      if (sentAt !== undefined && sentAt < member.joinedAt) continue;
      member.send({ joinRef: member.joinRef, ref: null, topic: member.topic, event: 'broadcast', payload: message });
    }
  }
}

/** The serialized size of a broadcast's payload, to hold it to REALTIME_MAX_BROADCAST_BYTES. */
export function payloadBytes(payload: unknown): number {
  return Buffer.byteLength(JSON.stringify(payload) ?? '', 'utf8');
}
