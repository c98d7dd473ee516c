// A signed upload URL writes for its signer (the token's `owner`) for two hours, with the storage
// server's own rights rather than the signer's. So it writes only while the signer is an account
// that may still write: one that exists, is not soft-deleted and is not banned. storage-api does
// not ask; without asking, a URL signed before the account was deleted left an object naming an
// account that no longer exists. Asked twice: before the body is read (a refused upload costs no
// transfer), and in the writing transaction with the account's row locked `for key share`, so a
// deletion of the account waits for the write and then finds the object (and is refused, stored
// objects going first), while a write that waited for a deletion finds no account.
import type pg from 'pg';
import { StorageError } from './errors.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Storage's AccessDenied, as a policy refusal answers; it does not say whether she left or was banned. */
export const signerInactive = () =>
  new StorageError(
    403,
    'AccessDenied',
    'Unauthorized',
    'The account that signed this upload URL no longer exists or is banned',
  );

/**
 * Refuses unless the signer is an active account. `lock` takes the account's row `for key share`
 * (only in a writing transaction: a read-only one may not lock).
 */
export async function requireActiveSigner(
  client: pg.PoolClient,
  signer: string,
  { lock }: { lock: boolean },
): Promise<void> {
  if (!UUID.test(signer)) throw signerInactive();
  const result = await client.query(
    `select 1 from auth.users u
     where u.id = $1::uuid and u.deleted_at is null and not coalesce(u.banned_until > now(), false)
     ${lock ? 'for key share' : ''}`,
    [signer],
  );
  if (result.rows.length === 0) throw signerInactive();
}
