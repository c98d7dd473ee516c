// What a Data API statement answers (one row: total, rows returned, the body, the response GUCs,
// the upsert counter, the Location parts) and how it becomes an HTTP answer.
import type { FastifyReply } from 'fastify';
import type pg from 'pg';
import { z } from 'zod';
import { gucHeadersError, gucStatusError } from './errors.ts';

/** What one statement answered (see sql.ts: readStatement, writeStatement, callStatement). */
const resultRow = z.object({
  total: z.union([z.string(), z.number()]).nullable(),
  returned: z.union([z.string(), z.number()]).nullable(),
  body: z.string().nullable(),
  response_headers: z.string().nullable(),
  response_status: z.string().nullable(),
  inserted: z.number().nullable(),
  location: z.array(z.string()).nullable(),
});

export interface StatementResult {
  total: number | undefined;
  returned: number;
  body: string;
  gucHeaders: string | undefined;
  gucStatus: string | undefined;
  inserted: number | undefined;
  location: string[];
}

export function statementResult(result: pg.QueryResult): StatementResult {
  const row = resultRow.parse(result.rows[0]);
  return {
    total: row.total === null ? undefined : Number(row.total),
    returned: Number(row.returned ?? 0),
    body: row.body ?? '',
    gucHeaders: row.response_headers ?? undefined,
    gucStatus: row.response_status ?? undefined,
    inserted: row.inserted ?? undefined,
    location: row.location ?? [],
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Headers and status a function or trigger set through response.headers / response.status. */
export function applyGucs(answer: Answer, result: StatementResult): Answer {
  let status = answer.status;
  const headers = { ...answer.headers };
  if (result.gucStatus !== undefined) {
    const code = Number(result.gucStatus);
    if (!/^\d+$/.test(result.gucStatus) || code < 100 || code > 599) throw gucStatusError();
    status = code;
  }
  if (result.gucHeaders !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(result.gucHeaders);
    } catch {
      throw gucHeadersError();
    }
    const list = z
      .array(z.record(z.string(), z.string()).refine((entry) => Object.keys(entry).length === 1))
      .safeParse(parsed);
    if (!list.success) throw gucHeadersError();
    for (const entry of list.data) {
      const [name, value] = Object.entries(entry)[0] as [string, string];
      for (const existing of Object.keys(headers))
        if (existing.toLowerCase() === name.toLowerCase()) delete headers[existing];
      headers[name] = value;
    }
  }
  return { status, headers, body: answer.body };
}

export function send(reply: FastifyReply, answer: Answer): FastifyReply {
  reply.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) reply.header(name, value);
  if (answer.body === undefined || answer.status === 204) return reply.send();
  return reply.send(answer.body);
}

export function withOptional(
  headers: Record<string, string>,
  name: string,
  value: string | undefined,
): Record<string, string> {
  if (value !== undefined) headers[name] = value;
  return headers;
}

/** The planner's row estimate from `EXPLAIN (FORMAT JSON)` of a count query. */
export function planRowsOf(result: pg.QueryResult): number | undefined {
  const plan = z
    .array(z.object({ Plan: z.object({ 'Plan Rows': z.number() }).passthrough() }).passthrough())
    .safeParse(result.rows[0]?.['QUERY PLAN']);
  return plan.success ? plan.data[0]?.Plan['Plan Rows'] : undefined;
}
