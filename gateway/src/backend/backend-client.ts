// The gateway's calls to the backend's HTTP surface (auth, data API, storage), always with an
// explicit credential: the caller's token (RLS decides) or, only where no student can act (a
// confirmed account at signup, the e-mail check, the admin console), the service key. Backend
// failures become BackendError with the backend's own code and status (backend-errors.ts decides
// what the caller sees).
//
// Deadlines: every call must be answered within CALL_DEADLINE_MS (a backend that accepts and never
// answers costs a route at most that: the caller hears 504 backend_timeout within 5 s), and a route
// calls `forRoute()` once and makes all its calls through the client it gets, which also shares one
// ROUTE_BUDGET_MS for all of them, so a wrapper of many calls against a slow backend is bounded too.
import { z } from 'zod';

export const BACKEND_DEADLINES = {
  /** Each call: the backend starts and finishes answering within this. */
  callDeadlineMs: 4_000,
  /** All the calls of one route together. */
  routeBudgetMs: 15_000,
};

export interface BackendTarget {
  url: string;
  anonKey: string;
  serviceRoleKey: string | undefined;
  /** The embedded localbase's management access token (its auth outbox); never a hosted project's. */
  managementToken?: string;
}

export class BackendError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** PostgREST's hint (the database's `raise ... using hint`), when there is one. */
    readonly hint: string | null = null,
    /** GoTrue's `weak_password.reasons` (`length`, `characters`, `pwned`), for a refused password. */
    readonly weakPasswordReasons: string[] = [],
  ) {
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
}

const errorShape = z
  .object({
    code: z.union([z.string(), z.number()]).optional(),
    error_code: z.string().optional(),
    error: z.string().optional(),
    message: z.string().optional(),
    msg: z.string().optional(),
    hint: z.string().nullish(),
    weak_password: z
      .object({ reasons: z.array(z.string()).catch([]) })
      .loose()
      .optional()
      .catch(undefined),
    // Storage answers HTTP 400 and puts the real status in the body.
    statusCode: z.union([z.string(), z.number()]).optional(),
  })
  .loose();

function timedOut(scope: 'call' | 'route', budgetMs: number): BackendError {
  const message =
    scope === 'call'
      ? `The backend did not answer within ${budgetMs} ms.`
      : `The backend calls of this request took longer than ${budgetMs} ms together.`;
  return new BackendError(504, 'backend_timeout', message);
}

export class BackendClient {
  private readonly deadlines: typeof BACKEND_DEADLINES;

  constructor(
    readonly target: BackendTarget,
    deadlines: Partial<typeof BACKEND_DEADLINES> = {},
    private readonly routeDeadlineAt?: number,
    private readonly extraHeaders: Record<string, string> = {},
  ) {
    this.deadlines = { ...BACKEND_DEADLINES, ...deadlines };
  }

  /** This client with one route budget, starting now, shared by every call a route makes. */
  forRoute(): BackendClient {
    return new BackendClient(this.target, this.deadlines, Date.now() + this.deadlines.routeBudgetMs, this.extraHeaders);
  }

  /** This client (same budget) sending these headers on every call too. */
  withHeaders(headers: Record<string, string>): BackendClient {
    return new BackendClient(this.target, this.deadlines, this.routeDeadlineAt, { ...this.extraHeaders, ...headers });
  }

  get hasServiceRole(): boolean {
    return Boolean(this.target.serviceRoleKey);
  }

  private headersFor(credential: Credential): Record<string, string> {
    if ('userToken' in credential)
      return { apikey: this.target.anonKey, authorization: `Bearer ${credential.userToken}` };
    if ('serviceRole' in credential) {
      if (!this.target.serviceRoleKey)
        throw new BackendError(503, 'service_key_missing', 'BACKEND_SERVICE_ROLE_KEY is not configured.');
      return { apikey: this.target.serviceRoleKey, authorization: `Bearer ${this.target.serviceRoleKey}` };
    }
    return { apikey: this.target.anonKey, authorization: `Bearer ${this.target.anonKey}` };
  }

  async request(
    pathAndQuery: string,
    options: BackendRequest,
  ): Promise<{ status: number; headers: Headers; body: unknown }> {
    const headers: Record<string, string> = {
      ...this.headersFor(options.credential),
      'x-supabase-api-version': '2024-01-01',
      ...this.extraHeaders,
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
    const routeRemainingMs =
      this.routeDeadlineAt === undefined ? Number.POSITIVE_INFINITY : this.routeDeadlineAt - Date.now();
    if (routeRemainingMs <= 0) throw timedOut('route', this.deadlines.routeBudgetMs);
    const timeoutMs = Math.min(this.deadlines.callDeadlineMs, routeRemainingMs);
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${this.target.url}${pathAndQuery}`, {
        method: options.method ?? (body === undefined ? 'GET' : 'POST'),
        headers,
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') {
        throw timeoutMs < this.deadlines.callDeadlineMs
          ? timedOut('route', this.deadlines.routeBudgetMs)
          : timedOut('call', this.deadlines.callDeadlineMs);
      }
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      throw new BackendError(502, 'backend_unavailable', `The backend did not answer${cause ? ` (${cause})` : ''}.`);
    }
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
      const code =
        info.error_code ??
        (typeof info.code === 'string' ? info.code : undefined) ??
        info.error ??
        `http_${response.status}`;
      const bodyStatus = Number(info.statusCode);
      const status =
        Number.isInteger(bodyStatus) && bodyStatus >= 400 && bodyStatus < 600 ? bodyStatus : response.status;
      throw new BackendError(
        status,
        code,
        info.message ?? info.msg ?? `The backend answered ${response.status}.`,
        info.hint ?? null,
        info.weak_password?.reasons ?? [],
      );
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
