// Where the admin console's Management API calls go (apply-sql): MANAGEMENT_API_URL and
// BACKEND_PROJECT_REF when set; otherwise Supabase's own API and the project named by a
// `<ref>.supabase.co` BACKEND_URL, or, with the embedded localbase, localbase itself and `local`.
import type { BackendTarget } from '../backend/backend-client.ts';
import type { GatewayConfig } from '../config.ts';

export const SUPABASE_MANAGEMENT_API_URL = 'https://api.supabase.com';
export const LOCALBASE_PROJECT_REF = 'local';

export interface ManagementTarget {
  url: string;
  /** Undefined when neither BACKEND_PROJECT_REF nor a *.supabase.co BACKEND_URL names it. */
  projectRef: string | undefined;
  /**
   * The embedded localbase's management token, when the apply form talks to that localbase: the
   * patch page fills it in for the admin, who would otherwise have to dig it out of DATA_DIR.
   */
  localToken?: string | undefined;
}

/** `abcd1234` for https://abcd1234.supabase.co; undefined for any other host. */
export function supabaseProjectRef(backendUrl: string): string | undefined {
  const host = new URL(backendUrl).hostname.toLowerCase();
  return /^([a-z0-9]+)\.supabase\.co$/.exec(host)?.[1];
}

export function managementTarget(
  config: GatewayConfig,
  backend: BackendTarget,
  localbaseToken?: string,
): ManagementTarget {
  const hosted = config.backend !== undefined;
  const url = config.admin.managementApiUrl ?? (hosted ? SUPABASE_MANAGEMENT_API_URL : backend.url);
  return {
    url,
    projectRef: config.admin.projectRef ?? (hosted ? supabaseProjectRef(backend.url) : LOCALBASE_PROJECT_REF),
    // Only for the localbase it belongs to: never handed to another API.
    ...(!hosted && localbaseToken && url === backend.url ? { localToken: localbaseToken } : {}),
  };
}
