// GET /__admin/outbox: the mail localbase's auth kept instead of sending it (no SMTP_URL), newest
// first, as the Supabase CLI shows a local project's mail in Inbucket/Mailpit. Read from
// localbase's management API with its access token, which only the embedded localbase gives the
// gateway; fronting a hosted project, the page says there is no outbox. Read-only: no form, no CSRF.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../../http-errors.ts';
import { jsonOrPage } from '../../route-schemas.ts';
import type { AdminContext } from '../admin-context.ts';
import { pageAnswers } from '../console-schemas.ts';
import { sendData } from '../respond.ts';
import { outboxBody, type OutboxMessage } from './outbox-page.ts';

const outboxAnswer = z.object({
  smtp: z.boolean(),
  messages: z.array(
    z.object({ to: z.string(), subject: z.string(), link: z.string().nullable(), created_at: z.string() }).loose(),
  ),
});

/** What the page lists; the bodies stay in localbase (they carry the same link and code). */
const SHOWN = 100;

const outboxPage = z.object({
  available: z.boolean().describe('false when fronting a hosted backend: it keeps no outbox here.'),
  smtp: z.boolean(),
  messages: z.array(
    z.object({ to: z.string(), subject: z.string(), link: z.string().nullable(), created_at: z.string() }),
  ),
});
const outboxSchema = { response: pageAnswers({ 200: jsonOrPage(outboxPage, 'The kept mail, newest first.') }) };

const outboxRoutes: FastifyPluginAsyncZod<{ context: AdminContext }> = async (app, { context }) => {
  app.get('/__admin/outbox', { schema: outboxSchema }, async (request, reply) => {
    const { url, managementToken } = context.backend.target;
    let messages: OutboxMessage[] | undefined;
    let smtp = false;
    if (managementToken) {
      const response = await fetch(`${url}/v1/projects/local/auth/outbox?limit=${SHOWN}`, {
        headers: { authorization: `Bearer ${managementToken}` },
        signal: AbortSignal.timeout(10_000),
      }).catch(() => undefined);
      const parsed = response?.ok ? outboxAnswer.safeParse(await response.json()) : undefined;
      if (!parsed?.success)
        throw new GatewayError(502, 'backend_unavailable', 'localbase did not answer with its outbox.');
      ({ smtp } = parsed.data);
      messages = parsed.data.messages.map(({ to, subject, link, created_at }) => ({ to, subject, link, created_at }));
    }
    const page: z.output<typeof outboxPage> = { available: messages !== undefined, smtp, messages: messages ?? [] };
    return sendData(request, reply, page, () => ({
      title: 'Outbox',
      current: '/__admin/outbox',
      body: outboxBody({ messages, smtp }),
    }));
  });
};

export default outboxRoutes;
