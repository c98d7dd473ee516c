// Phoenix's two JSON serializers, which Supabase Realtime speaks side by side on one endpoint and
// picks by the socket URL's `vsn`:
// - 2.0.0 (realtime-js from 2.80, and newer Phoenix clients): array frames
//   `[join_ref, ref, topic, event, payload]`.
// - 1.0.0 (realtime-js up to 2.79, most clients in other languages; also what a URL without `vsn`
//   gets): object frames. Clients send `{topic, event, payload, ref, join_ref}` (join_ref may be
//   missing); the server answers `{topic, event, payload, ref}` only, as Phoenix's V1 serializer
//   does ("v1 responses must not contain join_ref"). A channel's own pushes that must be matched
//   to its join (phx_close, phx_error) carry the join's ref as `ref`, which is how a 1.0.0 client
//   tells a current channel from an outdated one.
// Under 2.0.0 realtime-js sends a broadcast as a binary frame of its own ("user broadcast push",
// decodeBinary); localbase answers and relays in text frames, which every 2.0.0 client reads.
import { z } from 'zod';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '../json-body.ts';

/** A message in either direction, whatever the wire form. */
export interface Frame {
  joinRef: string | null;
  ref: string | null;
  topic: string;
  event: string;
  payload: unknown;
}

export type SerializerVersion = '1.0.0' | '2.0.0';

export interface FrameCodec {
  vsn: SerializerVersion;
  /** The frame, or undefined for text that is not one (ignored, as Phoenix drops it). */
  decode(text: string): Frame | undefined;
  /** A binary frame, for the serializers that have them; undefined when it is not one. */
  decodeBinary?(bytes: Buffer): Frame | undefined;
  encode(frame: Frame): string;
}

/** A broadcast's payload that came as raw bytes (not JSON): relayed by nobody here. */
export const BINARY_PAYLOAD = Symbol('binary broadcast payload');

const ref = z.union([z.string(), z.number().transform(String)]).nullable();

const arrayFrame = z.tuple([ref, ref, z.string(), z.string(), z.unknown()]).rest(z.unknown());

const objectFrame = z.object({
  topic: z.string(),
  event: z.string(),
  payload: z.unknown(),
  ref: ref.optional(),
  join_ref: ref.optional(),
});

/**
 * Whether the text has more opening brackets than the depth limit: only then can it be too deep.
 * Counted with the engine's own search, which spares a long broadcast with few brackets (a 250 KiB
 * string) the character-by-character scan.
 */
function manyBrackets(text: string): boolean {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1)) {
      count += 1;
      if (count > MAX_JSON_DEPTH) return true;
    }
  }
  return false;
}

function parse(text: string): unknown {
  // Over-deep frames are dropped before JSON.parse, like over-deep request bodies.
  if (manyBrackets(text) && jsonDepthExceeds(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Payload parts that go unchanged to many sockets, serialized once: a change's `data` (the same
 * object for all its subscribers; only `ids` differs per channel) and a broadcast's message (the
 * same object for all channels of its topic). For 200 subscribers that is one JSON.stringify of
 * the row instead of 200. Keyed by the object, which the hub and topics never change once sent.
 */
const serializedOnce = new WeakMap<object, string>();

function once(value: object): string {
  let json = serializedOnce.get(value);
  if (json === undefined) {
    json = JSON.stringify(value);
    serializedOnce.set(value, json);
  }
  return json;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

/** The frame's payload as JSON text, its shared part taken from serializedOnce. */
function payloadJson(frame: Frame): string {
  const { event, payload } = frame;
  if (event === 'postgres_changes' && isObject(payload) && 'data' in payload && isObject(payload.data)) {
    const { ids, data, ...rest } = payload as { ids?: unknown; data: object };
    if (Object.keys(rest).length === 0) return `{"ids":${JSON.stringify(ids ?? null)},"data":${once(data)}}`;
  }
  if (event === 'broadcast' && isObject(payload)) return once(payload);
  return JSON.stringify(payload) ?? 'null';
}

export const serializerV2: FrameCodec = {
  vsn: '2.0.0',
  decode(text) {
    const parsed = arrayFrame.safeParse(parse(text));
    if (!parsed.success) return undefined;
    const [joinRef, frameRef, topic, event, payload] = parsed.data;
    return { joinRef, ref: frameRef, topic, event, payload };
  },
  decodeBinary: decodeUserBroadcastPush,
  encode: (frame) =>
    `${JSON.stringify([frame.joinRef, frame.ref, frame.topic, frame.event]).slice(0, -1)},${payloadJson(frame)}]`,
};

/** The binary frame kind realtime-js sends a broadcast as, and its payload encodings. */
const USER_BROADCAST_PUSH = 3;
const JSON_ENCODING = 1;
const BINARY_ENCODING = 0;

/**
 * A user broadcast push: one byte kind, five length bytes (join_ref, ref, topic, event, metadata),
 * one encoding byte, those five strings, then the payload (JSON text or raw bytes). The metadata
 * is dropped. Becomes the `broadcast` frame a 1.0.0 client would have sent.
 */
function decodeUserBroadcastPush(bytes: Buffer): Frame | undefined {
  const header = 7;
  if (bytes.length < header || bytes[0] !== USER_BROADCAST_PUSH) return undefined;
  const lengths = [bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]] as number[];
  const encoding = bytes[6];
  const strings: string[] = [];
  let offset = header;
  for (const length of lengths) {
    if (offset + length > bytes.length) return undefined;
    strings.push(bytes.subarray(offset, offset + length).toString('utf8'));
    offset += length;
  }
  const [joinRef = '', ref = '', topic = '', event = ''] = strings;
  let payload: unknown;
  if (encoding === JSON_ENCODING) {
    payload = parse(bytes.subarray(offset).toString('utf8'));
    if (payload === undefined) return undefined;
  } else if (encoding === BINARY_ENCODING) {
    payload = BINARY_PAYLOAD;
  } else {
    return undefined;
  }
  return {
    joinRef: joinRef || null,
    ref: ref || null,
    topic,
    event: 'broadcast',
    payload: { type: 'broadcast', event, payload },
  };
}

/** Events whose `ref` names the join they belong to when a 1.0.0 client reads them. */
const JOIN_SCOPED_EVENTS = new Set(['phx_close', 'phx_error']);

export const serializerV1: FrameCodec = {
  vsn: '1.0.0',
  decode(text) {
    const parsed = objectFrame.safeParse(parse(text));
    if (!parsed.success) return undefined;
    const { topic, event, payload } = parsed.data;
    const frameRef = parsed.data.ref ?? null;
    // A client without join_ref joins with a plain ref: that ref is the join's.
    const joinRef = parsed.data.join_ref ?? (event === 'phx_join' ? frameRef : null);
    return { joinRef, ref: frameRef, topic, event, payload };
  },
  encode: (frame) =>
    `{"topic":${JSON.stringify(frame.topic)},"event":${JSON.stringify(frame.event)},"payload":${payloadJson(frame)},` +
    `"ref":${JSON.stringify(frame.ref ?? (JOIN_SCOPED_EVENTS.has(frame.event) ? frame.joinRef : null))}}`,
};

/** The codec a socket URL asks for: `vsn=2.0.0`, `vsn=1.0.0` or none (1.0.0); anything else none. */
export function codecFor(vsn: unknown): FrameCodec | undefined {
  if (vsn === undefined || vsn === '1.0.0') return serializerV1;
  if (vsn === '2.0.0') return serializerV2;
  return undefined;
}
