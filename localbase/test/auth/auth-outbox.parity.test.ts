// Auth's outbox holds mail only of accounts that exist: each message names its account (user_id,
// a foreign key that cascades), so deleting the account in any way deletes her mail; mail for an
// account deleted before it was stored is not kept; and an outbox made before the column is tied
// to its accounts by address when localbase starts, the mail of accounts already gone dropped.
// On PGlite and on PostgreSQL 15.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '#db/database.ts';
import { openParityDatabase } from '#tools/testing/parity-database.ts';
import { installAuthSchema } from '../../src/auth/auth-schema.ts';
import { composeMail, outboxMailer } from '../../src/auth/mail.ts';

let database: Database;

beforeAll(async () => {
  database = await openParityDatabase();
  await installAuthSchema(database.pool);
});

afterAll(async () => {
  await database?.close();
});

async function createAccount(email: string, emailChange: string | null = null): Promise<string> {
  const id = randomUUID();
  await database.pool.query(`insert into auth.users (id, email, email_change) values ($1, $2, $3)`, [
    id,
    email,
    emailChange,
  ]);
  return id;
}

async function outboxRecipients(): Promise<{ to_address: string; user_id: string }[]> {
  const { rows } = await database.pool.query<{ to_address: string; user_id: string }>(
    'select to_address, user_id from _localbase.outbox order by id',
  );
  return rows;
}

const recovery = (userId: string, to: string) =>
  composeMail('recovery', userId, to, 'http://127.0.0.1/verify?token=x', '123456');

describe("auth's outbox and the accounts it mails", () => {
  it('keeps the mail with its account, and deletes it with the account', async () => {
    await database.pool.query('delete from _localbase.outbox');
    const leaving = await createAccount('outbox-leaving@example.com');
    const staying = await createAccount('outbox-staying@example.com');
    const mailer = outboxMailer(database.pool);
    await mailer.send(recovery(leaving, 'outbox-leaving@example.com'));
    await mailer.send(recovery(leaving, 'outbox-new-address@example.com'));
    await mailer.send(recovery(staying, 'outbox-staying@example.com'));

    await database.pool.query('delete from auth.users where id = $1', [leaving]);

    expect(await outboxRecipients()).toEqual([{ to_address: 'outbox-staying@example.com', user_id: staying }]);
  });

  it('does not keep mail for an account deleted before it was stored', async () => {
    await database.pool.query('delete from _localbase.outbox');
    await outboxMailer(database.pool).send(recovery(randomUUID(), 'outbox-nobody@example.com'));
    expect(await outboxRecipients()).toEqual([]);
  });

  it('ties an outbox made before user_id to its accounts by address, and drops the mail of accounts gone', async () => {
    const owner = await createAccount('outbox-old@example.com');
    const mover = await createAccount('outbox-mover@example.com', 'outbox-mover-next@example.com');
    await database.pool.query(`drop table _localbase.outbox;
      create table _localbase.outbox (
        id bigint generated always as identity primary key,
        to_address text not null, subject text not null, text_body text not null, html_body text not null,
        link text, created_at timestamptz not null default now());
      insert into _localbase.outbox (to_address, subject, text_body, html_body) values
        ('Outbox-Old@example.com', 's', 't', 'h'),
        ('outbox-mover-next@example.com', 's', 't', 'h'),
        ('outbox-deleted-long-ago@example.com', 's', 't', 'h');
      delete from _localbase.installed where name = 'auth-tokens-and-outbox';`);

    await installAuthSchema(database.pool);

    expect(await outboxRecipients()).toEqual([
      { to_address: 'Outbox-Old@example.com', user_id: owner },
      { to_address: 'outbox-mover-next@example.com', user_id: mover },
    ]);
    const { rows } = await database.pool.query<{ is_nullable: string }>(
      `select is_nullable from information_schema.columns
       where table_schema = '_localbase' and table_name = 'outbox' and column_name = 'user_id'`,
    );
    expect(rows).toEqual([{ is_nullable: 'NO' }]);
  });
});
