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
}

/** `abcd1234` for https://abcd1234.supabase.co; undefined for any other host. */
export function supabaseProjectRef(backendUrl: string): string | undefined {
  const host = new URL(backendUrl).hostname.toLowerCase();
  return /^([a-z0-9]+)\.supabase\.co$/.exec(host)?.[1];
}

export function managementTarget(config: GatewayConfig, backend: BackendTarget): ManagementTarget {
  const hosted = config.backend !== undefined;
  return {
    url: config.admin.managementApiUrl ?? (hosted ? SUPABASE_MANAGEMENT_API_URL : backend.url),
    projectRef: config.admin.projectRef ?? (hosted ? supabaseProjectRef(backend.url) : LOCALBASE_PROJECT_REF),
  };
}
