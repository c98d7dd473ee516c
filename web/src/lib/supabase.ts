// supabase-js, loaded only when something needs the backend session (sign-in, a sync, a backup):
// it keeps the session in localStorage under AUTH_STORAGE_KEY and refreshes the access token.
// Every request goes to this origin's /__backend, so the page never talks to another origin.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { clientConfig } from './client-config.ts';
import { AUTH_STORAGE_KEY } from './session-storage.ts';

let client: Promise<SupabaseClient> | undefined;

export function supabase(): Promise<SupabaseClient> {
  client ??= clientConfig()
    .then((config) =>
      createClient(new URL(config.backend_url, location.origin).href.replace(/\/$/, ''), config.anon_key, {
        auth: { storageKey: AUTH_STORAGE_KEY, persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
      }),
    )
    .catch((error: unknown) => {
      client = undefined;
      throw error;
    });
  return client;
}
