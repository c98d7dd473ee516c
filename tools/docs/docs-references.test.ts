// Every path a comment or a document names exists, every anchor into a Markdown file is one of its
// headings, and nothing points at documents outside the repository (references.ts). The first
// block proves the scanner can fail; the last runs it over every tracked text file.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { anchorsOf, describeRepository, findProblems, headingAnchor, proseOf, type SourceFile } from './references.ts';

// Assembled, so this file does not itself name what the scanner refuses.
const OUTSIDE_DOC = ['DESIGN', 'md'].join('.');
const TRACKER = ['issue', '12'].join(' ');

const base: SourceFile[] = [
  { path: 'gateway/src/app.ts', text: '// the app\nexport const app = 1;\n' },
  { path: 'docs/api.md', text: '# The API\n\n## Errors\n\n## Rate limits\n' },
  { path: 'docs/README.md', text: '# Index\n' },
];

function problemsWith(file: SourceFile) {
  const files = [...base, file];
  return findProblems([file], describeRepository(files)).map(({ kind, found, line }) => ({ kind, found, line }));
}

describe('the reference scanner', () => {
  it('reports a path a comment names that does not exist, and not one that does', () => {
    const file = {
      path: 'gateway/src/x.ts',
      text: '// see gateway/src/missing.ts\n// and gateway/src/app.ts.\n// gateway/scr/app.ts\nexport {};\n',
    };
    expect(problemsWith(file)).toEqual([
      { kind: 'missing_path', found: 'gateway/src/missing.ts', line: 1 },
      { kind: 'missing_path', found: 'gateway/scr/app.ts', line: 3 },
    ]);
  });

  it('knows tracked files that are not text', () => {
    const file = { path: 'docs/x.md', text: 'The icon: gateway/public/icon.png\n' };
    expect(findProblems([file], describeRepository([...base, file], ['gateway/public/icon.png']))).toEqual([]);
    expect(findProblems([file], describeRepository([...base, file]))).toHaveLength(1);
  });

  it('reports a missing file in SQL and shell comments, and a missing folder', () => {
    expect(
      problemsWith({
        path: 'supabase/migrations/1_x.sql',
        text: 'select 1; -- see supabase/tests/database/33-gone.test.sql\n',
      }),
    ).toEqual([{ kind: 'missing_path', found: 'supabase/tests/database/33-gone.test.sql', line: 1 }]);
    expect(
      problemsWith({ path: 'tools/x.sh', text: '#!/bin/sh\n# writes into gateway/nowhere/\necho gateway/nowhere\n' }),
    ).toEqual([{ kind: 'missing_path', found: 'gateway/nowhere/', line: 2 }]);
  });

  it('checks anchors into Markdown headings, named or linked', () => {
    const file = {
      path: 'docs/architecture.md',
      text: 'See docs/api.md#errors and docs/api.md#rate-limits, [limits](api.md#rate-limits),\n[gone](api.md#no-such-heading) and docs/api.md#nope.\n',
    };
    expect(problemsWith(file)).toEqual([
      { kind: 'missing_anchor', found: 'docs/api.md#nope', line: 2 },
      { kind: 'missing_anchor', found: 'docs/api.md#no-such-heading', line: 2 },
    ]);
  });

  it('resolves Markdown links from the linking file and reports a missing target', () => {
    const file = { path: 'docs/guide.md', text: '[index](README.md), [self](#top), [missing](missing.md)\n\n# Top\n' };
    expect(problemsWith(file)).toEqual([{ kind: 'missing_path', found: 'docs/missing.md', line: 1 }]);
  });

  it('reports a mention of an outside document or a tracker number, anywhere in a file', () => {
    const file = { path: 'gateway/src/y.ts', text: `// As ${OUTSIDE_DOC} decides.\nconst why = 'see ${TRACKER}';\n` };
    expect(problemsWith(file)).toEqual([
      { kind: 'outside_document', found: OUTSIDE_DOC, line: 1 },
      { kind: 'outside_document', found: TRACKER, line: 2 },
    ]);
  });

  it('reports a header pointing at an outside specification, and "the spec"', () => {
    const spec = ['Sp', 'ec'].join('');
    const file = {
      path: 'supabase/migrations/2_y.sql',
      text: `-- ${spec}: "Tables".\nselect 1; -- as the ${spec.toLowerCase()} says\n-- the ${spec.toLowerCase()} of RFC 8030 is fine\n`,
    };
    expect(problemsWith(file).map(({ line }) => line)).toEqual([2, 1]);
  });

  it('ignores URLs, packages, URL paths, globs, placeholders, generated folders and string literals', () => {
    const text = [
      '// https://example.com/gateway/src/missing.ts and @fastify/static',
      '// GET /companion/x, /__backend/storage/v1/object, DATA_DIR/vapid-keys.json',
      '// gateway/src/*.parity.test.ts, gateway/src/<family>/, web/dist/.vite/manifest.json, .build/server',
      '// names that are not paths here: supabase/cli (a project), gateway/direct (a ratio)',
      "const file = 'gateway/src/missing.ts';",
      'const url = `gateway/src/also-missing.ts`; // ok',
    ].join('\n');
    expect(problemsWith({ path: 'gateway/src/z.ts', text })).toEqual([]);
  });

  it('reads only the comments of code and all of Markdown', () => {
    expect(proseOf('a.ts', "const a = 'x'; // note\n/* block */ b();").trim().replace(/\s+/g, ' ')).toBe(
      '// note /* block */',
    );
    expect(proseOf('a.sql', "select '--no'; -- yes\n").trim()).toBe('-- yes');
    expect(proseOf('a.md', 'all of it')).toBe('all of it');
  });

  it('makes anchors as GitHub does', () => {
    expect(headingAnchor('Data API (`/rest/v1`): PostgREST')).toBe('data-api-restv1-postgrest');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### Why: the rule\n')]).toEqual([
      'a',
      'a-1',
      'why-the-rule',
    ]);
  });
});

function trackedFiles(): { text: SourceFile[]; binary: string[] } {
  const listed = execFileSync('git', ['ls-files', '-z'], {
    cwd: repoRoot,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\0')
    .filter(Boolean);
  const files: SourceFile[] = [];
  const binary: string[] = [];
  for (const file of listed) {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path.join(repoRoot, file));
    } catch {
      continue; // deleted in the work tree, not yet committed
    }
    if (bytes.includes(0))
      binary.push(file); // images, the gradle wrapper
    else files.push({ path: file, text: bytes.toString('utf8') });
  }
  return { text: files, binary };
}

describe('the repository', () => {
  it('names only files and headings that exist, and no document outside it', () => {
    const { text, binary } = trackedFiles();
    expect(text.length).toBeGreaterThan(100);
    const problems = findProblems(text, describeRepository(text, binary))
      // The scanner and these fixtures name what they look for.
      .filter((problem) => !(problem.kind === 'outside_document' && problem.file.startsWith('tools/docs/')))
      .map((problem) => `${problem.file}:${problem.line}: ${problem.kind} ${problem.found}`);
    expect(problems).toEqual([]);
  });
});
