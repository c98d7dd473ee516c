// The password check behind the password grant: one bcrypt comparison of the usual cost on every
// path, so that a wrong password takes as long for an unknown e-mail (or an account without a
// password, or with a hash bcrypt cannot read) as for a registered one, and only a real hash matches.
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dummyPasswordHash, hashPassword, passwordMatches } from '../src/auth/users.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('passwordMatches', () => {
  it('matches the right password against a real hash, and not a wrong one', async () => {
    const hash = await hashPassword('correct horse');
    expect(await passwordMatches('correct horse', hash)).toBe(true);
    expect(await passwordMatches('wrong horse', hash)).toBe(false);
  });

  it('has a dummy hash bcrypt reads, at the cost real passwords are hashed with, that nothing made at start', async () => {
    const hash = vi.spyOn(bcrypt, 'hash');
    const dummy = dummyPasswordHash();
    expect(dummy).toMatch(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.getRounds(dummy)).toBe(bcrypt.getRounds(await hashPassword('any password')));
    expect(hash).toHaveBeenCalledTimes(1);
    // Comparing against it takes a whole comparison of that cost, as against a real hash.
    expect(await bcrypt.compare('any password', dummy)).toBe(false);
  });

  it.each([
    ['no account (unknown or deleted e-mail)', undefined],
    ['an account without a password', null],
    ['a hash bcrypt cannot read', 'plain-text-password'],
    ['an empty hash', ''],
  ])('compares against the dummy hash for %s, and never matches', async (_what, hash) => {
    const dummy = dummyPasswordHash();
    const compare = vi.spyOn(bcrypt, 'compare');
    // Even the one password that might equal an unreadable "hash" does not match.
    expect(await passwordMatches(hash ?? 'plain-text-password', hash)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.calls[0]?.[1]).toBe(dummy);
  });

  it('compares a real hash once, against that hash', async () => {
    const hash = await hashPassword('correct horse');
    const compare = vi.spyOn(bcrypt, 'compare');
    await passwordMatches('wrong horse', hash);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.calls[0]?.[1]).toBe(hash);
  });
});
