// Students for the start-alert tests, signed up and acting through supabase-js exactly as the web
// app does (their own tokens, so the database rules decide), plus reads of the outbox as the
// service role.
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import ws from 'ws';
import { z } from 'zod';

// Node 20 has no WebSocket of its own; realtime is not used here but supabase-js wants a transport.
const CLIENT_OPTIONS = {
  auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
  realtime: { transport: ws as never },
};

export interface Student {
  id: string;
  handle: string;
  client: SupabaseClient;
}

async function call<T>(promise: PromiseLike<{ data: T; error: unknown }>, what: string): Promise<T> {
  const { data, error } = await promise;
  if (error) throw new Error(`${what}: ${JSON.stringify(error)}`);
  return data;
}

export async function signUpStudent(backendUrl: string, anonKey: string, handle: string): Promise<Student> {
  const client = createClient(backendUrl, anonKey, CLIENT_OPTIONS);
  const signedUp = await call(
    client.auth.signUp({ email: `${handle}-${Date.now()}@example.com`, password: `${handle}-password-1` }),
    'sign up',
  );
  const id = signedUp.user?.id;
  if (!id) throw new Error('sign up returned no user');
  await call(client.rpc('community_bootstrap_profile', { p_handle: handle }), 'bootstrap profile');
  return { id, handle, client };
}

/** `follower` becomes `actor`'s buddy and asks for a start alert when `actor` starts studying. */
export async function followStartAlerts(follower: Student, actor: Student): Promise<void> {
  const connection = await call(
    follower.client.rpc('community_request_buddy', { p_handle: actor.handle }),
    'request buddy',
  );
  await call(
    actor.client.rpc('community_respond_buddy', { p_connection_id: connection, p_accept: true }),
    'accept buddy',
  );
  await call(
    follower.client.rpc('community_set_start_alert', { p_target_type: 'buddy', p_target_id: actor.id }),
    'set start alert',
  );
}

export async function registerDeviceToken(student: Student, token: string): Promise<void> {
  await call(student.client.rpc('community_register_device_token', { p_token: token }), 'register device token');
}

export async function deviceTokens(student: Student): Promise<string[]> {
  const rows = await call(student.client.from('community_device_tokens').select('token'), 'read device tokens');
  return z
    .array(z.object({ token: z.string() }))
    .parse(rows)
    .map((row) => row.token);
}

export async function shareCurrentSubject(student: Student): Promise<void> {
  const rows = await call(
    student.client.from('community_enrollments').select('privacy').eq('user_id', student.id),
    'read privacy',
  );
  const privacy = z.array(z.object({ privacy: z.record(z.string(), z.boolean()) })).parse(rows)[0]?.privacy;
  await call(
    student.client
      .from('community_enrollments')
      .update({ privacy: { ...privacy, shareCurrentSubject: true } })
      .eq('user_id', student.id),
    'share current subject',
  );
}

/** Leaves studying (break) and enters it again: one studying transition, so one alert per token. */
export async function startStudying(student: Student, subject = 'Anatomy'): Promise<void> {
  await call(student.client.rpc('community_heartbeat', { p_state: 'break' }), 'heartbeat break');
  await call(
    student.client.rpc('community_heartbeat', {
      p_state: 'studying',
      p_subject_id: 'subject-1',
      p_subject_name: subject,
    }),
    'heartbeat studying',
  );
}

export const outboxRowSchema = z.object({
  id: z.uuid(),
  token: z.string(),
  payload: z.record(z.string(), z.unknown()),
  attempts: z.number(),
  delivered_at: z.string().nullable(),
  failed_at: z.string().nullable(),
  last_error: z.string().nullable(),
  claim_id: z.string().nullable(),
  next_attempt_at: z.string(),
});
export type OutboxRow = z.infer<typeof outboxRowSchema>;

/** The outbox as the service role sees it, oldest first. */
export async function readOutbox(service: SupabaseClient, token?: string): Promise<OutboxRow[]> {
  let query = service.from('community_notification_outbox').select('*').order('created_at');
  if (token) query = query.eq('token', token);
  return z.array(outboxRowSchema).parse(await call(query, 'read outbox'));
}

export function serviceClient(backendUrl: string, serviceRoleKey: string): SupabaseClient {
  return createClient(backendUrl, serviceRoleKey, CLIENT_OPTIONS);
}

/** Polls until check() holds, or fails with the last value seen. */
export async function eventually<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs: number,
  what: string,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline)
      throw new Error(`${what}: not within ${timeoutMs} ms; last seen ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
