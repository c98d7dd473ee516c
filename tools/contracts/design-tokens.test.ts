// Both front ends style only with tokens that contracts/design-tokens.css defines, and each app's
// tokens.css is nothing but the import of that file: a token renamed or dropped there, or a copy
// growing back in one app, fails here.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';

const TOKENS = path.join(repoRoot, 'contracts', 'design-tokens.css');
const APPS = {
  web: path.join(repoRoot, 'web', 'src', 'styles'),
  companion: path.join(repoRoot, 'companion', 'ui', 'src', 'styles'),
};

function definedIn(css: string): Set<string> {
  return new Set([...css.matchAll(/(?<![\w-])(--[a-z0-9-]+)\s*:/g)].map((match) => match[1]!));
}

function usedIn(css: string): Set<string> {
  return new Set([...css.matchAll(/var\((--[a-z0-9-]+)/g)].map((match) => match[1]!));
}

describe('the design tokens', () => {
  it.each(Object.entries(APPS))(
    'are the one file the %s styles import, and every token they use is defined there',
    async (_app, dir) => {
      const tokens = definedIn(await readFile(TOKENS, 'utf8'));
      expect((await readFile(path.join(dir, 'tokens.css'), 'utf8')).replace(/\/\*[\s\S]*?\*\//g, '').trim()).toBe(
        "@import '#contracts/design-tokens.css';",
      );
      for (const file of (await readdir(dir)).filter((name) => name.endsWith('.css') && name !== 'tokens.css')) {
        const css = await readFile(path.join(dir, file), 'utf8');
        const local = definedIn(css);
        const missing = [...usedIn(css)].filter((name) => !tokens.has(name) && !local.has(name));
        expect(missing, file).toEqual([]);
      }
    },
  );

  it('define each token once per colour scheme, and every token they refer to', async () => {
    const css = await readFile(TOKENS, 'utf8');
    const light = css.split('@media')[0]!;
    const names = [...light.matchAll(/(?<![\w-])(--[a-z0-9-]+)\s*:/g)].map((match) => match[1]!);
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([]);
    const defined = definedIn(css);
    expect([...usedIn(css)].filter((name) => !defined.has(name))).toEqual([]);
  });
});
