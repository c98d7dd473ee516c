// Presence, as Phoenix Presence (behind Supabase Realtime) keeps it: per topic, what each channel
// tracked, under the channel's presence key (`config.presence.key`, or a generated one). The
// state is `{<key>: {metas: [{...tracked, phx_ref}]}}` (one meta per channel that tracked under
// the key); a channel with presence enabled gets `presence_state` when it joins (or first tracks)
// and `presence_diff` `{joins, leaves}` whenever a channel of the topic tracks, tracks anew,
// untracks, leaves or loses its socket. State lives in this process only, as long as the channel.
// Both go out through the topic's deliveries (topics.ts), so a private topic's receivers are checked.
import { randomBytes } from 'node:crypto';
import type { Frame } from './frames.ts';
import type { Topics, TopicMember } from './topics.ts';

/**
 * Bounds on what one channel may track and on a topic's entries: every diff is sent to every
 * channel of the topic, and every joiner gets the whole state. Supabase documents 10 keys per
 * presence object; the size and count are localbase's own.
 */
export const REALTIME_MAX_PRESENCE_KEYS = 10;
export const REALTIME_MAX_PRESENCE_BYTES = 4 * 1024;
export const REALTIME_MAX_PRESENCES_PER_TOPIC = 1000;

export type PresenceMeta = Record<string, unknown> & { phx_ref: string; phx_ref_prev?: string };
type PresenceGroups = Record<string, { metas: PresenceMeta[] }>;

interface Tracked {
  key: string;
  meta: PresenceMeta;
  /** The tracked payload as sent, to tell a repeated track from a change. */
  text: string;
}

/** Phoenix's presence refs are 8 random bytes in base64. */
function newRef(): string {
  return randomBytes(8).toString('base64');
}

function group(key: string, meta: PresenceMeta): PresenceGroups {
  return { [key]: { metas: [meta] } };
}

export class PresenceRegistry {
  /** room (topics.ts) -> channel -> what it tracks. */
  private readonly tracked = new Map<string, Map<TopicMember, Tracked>>();

  constructor(private readonly topics: Topics) {}

  /** The room's whole state, as `presence_state` carries it. */
  state(room: string): PresenceGroups {
    const groups: PresenceGroups = {};
    for (const { key, meta } of this.tracked.get(room)?.values() ?? []) {
      (groups[key] ??= { metas: [] }).metas.push(meta);
    }
    return groups;
  }

  /** Turns presence on for a channel and sends it the state (on join, or on its first track). */
  enable(member: TopicMember): void {
    member.presence.enabled = true;
    if (!member.receives.presence) return;
    const state: Frame = {
      joinRef: member.joinRef,
      ref: null,
      topic: member.topic,
      event: 'presence_state',
      payload: this.state(member.room),
    };
    this.topics.deliver(member.room, (each) => (each === member ? state : undefined));
  }

  /** Tracks (or tracks anew) the channel's payload; answers the reason when it is refused. */
  track(member: TopicMember, payload: unknown): string | undefined {
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
      return 'presence payload must be an object';
    if (Object.keys(payload).length > REALTIME_MAX_PRESENCE_KEYS) {
      return `presence payload has too many keys: at most ${REALTIME_MAX_PRESENCE_KEYS}`;
    }
    const text = JSON.stringify(payload);
    if (Buffer.byteLength(text, 'utf8') > REALTIME_MAX_PRESENCE_BYTES) {
      return `presence payload too large: at most ${REALTIME_MAX_PRESENCE_BYTES} bytes`;
    }
    let entries = this.tracked.get(member.room);
    const previous = entries?.get(member);
    if (!previous && (entries?.size ?? 0) >= REALTIME_MAX_PRESENCES_PER_TOPIC) {
      return `Too many presences: at most ${REALTIME_MAX_PRESENCES_PER_TOPIC} per topic`;
    }
    if (!member.presence.enabled) this.enable(member);
    // The same payload again changes nothing, so nobody is told.
    if (previous?.text === text) return undefined;
    const key = member.presence.key;
    const meta: PresenceMeta = { ...(payload as Record<string, unknown>), phx_ref: newRef() };
    if (previous) meta.phx_ref_prev = previous.meta.phx_ref;
    if (!entries) {
      entries = new Map();
      this.tracked.set(member.room, entries);
    }
    entries.set(member, { key, meta, text });
    // A new payload is sent as the old meta's leave, then the new one's join: in one diff (as
    // Phoenix.Tracker sends an update) realtime-js 2.109 keeps the old meta too, because its join
    // callback strips, in place, the phx_ref the leave is matched by.
    if (previous) this.diff(member.room, {}, group(previous.key, previous.meta));
    this.diff(member.room, group(key, meta), {});
    return undefined;
  }

  /** Untracks the channel (untrack, leave, socket closed); a channel that tracks nothing is a no-op. */
  untrack(member: TopicMember): void {
    const entries = this.tracked.get(member.room);
    const previous = entries?.get(member);
    if (!entries || !previous) return;
    entries.delete(member);
    if (entries.size === 0) this.tracked.delete(member.room);
    this.diff(member.room, {}, group(previous.key, previous.meta));
  }

  private diff(room: string, joins: PresenceGroups, leaves: PresenceGroups): void {
    const payload = { joins, leaves };
    this.topics.deliver(room, (member) =>
      member.presence.enabled && member.receives.presence
        ? { joinRef: member.joinRef, ref: null, topic: member.topic, event: 'presence_diff', payload }
        : undefined,
    );
  }
}
