// The Supabase Management API's one call the console makes: run SQL on a project,
// `POST {url}/v1/projects/{ref}/database/query` with the admin's personal access token as bearer.
// The token is used for this one request and dropped: never stored, logged or echoed (if the API
// ever repeated it in an answer, it is cut out before anything is shown).
import { GatewayError } from '../../http-errors.ts';
import type { ManagementTarget } from '../admin-settings.ts';

/** DDL bundles can take a while on a busy hosted project. */
export const MANAGEMENT_TIMEOUT_MS = 120_000;

export interface ManagementAnswer {
  ok: boolean;
  status: number;
  /** The API's answer as it came: parsed JSON, or the text when it is not JSON. */
  result: unknown;
}

export const PROJECT_REF = /^[a-z0-9][a-z0-9-]{0,62}$/;

function withoutToken(text: string, token: string): string {
  return token.length >= 4 ? text.split(token).join('[redacted]') : text;
}

export async function runSqlOnProject(
  target: { url: string; projectRef: string },
  accessToken: string,
  query: string,
): Promise<ManagementAnswer> {
  const endpoint = `${target.url}/v1/projects/${encodeURIComponent(target.projectRef)}/database/query`;
  let response: Response;
  let text: string;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ query }),
      signal: AbortSignal.timeout(MANAGEMENT_TIMEOUT_MS),
    });
    text = withoutToken(await response.text(), accessToken);
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError'
        ? `no answer within ${MANAGEMENT_TIMEOUT_MS / 1000} s`
        : ((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message);
    throw new GatewayError(
      502,
      'management_api_unreachable',
      `The Management API at ${target.url} did not answer (${withoutToken(reason, accessToken)}).`,
      { management_api_url: target.url },
    );
  }
  let result: unknown = text;
  try {
    result = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: shown as text
  }
  return { ok: response.ok, status: response.status, result };
}

/** The project apply-sql runs on: the one asked for, else the configured or derived one. */
export function resolveTarget(
  management: ManagementTarget,
  projectRef: string | undefined,
): { url: string; projectRef: string } {
  const ref = projectRef ?? management.projectRef;
  if (!ref) {
    throw new GatewayError(
      400,
      'project_ref_required',
      'Name the project: send project_ref, or set BACKEND_PROJECT_REF (a BACKEND_URL on *.supabase.co names it by itself).',
    );
  }
  return { url: management.url, projectRef: ref };
}
