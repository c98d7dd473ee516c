// The gateway's calls to the backend's HTTP surface (auth, data API, storage), always with an
// explicit credential: the caller's token (RLS decides) or, only where the spec implies it, the
// service key. Backend failures become BackendError with the backend's own code and status.
import { z } from 'zod';

export interface BackendTarget {
  url: string;
  anonKey: string;
  serviceRoleKey: string | undefined;
}

export class BackendError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message);
    this.name = 'BackendError';
  }
}

/** Who the backend should see: a user (their access token) or the service role. */
export type Credential = { userToken: string } | { serviceRole: true } | { anon: true };

export interface BackendRequest {
  method?: string;
  credential: Credential;
  body?: unknown;
  rawBody?: Buffer;
  contentType?: string;
  headers?: Record<string, string>;
  timeoutMs?: number;
}

const errorShape = z
  .object({
    code: z.union([z.string(), z.number()]).optional(),
    error_code: z.string().optional(),
    error: z.string().optional(),
    message: z.string().optional(),
    msg: z.string().optional(),
  })
  .loose();

export class BackendClient {
  constructor(readonly target: BackendTarget) {}

  get hasServiceRole(): boolean {
    return Boolean(this.target.serviceRoleKey);
  }

  private headersFor(credential: Credential): Record<string, string> {
    if ('userToken' in credential) return { apikey: this.target.anonKey, authorization: `Bearer ${credential.userToken}` };
    if ('serviceRole' in credential) {
      if (!this.target.serviceRoleKey) throw new BackendError(503, 'service_key_missing', 'BACKEND_SERVICE_ROLE_KEY is not configured.');
      return { apikey: this.target.serviceRoleKey, authorization: `Bearer ${this.target.serviceRoleKey}` };
    }
    return { apikey: this.target.anonKey, authorization: `Bearer ${this.target.anonKey}` };
  }

  async request(pathAndQuery: string, options: BackendRequest): Promise<{ status: number; headers: Headers; body: unknown }> {
    const headers: Record<string, string> = {
      ...this.headersFor(options.credential),
      'x-supabase-api-version': '2024-01-01',
      ...options.headers,
    };
    let body: BodyInit | undefined;
    if (options.rawBody) {
      body = new Uint8Array(options.rawBody);
      headers['content-type'] = options.contentType ?? 'application/octet-stream';
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    let response: Response;
    try {
      response = await fetch(`${this.target.url}${pathAndQuery}`, {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        body,
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (error) {
      throw new BackendError(502, 'backend_unavailable', `The backend did not answer: ${(error as Error).message}`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    if (text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (!response.ok) {
      const shape = errorShape.safeParse(parsed);
      const info = shape.success ? shape.data : {};
      const code = info.error_code ?? (typeof info.code === 'string' ? info.code : undefined) ?? info.error ?? `http_${response.status}`;
      throw new BackendError(response.status, code, info.message ?? info.msg ?? `The backend answered ${response.status}.`);
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  async rpc(name: string, args: Record<string, unknown>, credential: Credential): Promise<unknown> {
    return (await this.request(`/rest/v1/rpc/${name}`, { credential, body: args })).body;
  }

  /** A data-API read that returns rows (an array). */
  async select(pathAndQuery: string, credential: Credential): Promise<unknown[]> {
    const { body } = await this.request(`/rest/v1/${pathAndQuery}`, { credential });
    return z.array(z.unknown()).parse(body);
  }

  publicObjectUrl(bucket: string, objectPath: string, publicBase: string): string {
    return `${publicBase}/storage/v1/object/public/${bucket}/${objectPath.split('/').map(encodeURIComponent).join('/')}`;
  }
}
