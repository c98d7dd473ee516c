// What keeps the repository explaining itself: every file path a comment or a document names must
// exist, every `#anchor` into a Markdown file must be one of its headings, and nothing may point
// at documents outside the repository or at tracker numbers a reader cannot follow.
//
// Scope of each check:
// - paths and anchors: Markdown files whole; in code, only comments (a path in a string literal is
//   code, which its own tests cover). A path counts when it starts with a top-level folder of the
//   repository (`gateway/src/app.ts`, `docs/api.md#errors`, `supabase/tests/database/...`), or is
//   the target of a Markdown link (`[api](api.md#errors)`, resolved from the linking file).
//   URLs, package names (`@fastify/static`), URL paths (`/companion/`), globs and placeholders
//   (`routes/<screen>/`, `*.test.ts`) and generated folders (`web/dist`, `.build`, ...) are not
//   repository paths.
// - outside documents and tracker numbers: every tracked text file, code included.
import path from 'node:path';

export interface SourceFile {
  path: string;
  text: string;
}

export interface Problem {
  file: string;
  line: number;
  kind: 'missing_path' | 'missing_anchor' | 'outside_document';
  found: string;
}

/** Documents that are not part of the repository, and mentions that point a reader at them. */
const OUTSIDE_MENTIONS: RegExp[] = [
  /\b(?:DESIGN|STYLE|UI)\.md\b/g,
  /\bbackend-compat(?:\.md)?\b/g,
  /\bstudy-server-spec(?:\.md)?\b/g,
  /\bissues? #?\d+\b/gi,
  /\bthe spec(?:'s)?\b(?!\s+(?:of|for)\b)/gi,
  /^\s*(?:--|\/\/|#|\*)\s*Spec:/gm,
];

/** Folders that builds and runs create; never tracked, so never a path to check. */
const GENERATED_PREFIXES = [
  'web/dist',
  'companion/ui/dist',
  'companion/android/app/build',
  '.build',
  '.data',
  '.tmp',
  'coverage',
  'node_modules',
];

const PATH_CHARS = /[A-Za-z0-9_.\-/@+]/;
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)>\]'"`]*/gi;

type CommentStyle = 'c' | 'sql' | 'hash' | 'html' | 'markdown' | 'none';

function commentStyle(file: string, text: string): CommentStyle {
  const extension = path.posix.extname(file).toLowerCase();
  if (extension === '.md') return 'markdown';
  if (['.ts', '.tsx', '.mts', '.js', '.mjs', '.cjs', '.java', '.gradle', '.css'].includes(extension)) return 'c';
  if (extension === '.sql') return 'sql';
  if (
    ['.sh', '.toml', '.properties', '.pro', '.yml', '.yaml'].includes(extension) ||
    path.posix.basename(file) === '.gitignore'
  )
    return 'hash';
  if (['.html', '.xml', '.svg'].includes(extension)) return 'html';
  if (extension === '' && text.startsWith('#!')) return 'hash';
  return 'none';
}

/**
 * The text of a file that is prose: the comments of code, the whole of Markdown. Everything else
 * is blanked to spaces, keeping newlines, so line numbers stay right. String literals are skipped
 * (a `//` inside a string is not a comment).
 */
