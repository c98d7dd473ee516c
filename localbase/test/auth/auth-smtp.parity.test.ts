// With an SMTP URL, auth mail goes out through nodemailer (to a loopback SMTP sink here) and the
// outbox stays empty.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { startSmtpSink, type SmtpSink } from '#tools/testing/smtp-sink.ts';
import type { Localbase } from '../../server.ts';
import { clientFor, signedUpClient } from '../clients.ts';
import { outboxFor, readOutbox } from '../outbox.ts';

let sink: SmtpSink;
let localbase: Localbase;

beforeAll(async () => {
  sink = await startSmtpSink();
  localbase = await startLocalbaseStack({ auth: { smtpUrl: sink.url } });
});

afterAll(async () => {
  await localbase?.close();
  await sink?.close();
});

describe('SMTP', () => {
  it('sends the recovery mail, plain text and HTML, with a working link', async () => {
    const user = await signedUpClient(localbase, 'smtp');
    expect((await clientFor(localbase).auth.resetPasswordForEmail(user.email)).error).toBeNull();
    const mail = await sink.waitFor(user.email);
    expect(mail.from).toBe('admin@localhost');
    expect(mail.data).toMatch(/^Subject: Reset Your Password$/m);
    expect(mail.data).toContain('text/plain');
    expect(mail.data).toContain('text/html');
    const secret = /token=([0-9a-f]{64})/.exec(mail.data.replace(/=\r\n/g, '').replace(/=3D/g, '='))?.[1];
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    const verified = await clientFor(localbase).auth.verifyOtp({ token_hash: secret as string, type: 'recovery' });
    expect(verified.error).toBeNull();
    expect(await outboxFor(localbase, user.email)).toEqual([]);
    expect(((await (await readOutbox(localbase)).json()) as { smtp: boolean }).smtp).toBe(true);
  });

  it('sends nothing for an unknown address', async () => {
    const email = `smtp-nobody-${process.pid}@example.com`;
    await clientFor(localbase).auth.resetPasswordForEmail(email);
    const known = await signedUpClient(localbase, 'smtp-known');
    await clientFor(localbase).auth.resetPasswordForEmail(known.email);
    await sink.waitFor(known.email);
    expect(sink.messages.some((message) => message.to.includes(email))).toBe(false);
  });
});
