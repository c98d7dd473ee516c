// Who has joined each topic, for what does not come from the database: broadcast (a client's
// message relayed to the topic's other channels, as Supabase Realtime relays it) and presence
// (presence.ts). Channels of all sockets of this server meet here; a topic lives while someone
// has joined it.
//
// Every delivery to a private topic's channels first checks that each receiver's token still holds
// (channel-guard.ts): deliveries are queued, and all those queued while one check runs are checked
// together by the next, one lookup for every receiver of every private topic, then sent in the
// order they were queued. A public topic's deliveries go out at once, unchecked, as its channels
// need no token (the anon key joins them).
import type { GuardedChannel } from './channel-guard.ts';
import type { Frame } from './frames.ts';

export interface TopicMember extends GuardedChannel {
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

const PRIVATE_ROOM = 'private\0';

/** The room of a channel topic: public channels meet under the topic itself, private ones apart. */
export function roomOf(topic: string, isPrivate: boolean): string {
  return isPrivate ? `${PRIVATE_ROOM}${topic}` : topic;
}

function isPrivateRoom(room: string): boolean {
  return room.startsWith(PRIVATE_ROOM);
}

/** Checks a batch of receivers, closing those whose token no longer holds; answers the others. */
export type AdmitReceivers = (members: readonly TopicMember[]) => Promise<Set<TopicMember>>;

/** What one member of a room gets from a delivery, if anything. */
type FrameFor = (member: TopicMember) => Frame | undefined;

export class Topics {
  private readonly members = new Map<string, Set<TopicMember>>();
  /** Deliveries to private rooms waiting for their receivers' check, in the order they were made. */
  private checking: { room: string; frameFor: FrameFor }[] = [];
  private flushing: Promise<void> | undefined;

  constructor(
    private readonly admit: AdmitReceivers,
    private readonly log: (error: unknown) => void,
  ) {}

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
   * Sends each member of the room what `frameFor` gives it: at once in a public room, after the
   * receivers' check in a private one (those that fail it are closed and get nothing).
   */
  deliver(room: string, frameFor: FrameFor): void {
    if (!isPrivateRoom(room)) {
      this.sendTo(this.membersOf(room), frameFor);
      return;
    }
    this.checking.push({ room, frameFor });
    this.flushing ??= this.flush();
  }

  /**
   * Relays a broadcast to the room's channels that may receive it: all but the sender, unless it
   * asked for its own.
   */
  broadcast(room: string, message: BroadcastMessage, sender?: TopicMember): void {
    this.deliver(room, (member) => broadcastFrame(member, message, sender));
  }

  /** How many of the room's channels would receive a broadcast from `sender` (what it costs to send). */
  broadcastReceivers(room: string, sender?: TopicMember): number {
    let count = 0;
    for (const member of this.membersOf(room)) if (broadcastFrame(member, NO_MESSAGE, sender)) count += 1;
    return count;
  }

  /**
   * A broadcast the database queued at `sentAt`, to the room's channels that had joined by then and,
   * in a private room, only to those in `admitted` (checked by the caller with the rest of its batch).
   */
  broadcastChecked(room: string, message: BroadcastMessage, sentAt: Date, admitted: ReadonlySet<TopicMember>): void {
    const checked = isPrivateRoom(room);
    this.sendTo(this.membersOf(room), (member) =>
      sentAt < member.joinedAt || (checked && !admitted.has(member)) ? undefined : broadcastFrame(member, message),
    );
  }

  private sendTo(members: Iterable<TopicMember>, frameFor: FrameFor): void {
    for (const member of members) {
      const frame = frameFor(member);
      if (frame) member.send(frame);
    }
  }

  /**
   * Checks the receivers of every delivery queued so far in one go, then sends those deliveries in
   * order; deliveries queued meanwhile wait for the next round.
   */
  private async flush(): Promise<void> {
    // Deliveries made in the same turn (a presence state and its diff, an HTTP batch) share a check.
    await Promise.resolve();
    while (this.checking.length > 0) {
      const batch = this.checking;
      this.checking = [];
      const receivers = new Set<TopicMember>();
      for (const { room, frameFor } of batch) {
        for (const member of this.membersOf(room)) if (frameFor(member)) receivers.add(member);
      }
      let admitted: Set<TopicMember>;
      try {
        admitted = receivers.size > 0 ? await this.admit([...receivers]) : receivers;
      } catch (error) {
        // Nothing is known about the receivers' sessions: nobody gets these deliveries.
        this.log(error);
        continue;
      }
      for (const { room, frameFor } of batch) {
        this.sendTo(this.membersOf(room), (member) => (admitted.has(member) ? frameFor(member) : undefined));
      }
    }
    this.flushing = undefined;
  }
}

const NO_MESSAGE: BroadcastMessage = { type: 'broadcast', event: '', payload: null };

function broadcastFrame(member: TopicMember, message: BroadcastMessage, sender?: TopicMember): Frame | undefined {
  if (member === sender && !member.broadcastSelf) return undefined;
  if (!member.receives.broadcast) return undefined;
  return { joinRef: member.joinRef, ref: null, topic: member.topic, event: 'broadcast', payload: message };
}

/** The serialized size of a broadcast's payload, to hold it to REALTIME_MAX_BROADCAST_BYTES. */
export function payloadBytes(payload: unknown): number {
  return Buffer.byteLength(JSON.stringify(payload) ?? '', 'utf8');
}
