// The community's one door to the backend: supabase-js (lazy, through /__backend, with the
// student's own token), so row-level security and the database functions decide what anyone sees.
// Every answer the screens depend on is checked with zod; every failure becomes a CommunityError
// whose `code` is the database's raised code (not_group_member, user_not_found, ...) or `offline`.
import type { SupabaseClient } from '@supabase/supabase-js';
import { z } from 'zod';
import { supabase } from '../supabase.ts';

// The app runs under a policy without 'unsafe-eval': zod must not compile validators with Function.
z.config({ jitless: true });

export class CommunityError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 0,
  ) {
    super(message);
    this.name = 'CommunityError';
  }

  get offline(): boolean {
    return this.code === 'offline';
  }
}

interface BackendFailure {
  message?: string;
  code?: string;
  hint?: string | null;
  status?: number;
  name?: string;
}

/** A supabase-js error (PostgREST, Storage, a failed fetch) as a CommunityError. */
export function communityError(failure: BackendFailure | null | undefined, status = 0): CommunityError {
  const message = failure?.message ?? '';
  // A request that never reached the server: fetch's TypeError, surfaced by postgrest-js.
  if (
    /failed to fetch|networkerror|load failed|fetch failed/i.test(message) ||
    (status === 0 && !failure?.code && /TypeError/.test(message))
  ) {
    return new CommunityError('offline', 'The server could not be reached.');
  }
  // Raised codes travel as the message (raise exception 'not_group_member' ...): a bare word.
  if (/^[a-z][a-z0-9_]*$/.test(message)) return new CommunityError(message, failure?.hint ?? message, status);
  if (failure?.code === '42501') return new CommunityError('not_allowed', message, status);
  if (status === 401 || failure?.code === 'PGRST301' || failure?.code === 'PGRST303')
    return new CommunityError('signed_out', 'Sign in again.', status);
  return new CommunityError(failure?.code || `http_${status}`, message || 'The server refused the request.', status);
}

let testClient: SupabaseClient | undefined;

/** Tests outside a page hand in their own client (Node has no /__backend or localStorage). */
export function useClientForTests(client: SupabaseClient | undefined): void {
  testClient = client;
}

export async function client(): Promise<SupabaseClient> {
  if (testClient) return testClient;
  try {
    return await supabase();
  } catch {
    throw new CommunityError('offline', 'The server could not be reached.');
  }
}

/** Calls a database function and checks its answer. */
export async function rpc<T>(name: string, args: Record<string, unknown>, schema: z.ZodType<T>): Promise<T> {
  const { data, error, status } = await (await client()).rpc(name, args);
  if (error) throw communityError(error, status);
  const parsed = schema.safeParse(data);
  if (!parsed.success)
    throw new CommunityError('unexpected_answer', `The server's answer to ${name} was not what this app expects.`);
  return parsed.data;
}

/** A read of rows through the Data API (RLS filters them), checked row by row. */
export async function rows<T>(
  query: PromiseLike<{ data: unknown; error: BackendFailure | null; status: number }>,
  schema: z.ZodType<T>,
): Promise<T[]> {
  const { data, error, status } = await query;
  if (error) throw communityError(error, status);
  const parsed = z.array(schema).safeParse(data ?? []);
  if (!parsed.success)
    throw new CommunityError('unexpected_answer', 'The server answered with rows this app does not expect.');
  return parsed.data;
}

/** A write whose answer does not matter beyond success. */
export async function write(query: PromiseLike<{ error: BackendFailure | null; status: number }>): Promise<void> {
  const { error, status } = await query;
  if (error) throw communityError(error, status);
}

/** The signed-in student's id as the backend knows it (null when signed out). */
export async function currentUserId(): Promise<string | null> {
  const { data } = await (await client()).auth.getSession();
  return data.session?.user.id ?? null;
}

/** The answer of a function that returns nothing (void): whatever the Data API sends for it. */
export const nothing = z.unknown().transform(() => null);
