// Reading auth's outbox through the management API in tests, as the admin console reads it.
import { expect } from 'vitest';
import type { Localbase } from '../server.ts';
import type { OutboxMessage } from '../src/auth/mail.ts';

export type { OutboxMessage };

export async function readOutbox(localbase: Localbase, token = localbase.accessToken): Promise<Response> {
  return fetch(`${localbase.url}/v1/projects/local/auth/outbox`, { headers: { authorization: `Bearer ${token}` } });
}

export async function outboxFor(localbase: Localbase, to: string): Promise<OutboxMessage[]> {
  const response = await readOutbox(localbase);
  expect(response.status).toBe(200);
  const { messages } = (await response.json()) as { messages: OutboxMessage[] };
  return messages.filter((message) => message.to === to);
}

/** The newest mail to `to` beyond the `seen` count: the routes that mail answer first and send after. */
export async function nextMail(localbase: Localbase, to: string, seen = 0): Promise<OutboxMessage> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const messages = await outboxFor(localbase, to);
    if (messages.length > seen && messages[0]) return messages[0];
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no mail to ${to} arrived`);
}

/** The link secret and the code a mail carries. */
export function tokensOf(message: OutboxMessage): { secret: string; otp: string; link: URL } {
  const link = new URL(message.link ?? 'http://no-link.invalid/');
  const otp = (/code: (\d{6})/.exec(message.text) ?? /^(\d{6})$/m.exec(message.text))?.[1];
  return { secret: link.searchParams.get('token') ?? '', otp: otp ?? '', link };
}
