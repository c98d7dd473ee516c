// /api/client-config (the backend's public settings), remembered so the app can start offline.
import { requestJson } from './api.ts';

export interface ClientConfig {
  backend_url: string;
  anon_key: string;
  /**
   * Where other devices open the app (app-address.ts), or null when only this computer reaches the
   * server; absent from a config remembered from an older server.
   */
  app_url?: string | null;
  /** The server's plain-HTTP LAN addresses, for the phone remote. */
  companion_urls?: string[];
  /** Where the app is a secure context (https), or null; absent from a config remembered by an older app. */
  https_url?: string | null;
  /**
   * Whether the backend's auth mail reaches the student's mailbox; false without a mail server,
   * when a reset link waits with whoever runs the server. Absent from a config an older server sent.
   */
  sends_mail?: boolean;
}

const STORAGE_KEY = 'studyhall-client-config';
let loading: Promise<ClientConfig> | undefined;

function remembered(): ClientConfig | null {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as ClientConfig | null;
    return value && typeof value.anon_key === 'string' && typeof value.backend_url === 'string' ? value : null;
  } catch {
    return null;
  }
}

export function clientConfig(): Promise<ClientConfig> {
  loading ??= requestJson<ClientConfig>('/api/client-config')
    .then((config) => {
      localStorage.setItem(STORAGE_KEY, JSON.stringify(config));
      return config;
    })
    .catch((error: unknown) => {
      loading = undefined;
      const fallback = remembered();
      if (fallback) return fallback;
      throw error;
    });
  return loading;
}

/**
 * The next clientConfig() asks the server again. For tests that stand up a gateway of their own:
 * test files share a worker's modules, and the answer of another file's server would be kept.
 */
export function forgetClientConfig(): void {
  loading = undefined;
}
