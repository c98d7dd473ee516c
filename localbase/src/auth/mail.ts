// The mail auth sends (confirmation, magic link, recovery, invite, e-mail change, reauthentication
// code), with GoTrue's default subjects. With an SMTP URL it goes out through nodemailer; without
// one it is kept in the local outbox (_localbase.outbox), which the management API lists, as the
// Supabase CLI keeps a local project's mail in Inbucket/Mailpit. The outbox keeps 7 days, at most
// the newest 500 messages, and no mail of an account once it is deleted (auth-schema.ts).
import type { Transporter } from 'nodemailer';
import type pg from 'pg';
import { withOwnerTransaction } from '../request-transaction.ts';
import type { TokenType } from './one-time-tokens.ts';

export interface Mail {
  /** The account the mail is for: the outbox keeps it only as long as that account exists. */
  userId: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
}

export interface Mailer {
  send(mail: Mail): Promise<void>;
  close(): void;
}

export const OUTBOX_KEEP_DAYS = 7;
export const OUTBOX_KEEP_MESSAGES = 500;
/** The sender of SMTP mail, as the Supabase CLI's default. */
export const MAIL_FROM = 'studyhall <admin@localhost>';

/** Keeps the mail in the database. */
export function outboxMailer(pool: pg.Pool): Mailer {
  return {
    send: (mail) => withOwnerTransaction(pool, (client) => keepInOutbox(client, mail)),
    close() {},
  };
}

/**
 * Stores the mail and drops what is past the outbox's bounds (older than 7 days, beyond the newest
 * 500). Mail for an account deleted since its token was issued is not kept: its link leads nowhere,
 * and the outbox holds nothing of a deleted account.
 */
async function keepInOutbox(client: pg.PoolClient, mail: Mail): Promise<void> {
  await client.query(
    `insert into _localbase.outbox (user_id, to_address, subject, text_body, html_body, link)
     select u.id, $2, $3, $4, $5, $6 from auth.users u where u.id = $1`,
    [mail.userId, mail.to, mail.subject, mail.text, mail.html, mail.link],
  );
  await client.query(
    `delete from _localbase.outbox where created_at < now() - make_interval(days => $1)
       or id <= (select id from _localbase.outbox order by id desc offset $2 limit 1)`,
    [OUTBOX_KEEP_DAYS, OUTBOX_KEEP_MESSAGES],
  );
}

/**
 * Sends through SMTP (nodemailer, loaded on first use). The SMTP conversation happens outside the
 * database: the mail is handed over after the token is stored, and a failure is the caller's to log.
 */
export function smtpMailer(smtpUrl: string): Mailer {
  let transport: Promise<Transporter> | undefined;
  const open = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) => nodemailer.createTransport(smtpUrl)));
  return {
    async send(mail) {
      await (
        await open()
      ).sendMail({ from: MAIL_FROM, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    },
    close() {
      void transport?.then((opened) => opened.close());
    },
  };
}

export interface OutboxMessage {
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  link: string | null;
  created_at: string;
}

export async function listOutbox(pool: pg.Pool, limit: number): Promise<OutboxMessage[]> {
  const { rows } = await pool.query<OutboxMessage>(
    `select o.id::text as id, o.to_address as "to", o.subject, o.text_body as text, o.html_body as html, o.link,
       to_char(o.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
     from _localbase.outbox o order by o.id desc limit $1`,
    [limit],
  );
  return rows;
}

type MailPurpose = TokenType;

/** GoTrue's default subjects; both mails of an address change have the same one, as GoTrue's. */
const SUBJECTS: Record<MailPurpose, string> = {
  signup: 'Confirm Your Signup',
  invite: 'You have been invited',
  magiclink: 'Your Magic Link',
  recovery: 'Reset Your Password',
  email_change_new: 'Confirm Email Change',
  email_change_current: 'Confirm Email Change',
  reauthentication: 'Confirm reauthentication',
};

/** What an address change mail names: the address now, the one asked for, and whether both confirm. */
export interface AddressChange {
  from: string;
  to: string;
  bothConfirm: boolean;
}

const IGNORE_IT = 'If you did not ask for this, you can ignore this message.';
const LIFETIME = 'The link and code work once, for one hour.';

/** The sentence that says what the link does, and what else the reader should know. */
function wordsFor(purpose: MailPurpose, change: AddressChange | undefined): { action: string; notes: string[] } {
  const simple = (action: string) => ({ action, notes: [`${IGNORE_IT} ${LIFETIME}`] });
  switch (purpose) {
    case 'signup':
      return simple('Follow this link to confirm your e-mail address:');
    case 'invite':
      return simple('You have been invited to create an account. Follow this link to accept the invite:');
    case 'magiclink':
      return simple('Follow this link to sign in:');
    case 'recovery':
      return simple('Follow this link to reset the password of your account:');
    case 'reauthentication':
      return simple('Enter this code to confirm it is you:');
    case 'email_change_new':
    case 'email_change_current': {
      const { from, to, bothConfirm } = change ?? { from: '', to: '', bothConfirm: false };
      const other = purpose === 'email_change_new' ? from : to;
      const notes = bothConfirm
        ? [`Your address changes once this link and the one sent to ${other} have both been followed.`]
        : [];
      if (purpose === 'email_change_new') {
        return {
          action: `Confirm the change of your e-mail address from ${from} to this one (${to}) by following this link:`,
          notes: [...notes, `${IGNORE_IT} ${LIFETIME}`],
        };
      }
      // The mail to the address the account has now is how its owner learns of a change she did
      // not ask for: whoever asked holds a session of hers.
      return {
        action: `Confirm the change of your e-mail address from ${from} to ${to} by following this link:`,
        notes: [
          ...notes,
          'If you did not ask for this, do not follow the link: your address stays as it is. ' +
            'Someone who can use your account asked for it, so change your password. ' +
            LIFETIME,
        ],
      };
    }
  }
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/**
 * The message for a token: the link (none for a reauthentication code) and the 6-digit code. An
 * address change mail (`email_change_new`, `email_change_current`) names both addresses.
 */
export function composeMail(
  purpose: MailPurpose,
  userId: string,
  to: string,
  link: string | null,
  otp: string,
  change?: AddressChange,
): Mail {
  const { action, notes } = wordsFor(purpose, change);
  const lines = [action, '', link ?? otp, ''];
  if (link) lines.push(`Or enter this code: ${otp}`, '');
  for (const note of notes) lines.push(note, '');
  const html = [
    `<h2>${escapeHtml(SUBJECTS[purpose])}</h2>`,
    `<p>${escapeHtml(action)}</p>`,
    link
      ? `<p><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>Or enter this code: ${otp}</p>`
      : `<p><strong>${otp}</strong></p>`,
    ...notes.map((note) => `<p>${escapeHtml(note)}</p>`),
  ].join('\n');
  return { userId, to, subject: SUBJECTS[purpose], text: lines.join('\n').trimEnd(), html, link };
}
