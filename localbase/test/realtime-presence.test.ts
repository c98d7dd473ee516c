// The presence registry's bounds and diffs, without a socket: entries per topic, and what a
// channel leaving tells the channels that stay.
import { describe, expect, it } from 'vitest';
import type { Frame } from '../src/realtime/frames.ts';
import { PresenceRegistry, REALTIME_MAX_PRESENCES_PER_TOPIC } from '../src/realtime/presence.ts';
import { Topics, type TopicMember } from '../src/realtime/topics.ts';

function member(topic: string, key: string, frames: Frame[] = []): TopicMember {
  return {
    topic,
    room: topic,
    receives: { broadcast: true, presence: true },
    joinRef: '1',
    broadcastSelf: false,
    presence: { key, enabled: false },
    joinedAt: new Date(),
    send: (frame) => frames.push(frame),
    token: { role: 'anon', claims: { role: 'anon' } },
    close: () => {
      throw new Error('a public channel is never closed by a delivery');
    },
  };
}

/** Public topics only: their deliveries are never checked. */
const publicTopics = () =>
  new Topics(
    () => Promise.reject(new Error('no private topic here')),
    (error) => {
      throw error;
    },
  );

describe('PresenceRegistry', () => {
  it(`refuses a track past ${REALTIME_MAX_PRESENCES_PER_TOPIC} entries in a topic, but not a re-track nor another topic`, () => {
    const topics = publicTopics();
    const presence = new PresenceRegistry(topics);
    const members = Array.from({ length: REALTIME_MAX_PRESENCES_PER_TOPIC }, (_, index) =>
      member('realtime:full', `k${index}`),
    );
    for (const each of members) {
      topics.add(each);
      expect(presence.track(each, { n: 1 })).toBeUndefined();
    }
    const late = member('realtime:full', 'late');
    topics.add(late);
    expect(presence.track(late, { n: 1 })).toMatch(/^Too many presences/);
    expect(presence.track(members[0] as TopicMember, { n: 2 })).toBeUndefined();
    expect(Object.keys(presence.state('realtime:full'))).toHaveLength(REALTIME_MAX_PRESENCES_PER_TOPIC);
    const elsewhere = member('realtime:other', 'late');
    topics.add(elsewhere);
    expect(presence.track(elsewhere, { n: 1 })).toBeUndefined();
    // One leaves: the late one now fits.
    topics.remove(members[1] as TopicMember);
    presence.untrack(members[1] as TopicMember);
    expect(presence.track(late, { n: 1 })).toBeUndefined();
  });

  it('sends state and diffs only to channels with presence enabled, and a leave to those that stay', () => {
    const topics = publicTopics();
    const presence = new PresenceRegistry(topics);
    const watcherFrames: Frame[] = [];
    const bystanderFrames: Frame[] = [];
    const watcher = member('realtime:t', 'watcher', watcherFrames);
    const bystander = member('realtime:t', 'bystander', bystanderFrames);
    const tracker = member('realtime:t', 'tracker');
    for (const each of [watcher, bystander, tracker]) topics.add(each);
    presence.enable(watcher);
    presence.track(tracker, { status: 'here' });
    topics.remove(tracker);
    presence.untrack(tracker);
    expect(watcherFrames.map((frame) => frame.event)).toEqual(['presence_state', 'presence_diff', 'presence_diff']);
    expect(watcherFrames[2]?.payload).toEqual({
      joins: {},
      leaves: { tracker: { metas: [{ status: 'here', phx_ref: expect.any(String) }] } },
    });
    expect(bystanderFrames).toEqual([]);
    expect(presence.state('realtime:t')).toEqual({});
  });
});
