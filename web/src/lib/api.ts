// Same-origin JSON calls with one error type. The gateway answers failures as
// {"error": code, "message": sentence, ...details}; the backend (through /__backend) in its own
// shapes. Everything becomes an ApiError whose `code` the screens map to plain words, and a
// request that never reached the server is code `offline`.

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  get offline(): boolean {
    return this.code === 'offline';
  }
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  token?: string | null;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** The request outlives the page (a write started just before the tab closes still arrives). */
  keepalive?: boolean;
  /** Absolute origin for tests outside a page; the app uses relative URLs. */
  base?: string;
}

function errorFrom(status: number, body: unknown, retryAfter: string | null): ApiError {
  const record = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const code = String(record.error ?? record.error_code ?? record.code ?? `http_${status}`);
  const message = String(
    record.message ?? record.msg ?? record.error_description ?? record.hint ?? `The server answered ${status}.`,
  );
  const details: Record<string, unknown> = { ...record };
  if (retryAfter && details.retry_after_s === undefined) details.retry_after_s = Number(retryAfter);
  return new ApiError(status, code, message, details);
}

export async function requestJson<T = unknown>(url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let response: Response;
  try {
    response = await fetch(`${options.base ?? ''}${url}`, {
      method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: options.signal,
      keepalive: options.keepalive,
      cache: 'no-store',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError(0, 'offline', 'The server could not be reached.');
  }
  const text = await response.text();
  let body: unknown = null;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = { message: text.slice(0, 200) };
    }
  }
  if (!response.ok) throw errorFrom(response.status, body, response.headers.get('retry-after'));
  return body as T;
}

/** Plain words for the codes a student can meet; the server's own sentence otherwise. */
export function describeError(error: unknown): string {
  if (!(error instanceof ApiError)) return 'Something went wrong on this page. Try again.';
  switch (error.code) {
    case 'offline':
      return 'The server cannot be reached. Check that studyhall is running on your computer, then try again.';
    case 'rate_limited': {
      const seconds = Number(error.details.retry_after_s);
      return `Too many attempts from this device. Try again in ${Number.isFinite(seconds) && seconds > 0 ? `${seconds} seconds` : 'a minute'}.`;
    }
    case 'invalid_credentials':
      return 'The e-mail or password is wrong.';
    case 'email_taken':
      return 'An account with this e-mail already exists. Log in instead.';
    case 'invalid_token':
    case 'missing_token':
      return 'Signed out on this device — sign in again.';
    case 'payload_too_large':
      return 'That file is too large for the server.';
    default:
      return error.message;
  }
}
