// The password check behind the password grant: one bcrypt comparison of the server's cost on every
// path, so that a wrong password takes as long for an unknown e-mail (or an account without a
// password, or with a hash bcrypt cannot read) as for a registered one, and only a real hash matches.
// The cost is GoTrue's 10 unless a server is given another (the test stacks: bcrypt's least, 4).
import bcrypt from 'bcryptjs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BCRYPT_COST, BCRYPT_MIN_COST, passwordHashing } from './users.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('password hashing', () => {
  it("hashes at GoTrue's cost by default, and matches the right password against it, not a wrong one", async () => {
    const passwords = passwordHashing();
    const hash = await passwords.hash('correct horse');
    expect(bcrypt.getRounds(hash)).toBe(BCRYPT_COST);
    expect(await passwords.matches('correct horse', hash)).toBe(true);
    expect(await passwords.matches('wrong horse', hash)).toBe(false);
  });

  it('has a dummy hash bcrypt reads, at the cost real passwords are hashed with, that nothing made at start', async () => {
    const hash = vi.spyOn(bcrypt, 'hash');
    const hashSync = vi.spyOn(bcrypt, 'hashSync');
    const passwords = passwordHashing();
    expect(hashSync).not.toHaveBeenCalled();
    expect(passwords.dummyHash).toMatch(/^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.getRounds(passwords.dummyHash)).toBe(bcrypt.getRounds(await passwords.hash('any password')));
    expect(hash).toHaveBeenCalledTimes(1);
    // Comparing against it takes a whole comparison of that cost, as against a real hash.
    expect(await bcrypt.compare('any password', passwords.dummyHash)).toBe(false);
  });

  it('at another cost hashes at it, with a dummy of that cost, and still checks a hash made at another', async () => {
    const least = passwordHashing(BCRYPT_MIN_COST);
    const hash = await least.hash('correct horse');
    expect(bcrypt.getRounds(hash)).toBe(BCRYPT_MIN_COST);
    expect(bcrypt.getRounds(least.dummyHash)).toBe(BCRYPT_MIN_COST);
    expect(await least.matches('any password', least.dummyHash)).toBe(false);
    // A hash keeps its own cost: one made at GoTrue's cost checks on a server at the least, and back.
    const usual = passwordHashing();
    expect(await least.matches('a long walk', await usual.hash('a long walk'))).toBe(true);
    expect(await usual.matches('correct horse', hash)).toBe(true);
  });

  it.each([3, 32, 4.5, Number.NaN])('refuses the cost %s', (cost) => {
    expect(() => passwordHashing(cost)).toThrow(`passwordHashCost must be a whole number from 4 to 31, not ${cost}`);
  });

  it.each([
    ['no account (unknown or deleted e-mail)', undefined],
    ['an account without a password', null],
    ['a hash bcrypt cannot read', 'plain-text-password'],
    ['an empty hash', ''],
  ])('compares against the dummy hash for %s, and never matches', async (_what, hash) => {
    const passwords = passwordHashing(BCRYPT_MIN_COST);
    const compare = vi.spyOn(bcrypt, 'compare');
    // Even the one password that might equal an unreadable "hash" does not match.
    expect(await passwords.matches(hash ?? 'plain-text-password', hash)).toBe(false);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.calls[0]?.[1]).toBe(passwords.dummyHash);
  });

  it('compares a real hash once, against that hash', async () => {
    const passwords = passwordHashing(BCRYPT_MIN_COST);
    const hash = await passwords.hash('correct horse');
    const compare = vi.spyOn(bcrypt, 'compare');
    await passwords.matches('wrong horse', hash);
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.calls[0]?.[1]).toBe(hash);
  });
});
