// Git as a child process: every question the version and update routes ask about the checkout.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export class GitError extends Error {
  constructor(
    readonly args: string[],
    readonly stderr: string,
  ) {
    super(`git ${args.join(' ')} failed: ${stderr.trim() || 'no output'}`);
    this.name = 'GitError';
  }
}

export async function git(repoDir: string, args: string[], timeoutMs = 15_000): Promise<string> {
  try {
    const { stdout } = await execFileAsync('git', args, {
      cwd: repoDir,
      timeout: timeoutMs,
      maxBuffer: 8 * 1024 * 1024,
    });
    return stdout.trimEnd();
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new GitError(args, failure.stderr ?? failure.message);
  }
}

export interface HeadCommit {
  sha: string;
  message: string;
}

export async function readHead(repoDir: string): Promise<HeadCommit | undefined> {
  try {
    const [sha = '', ...subject] = (await git(repoDir, ['log', '-1', '--format=%H%n%s'])).split('\n');
    return { sha, message: subject.join('\n') };
  } catch {
    return undefined; // not a git checkout (e.g. an unpacked release): version still answers
  }
}

export async function currentBranch(repoDir: string): Promise<string> {
  return git(repoDir, ['rev-parse', '--abbrev-ref', 'HEAD']);
}

/** `git status --porcelain` paths: modified, staged, and untracked files alike. */
export async function dirtyFiles(repoDir: string): Promise<string[]> {
  // --no-optional-locks: a plain status refreshes the index under .git/index.lock, and
  // /api/update-status is polled while the updater runs `git stash`, which then fails on that lock.
  const output = await git(repoDir, ['--no-optional-locks', 'status', '--porcelain', '--untracked-files=all']);
  return output
    .split('\n')
    .filter((line) => line.length > 3)
    .map((line) => line.slice(3).replace(/^"(.*)"$/, '$1'));
}
