// The password rule both ends apply: length in characters first, then the list of common and
// leaked passwords (with the e-mail address as known words); a passphrase passes; 72 bytes at most.
import { describe, expect, it } from 'vitest';
import { isTooLong, isTooShort, knownWords, loadPasswordRule } from './password-rule.ts';

describe('the password rule', () => {
  it.each([
    ['short', 'length'],
    ['seven77', 'length'],
    ['password', 'pwned'],
    ['12345678', 'pwned'],
    ['qwertyuiop', 'pwned'],
    ['Password1', 'pwned'],
    ['correct horse battery', null],
    ['violet kettle 42 harbor', null],
  ])('judges %j as %s', async (password, verdict) => {
    expect((await loadPasswordRule()).weakness(password)).toBe(verdict);
  });

  it('counts the e-mail address and its parts as known words', async () => {
    const rule = await loadPasswordRule();
    expect(rule.weakness('lindqvist2024', [])).toBeNull();
    expect(rule.weakness('lindqvist2024', ['mira.lindqvist@example.com'])).toBe('pwned');
    expect(knownWords(['ada_l@example.com'])).toEqual(['ada_l@example.com', 'ada', 'example', 'com']);
  });

  it('counts characters for the minimum and bytes for the maximum', () => {
    // Seven letters of two bytes each: 14 bytes, still seven characters.
    expect(isTooShort('ééééééé')).toBe(true);
    expect(isTooShort('éééééééé')).toBe(false);
    expect(isTooLong('a'.repeat(72))).toBe(false);
    expect(isTooLong('é'.repeat(36))).toBe(false);
    expect(isTooLong(`${'é'.repeat(36)}a`)).toBe(true);
  });

  it('loads its list once', async () => {
    expect(await loadPasswordRule()).toBe(await loadPasswordRule());
  });
});