export function proseOf(file: string, text: string): string {
  const style = commentStyle(file, text);
  if (style === 'markdown') return text;
  if (style === 'none') return text.replace(/[^\n]/g, ' ');
  const out: string[] = [];
  const keep = (from: number, to: number) => out.push(text.slice(from, to));
  const blank = (from: number, to: number) => out.push(text.slice(from, to).replace(/[^\n]/g, ' '));
  let index = 0;
  let codeFrom = 0;
  const flushCode = (to: number) => {
    blank(codeFrom, to);
    codeFrom = to;
  };
  const untilLineEnd = (from: number) => {
    const end = text.indexOf('\n', from);
    return end === -1 ? text.length : end;
  };
  while (index < text.length) {
    const char = text[index];
    const next = text[index + 1];
    // Comments.
    const lineComment =
      (style === 'c' && char === '/' && next === '/' && text[index - 1] !== ':') ||
      (style === 'sql' && char === '-' && next === '-') ||
      (style === 'hash' && char === '#' && (index === 0 || /\s/.test(text[index - 1] ?? '')));
    if (lineComment) {
      flushCode(index);
      const end = untilLineEnd(index);
      keep(index, end);
      index = codeFrom = end;
      continue;
    }
    const blockOpen = style === 'html' ? '<!--' : style === 'c' || style === 'sql' ? '/*' : undefined;
    if (blockOpen && text.startsWith(blockOpen, index)) {
      const close = style === 'html' ? '-->' : '*/';
      flushCode(index);
      const end = text.indexOf(close, index + blockOpen.length);
      const stop = end === -1 ? text.length : end + close.length;
      keep(index, stop);
      index = codeFrom = stop;
      continue;
    }
    // String literals (skipped as code).
    const quotes = style === 'c' ? `'"\`` : style === 'sql' ? `'` : style === 'hash' ? `'"` : '';
    if (char !== undefined && quotes.includes(char)) {
      let end = index + 1;
      while (end < text.length && text[end] !== char) {
        if (text[end] === '\\' && style !== 'sql') end++;
        else if (text[end] === '\n' && char !== '`' && style !== 'sql') break;
        end++;
      }
      index = end + 1;
      continue;
    }
    index++;
  }
  flushCode(text.length);
  return out.join('');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a Markdown text defines (duplicates get -1, -2, ... as on GitHub). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let inFence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    if (inFence) continue;
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading?.[1]) continue;
    const base = headingAnchor(heading[1]);
    const count = seen.get(base) ?? 0;
    anchors.add(count === 0 ? base : `${base}-${count}`);
    seen.set(base, count + 1);
  }
  return anchors;
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index++) if (text.charCodeAt(index) === 10) line++;
  return line;
}

function isGenerated(repoPath: string): boolean {
  return (
    GENERATED_PREFIXES.some((prefix) => repoPath === prefix || repoPath.startsWith(`${prefix}/`)) ||
    repoPath.split('/').includes('node_modules')
  );
}

export interface Repository {
  /** Tracked files, by path from the repository root. */
  files: Set<string>;
  /** Every folder that holds a tracked file. */
  folders: Set<string>;
  /** Anchors of each tracked Markdown file. */
  anchors: Map<string, Set<string>>;
  /** First segments of tracked paths that are folders (`gateway`, `docs`, ...). */
  topFolders: Set<string>;
}

/** The repository of these text files, plus tracked files that are not text (images, jars). */
export function describeRepository(files: SourceFile[], binaryPaths: string[] = []): Repository {
  const paths = new Set([...files.map((file) => file.path), ...binaryPaths]);
  const folders = new Set<string>();
  for (const file of paths) {
    const parts = file.split('/');
    for (let length = 1; length < parts.length; length++) folders.add(parts.slice(0, length).join('/'));
  }
  const anchors = new Map<string, Set<string>>();
  for (const file of files) if (file.path.endsWith('.md')) anchors.set(file.path, anchorsOf(file.text));
  const topFolders = new Set([...folders].filter((folder) => !folder.includes('/')));
  return { files: paths, folders, anchors, topFolders };
}

/**
 * Whether a named `top/x...` is meant as a repository path. `supabase/cli` (a project on GitHub) or
 * `gateway/direct` (a ratio) share a first segment with a folder here: a name counts when its
 * second segment exists, when it names a file (an extension), or when it ends with a slash.
 */
function meantAsPath(repo: Repository, target: string): boolean {
  const [top = '', second = ''] = target.split('/');
  const lastSegment = target.replace(/\/$/, '').split('/').pop() ?? '';
  const secondExists = repo.files.has(`${top}/${second}`) || repo.folders.has(`${top}/${second}`);
  return secondExists || target.endsWith('/') || /\.[A-Za-z0-9]+$/.test(lastSegment);
}

