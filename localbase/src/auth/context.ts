// What the auth route files share: the database, the signing key, the mailer, the redirect rules,
// the e-mail change setting, the password hashing, and the checks of who is calling.
import type { FastifyRequest } from 'fastify';
import type pg from 'pg';
import type { VerifiedToken } from '../jwt.ts';
import type { Mailer } from './mail.ts';
import type { RedirectPolicy } from './redirects.ts';
import type { SessionSigning } from './sessions.ts';
import type { PasswordHashing } from './users.ts';

export interface SignedInCaller extends VerifiedToken {
  userId: string;
  sessionId: string;
}

export interface AuthContext {
  pool: pg.Pool;
  signing: SessionSigning;
  mailer: Mailer;
  redirects: RedirectPolicy;
  /** `<API URL as mail readers reach it>/auth/v1`: the base of the links in mail. */
  linkBase: () => string;
  /** Whether an address change waits for the current address to confirm too (email-change.ts). */
  doubleConfirmEmailChanges: boolean;
  /** bcrypt at the server's cost (users.ts). */
  passwords: PasswordHashing;
  signedInUser(request: FastifyRequest): Promise<SignedInCaller>;
  requireServiceRole(request: FastifyRequest): Promise<void>;
  /** Runs `work` after the answer, logging a failure: see email-routes.ts for why. */
  afterAnswer(request: FastifyRequest, work: () => Promise<void>): void;
}
