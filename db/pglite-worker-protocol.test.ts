// The framing between pg and PGlite's thread: whole messages only, grouped where Postgres answers.
import { describe, expect, it } from 'vitest';
import { frameMessages, ProtocolFramingError, wholeMessagesLength } from './pglite-worker-protocol.ts';

/** A protocol message: its type byte, its length (itself included), its body. */
function message(type: string, body = ''): Buffer {
  const payload = Buffer.from(body, 'utf8');
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeInt32BE(payload.length + 4, 1);
  return Buffer.concat([header, payload]);
}

/** The startup packet: no type byte, length, protocol 3.0, then name/value pairs. */
function startupPacket(): Buffer {
  const pairs = Buffer.from('user\0postgres\0database\0postgres\0\0', 'utf8');
  const header = Buffer.alloc(8);
  header.writeInt32BE(pairs.length + 8, 0);
  header.writeInt32BE(196608, 4);
  return Buffer.concat([header, pairs]);
}

const serialize = {
  parse: () => message('P', 'select 1\0\0\0\0'),
  bind: () => message('B', '\0\0\0\0\0\0\0\0'),
  describe: () => message('D', 'P\0'),
  execute: () => message('E', '\0\0\0\0\0'),
  sync: () => message('S'),
  query: (sql: string) => message('Q', `${sql}\0`),
  end: () => message('X'),
  startup: startupPacket,
};

const text = (bytes: Uint8Array) =>
  [...bytes].map((byte) => (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.')).join('');
const types = (group: Uint8Array) => {
  const found: string[] = [];
  for (
    let offset = 0;
    offset < group.length;
    offset += 1 + new DataView(group.buffer, group.byteOffset).getInt32(offset + 1)
  )
    found.push(String.fromCharCode(group[offset]!));
  return found.join('');
};

describe('frameMessages', () => {
  it('groups an extended query up to its Sync, a simple query alone, and drops Terminate', () => {
    const bytes = Buffer.concat([
      serialize.parse(),
      serialize.bind(),
      serialize.describe(),
      serialize.execute(),
      serialize.sync(),
      serialize.query('commit'),
      serialize.end(),
    ]);
    expect([...frameMessages(bytes)].map(types)).toEqual(['PBDES', 'Q']);
  });

  it('keeps a startup packet on its own, recognised by its leading zero byte', () => {
    const startup = serialize.startup();
    const groups = [...frameMessages(Buffer.concat([startup, serialize.query('select 1')]))];
    expect(groups).toHaveLength(2);
    expect(text(groups[0]!)).toContain('user.postgres');
    expect(types(groups[1]!)).toBe('Q');
  });
});

describe('wholeMessagesLength', () => {
  it('counts only whole messages, so a partial one waits for its rest', () => {
    const query = serialize.query('select 1');
    const bytes = Buffer.concat([query, query.subarray(0, 3)]);
    expect(wholeMessagesLength(bytes, false)).toBe(query.length);
    expect(wholeMessagesLength(query.subarray(0, 4), false)).toBe(0);
  });

  it('refuses a length no message can have instead of looping on it', () => {
    expect(() => wholeMessagesLength(Buffer.from([0x51, 0, 0, 0, 0]), false)).toThrow(ProtocolFramingError);
    expect(() => [...frameMessages(Buffer.from([0x51, 0xff, 0xff, 0xff, 0xff]))]).toThrow(ProtocolFramingError);
  });
});