/** Checks one reference (a repository path, maybe with an anchor); a problem or undefined. */
function checkReference(repo: Repository, target: string, anchor: string | undefined): Problem['kind'] | undefined {
  const normalised = path.posix.normalize(target).replace(/\/$/, '');
  if (isGenerated(normalised)) return undefined;
  if (!repo.files.has(normalised) && !repo.folders.has(normalised)) return 'missing_path';
  if (anchor !== undefined && normalised.endsWith('.md') && !repo.anchors.get(normalised)?.has(anchor))
    return 'missing_anchor';
  return undefined;
}

/** Repository paths named in prose (not links): `gateway/src/app.ts`, `docs/api.md#errors`. */
function* namedPaths(
  prose: string,
  topFolders: Set<string>,
): Generator<{ offset: number; target: string; anchor: string | undefined }> {
  const candidate = /[A-Za-z0-9_.\-/@+]+(?:#[A-Za-z0-9_-]+)?/g;
  for (const match of prose.matchAll(candidate)) {
    const offset = match.index;
    const before = prose[offset - 1] ?? '';
    // Part of a longer token: a URL path (`/companion/`), a package (`@x/y`), `$VAR/x`, `~/x`.
    if (before !== '' && (PATH_CHARS.test(before) || before === '$' || before === '~' || before === '%')) continue;
    const [named = '', anchor] = match[0].split('#');
    let target = named;
    const top = target.split('/')[0] ?? '';
    if (!target.includes('/') || !topFolders.has(top)) continue;
    const after = prose[offset + match[0].length] ?? '';
    // A placeholder or a glob follows (`routes/<screen>/`, `NN-*.sql`): only the folder before it is real.
    if (anchor === undefined && (after === '<' || after === '*' || after === '{' || after === '[')) {
      target = target.slice(0, target.lastIndexOf('/') + 1);
    }
    target = target.replace(/[.,:;]+$/, '');
    yield { offset, target, anchor };
  }
}

/** Markdown link targets `[text](target)` that are not URLs. */
function* linkedPaths(
  prose: string,
  file: string,
): Generator<{ offset: number; target: string; anchor: string | undefined }> {
  for (const match of prose.matchAll(/\]\(([^()\s]+)\)/g)) {
    const raw = match[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(raw) || raw.startsWith('/')) continue;
    const [pathPart = '', anchor] = raw.split('#');
    const target = pathPart === '' ? file : path.posix.join(path.posix.dirname(file), pathPart);
    yield { offset: match.index, target, anchor };
  }
}

/** Every problem in the given files, checked against the repository they come from. */
export function findProblems(files: SourceFile[], repo: Repository = describeRepository(files)): Problem[] {
  const problems: Problem[] = [];
  for (const file of files) {
    for (const pattern of OUTSIDE_MENTIONS) {
      for (const match of file.text.matchAll(pattern)) {
        problems.push({
          file: file.path,
          line: lineAt(file.text, match.index),
          kind: 'outside_document',
          found: match[0].trim(),
        });
      }
    }
    const prose = proseOf(file.path, file.text).replace(URL, (url) => ' '.repeat(url.length));
    const isMarkdown = file.path.endsWith('.md');
    const named = [...namedPaths(prose, repo.topFolders)].filter((reference) => meantAsPath(repo, reference.target));
    const references = [...named, ...(isMarkdown ? linkedPaths(prose, file.path) : [])];
    for (const reference of references) {
      const kind = checkReference(repo, reference.target, reference.anchor);
      if (kind) {
        const found = reference.anchor === undefined ? reference.target : `${reference.target}#${reference.anchor}`;
        problems.push({ file: file.path, line: lineAt(file.text, reference.offset), kind, found });
      }
    }
  }
  return problems;
}
