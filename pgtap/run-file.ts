// Runs one pgTAP file statement by statement on one connection, the way psql does for pg_prove,
// so that output printed before an error is kept and the failing statement can be named.
import { postgreSplitterOptions, splitQuery } from 'dbgate-query-splitter';
import type pg from 'pg';
import { judgeTap, parseTap, type TapReport, type TapVerdict } from './tap.ts';

export interface PgtapFileRun extends TapVerdict {
  report: TapReport;
  output: string[];
}

interface Statement {
  text: string;
  line: number;
}

function splitStatements(sql: string): Statement[] {
  const pieces = splitQuery(sql, { ...postgreSplitterOptions, returnRichInfo: true }) as Array<{
    text: string;
    trimStart?: { line: number };
    start: { line: number };
  }>;
  return pieces.map((piece) => ({ text: piece.text, line: (piece.trimStart ?? piece.start).line + 1 }));
}

// `select * from finish()` or `select finish()`, after any leading comment lines.
const CALLS_FINISH = /^(?:\s*--[^\n]*\n)*\s*select\s+(?:\*\s+from\s+)?finish\s*\(/i;

/** Every text cell of every row, in order: pgTAP functions return their TAP lines as rows. */
function tapLines(results: pg.QueryResult | pg.QueryResult[]): string[] {
  const list = Array.isArray(results) ? results : [results];
  return list.flatMap((result) =>
    (result.rows ?? []).flatMap((row: Record<string, unknown>) =>
      Object.values(row).filter((value): value is string => typeof value === 'string'),
    ),
  );
}

export async function runPgtapFile(client: pg.ClientBase, sql: string, fileName = 'file'): Promise<PgtapFileRun> {
  const output: string[] = [];
  let finished = false;
  let error: string | undefined;
  for (const statement of splitStatements(sql)) {
    try {
      output.push(...tapLines(await client.query(statement.text)));
      if (CALLS_FINISH.test(statement.text)) finished = true;
    } catch (caught) {
      const pgError = caught as pg.DatabaseError;
      const excerpt = statement.text.split('\n').slice(0, 6).join('\n');
      error =
        `SQL error at ${fileName}:${statement.line}: ${pgError.message}` +
        (pgError.code ? ` (SQLSTATE ${pgError.code})` : '') +
        (pgError.where ? `\n  where: ${pgError.where}` : '') +
        `\n  statement: ${excerpt}`;
      break;
    }
  }
  await resetSession(client);
  const report = parseTap(output);
  return { ...judgeTap(report, { finished, error }), report, output };
}

/** Leaves the session as it was found, whatever the file did (files are begin ... rollback). */
async function resetSession(client: pg.ClientBase): Promise<void> {
  await client.query('rollback').catch(() => {});
  await client.query('reset role');
  await client.query(`select set_config('request.jwt.claims', '', false)`);
}
