// The serializers' text is the same JSON the frame would stringify to, whether its shared part (a
// change's data, a broadcast's message) was serialized for an earlier socket or not.
import { describe, expect, it } from 'vitest';
import { serializerV1, serializerV2, type Frame } from './frames.ts';

const data = {
  schema: 'public',
  table: 'notes',
  type: 'UPDATE',
  record: { id: 1, text: 'a "quoted" é' },
  errors: null,
};
const frames: Frame[] = [
  { joinRef: '1', ref: null, topic: 'realtime:a', event: 'postgres_changes', payload: { ids: [3, 4], data } },
  { joinRef: '9', ref: null, topic: 'realtime:b', event: 'postgres_changes', payload: { ids: [7], data } },
  {
    joinRef: '2',
    ref: null,
    topic: 'realtime:a',
    event: 'broadcast',
    payload: { type: 'broadcast', event: 'e', payload: { n: 1 } },
  },
  { joinRef: null, ref: '5', topic: 'phoenix', event: 'phx_reply', payload: { status: 'ok', response: {} } },
  { joinRef: '3', ref: null, topic: 'realtime:c', event: 'phx_close', payload: {} },
];

describe('the realtime serializers', () => {
  it('encode 2.0.0 frames as the array JSON.stringify makes, also when the shared part is reused', () => {
    for (const round of [1, 2]) {
      for (const frame of frames) {
        const text = serializerV2.encode(frame);
        expect(JSON.parse(text), `round ${round}`).toEqual([
          frame.joinRef,
          frame.ref,
          frame.topic,
          frame.event,
          frame.payload,
        ]);
        expect(serializerV2.decode(text)).toEqual(frame);
      }
    }
  });

  it("encode 1.0.0 frames as objects without join_ref, a join-scoped event's ref being its join's", () => {
    for (const round of [1, 2]) {
      for (const frame of frames) {
        expect(JSON.parse(serializerV1.encode(frame)), `round ${round}`).toEqual({
          topic: frame.topic,
          event: frame.event,
          payload: frame.payload,
          ref: frame.ref ?? (frame.event === 'phx_close' ? frame.joinRef : null),
        });
      }
    }
  });
});
