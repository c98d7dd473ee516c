// HTTP/1.1 exactly as written: no client normalises the path (`//api`, `/x/../api`, `%61`, `\`), the
// headers are the ones given (no Host unless given), and the local address can be any loopback
// address (127.0.0.2 is another client to a per-address limit).
import net from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  localAddress?: string;
  timeoutMs?: number;
}

export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const body =
    request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
  const headers: Record<string, string> = { host: `${hostname}:${port}`, connection: 'close', ...request.headers };
  if (body && headers['content-length'] === undefined) headers['content-length'] = String(body.length);
  const head = [
    `${request.method ?? 'GET'} ${request.path} HTTP/1.1`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = net.connect(
      {
        host: hostname.replace(/^\[|\]$/g, ''),
        port: Number(port),
        ...(request.localAddress ? { localAddress: request.localAddress } : {}),
      },
      () => {
        socket.write(head);
        if (body) socket.write(body);
      },
    );
    const chunks: Buffer[] = [];
    socket.setTimeout(request.timeoutMs ?? 15_000, () =>
      socket.destroy(new Error(`no complete answer to ${request.method ?? 'GET'} ${request.path}`)),
    );
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const raw = Buffer.concat(chunks);
      const headEnd = raw.indexOf('\r\n\r\n');
      const headText = raw.subarray(0, headEnd === -1 ? raw.length : headEnd).toString('latin1');
      const [statusLine = '', ...headerLines] = headText.split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(':');
        if (at > 0) parsed[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      const content = headEnd === -1 ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
      const decoded = parsed['transfer-encoding'] === 'chunked' ? dechunk(content) : content;
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: decoded.toString('utf8') });
    });
  });
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = data;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    if (lineEnd === -1) return Buffer.concat(parts);
    const size = Number.parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}

/** True when a body is the gateway's JSON error shape. */
export function isJsonError(response: RawResponse): boolean {
  if (!/application\/json/.test(response.headers['content-type'] ?? '')) return false;
  try {
    const parsed = JSON.parse(response.body) as { error?: unknown; message?: unknown };
    return typeof parsed.error === 'string' && typeof parsed.message === 'string';
  } catch {
    return false;
  }
}
