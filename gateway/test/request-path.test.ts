// The decided path (security/request-path.ts): every spelling of a path decides like the path itself.
import { fc, it } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { decideUrl, pathUnder, percentDecodeOnce } from '../src/security/request-path.ts';
import { spellingsOf } from './spellings.ts';

describe('the decided path', () => {
  it.each([
    ['/%61pi/x', '/api/x'],
    ['/API/X', '/api/x'],
    ['//api//x', '/api/x'],
    ['/x/../api/x', '/api/x'],
    ['/./api/./x/', '/api/x/'],
    ['/%2e%2e/api', '/api'],
    ['/api%2fx', '/api/x'],
    ['/\\api\\x', '/api/x'],
    ['/%5f%5fai/x', '/__ai/x'],
    ['/__backend/auth/v1/%74oken?grant_type=password', '/__backend/auth/v1/token'],
    ['/%', '/%'],
    ['/%zz/%e2%82', '/%zz/\uFFFD'],
  ])('%s decides as %s', (raw, decided) => {
    expect(decideUrl(raw).path).toBe(decided);
  });

  it('decodes exactly once: %2574oken stays %74oken', () => {
    expect(percentDecodeOnce('/%2574oken')).toBe('/%74oken');
    expect(decideUrl('/__backend/auth/v1/%2574oken').path).toBe('/__backend/auth/v1/%74oken');
  });
});

describe('generated spellings', () => {
  const paths = fc.constantFrom(
    '/api/x',
    '/__backend/auth/v1/token',
    '/__auth/login',
    '/__backend/functions/v1/leaderboard',
    '/__errors',
  );
  it.prop([paths.chain((path) => spellingsOf(path).map((spelled) => [path, spelled] as const))], { numRuns: 500 })(
    'every spelling of a path decides as that path',
    ([path, spelled]) => {
      expect(decideUrl(spelled).path).toBe(path);
    },
  );

  it.prop([fc.string({ unit: 'binary' })], { numRuns: 1000 })(
    'never throws, and always gives an absolute path without // or dot segments',
    (raw) => {
      const { path } = decideUrl(`/${raw}`);
      expect(path.startsWith('/')).toBe(true);
      expect(path).not.toMatch(/\/\/|(^|\/)\.\.?(\/|$)/);
    },
  );

  it('pathUnder gives the rest under a prefix, and nothing for a look-alike', () => {
    expect(pathUnder('/__backend', '/__backend/auth/v1/token')).toBe('/auth/v1/token');
    expect(pathUnder('/__backend', '/__backend')).toBe('/');
    expect(pathUnder('/__backend', '/__backendx/auth')).toBeUndefined();
  });
});
