// Closing localbase does not wait on a client that never finishes its request: requests in flight
// get CLOSE_GRACE_MS, then their connections are closed (Node alone would hold the close until its
// 60 s headers timeout).
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';

describe('closing localbase', () => {
  it('closes the connection of a request that never ends, and finishes', async () => {
    const localbase = await startLocalbaseStack();
    const { hostname, port } = new URL(localbase.url);
    const socket = net.connect(Number(port), hostname);
    const socketClosed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.on('error', () => {});
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    // Half a request: the headers never end.
    socket.write('GET /rest/v1/ HTTP/1.1\r\nHost: localhost\r\napikey: x\r\n');
    // The server says nothing on half a request: time for the bytes to reach it before it closes.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await localbase.close();
    await socketClosed;
    expect(socket.destroyed).toBe(true);
  }, 30_000);
});
