// GET /api/check-update: fetch the configured remote, then compare the local build stamp (the
// package version at HEAD) with the remote's; when the stamps agree, the SHAs decide.
//
// The fetch is the costly part (a network round trip, a git process, objects written to the
// checkout), so RemoteCheck remembers the remote's head for FETCH_INTERVAL_MS: however many ask,
// and however often, git fetches at most once a minute, and callers who ask while a fetch runs
// share it. The comparison with the local HEAD is made afresh on every call (it is local and cheap).
import { readPackageVersion } from '../build-info.ts';
import { z } from 'zod';
import { currentBranch, git } from './git.ts';

export interface UpdateCheck {
  ok: true;
  remote: string;
  branch: string;
  local: { sha: string; version: string };
  remote_head: { sha: string; version: string | null };
  behind: number;
  ahead: number;
  update_available: boolean;
  compared_by: 'build_stamp' | 'sha';
}

async function remoteVersion(repoDir: string, sha: string): Promise<string | null> {
  try {
    return z.object({ version: z.string() }).parse(JSON.parse(await git(repoDir, ['show', `${sha}:package.json`])))
      .version;
  } catch {
    return null;
  }
}

/** At most one `git fetch` per this many milliseconds. */
export const FETCH_INTERVAL_MS = 60_000;

interface FetchedHead {
  branch: string;
  sha: string;
}

/** What the last fetch found (its head, or why it failed), and when it started. */
type Fetched = { head: FetchedHead; at: number } | { failure: unknown; at: number };

/** The remote's head as last fetched, and the fetch under way (shared by everyone who asks meanwhile). */
export class RemoteCheck {
  private last: Fetched | undefined;
  private inFlight: Promise<Fetched> | undefined;

  constructor(
    private readonly repoDir: string,
    private readonly remote: string,
    private readonly configuredBranch: string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  async check(): Promise<UpdateCheck> {
    const fetched = await this.lastFetch();
    // A failed fetch is remembered too, so an unreachable remote is not asked again at every call.
    if ('failure' in fetched) throw fetched.failure;
    return compareWith(this.repoDir, this.remote, fetched.head.branch, fetched.head.sha);
  }

  private async lastFetch(): Promise<Fetched> {
    if (this.last && this.now() - this.last.at < FETCH_INTERVAL_MS) return this.last;
    this.inFlight ??= this.fetch().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async fetch(): Promise<Fetched> {
    const at = this.now();
    try {
      const branch = this.configuredBranch ?? (await currentBranch(this.repoDir));
      await git(this.repoDir, ['fetch', '--quiet', this.remote, branch], 30_000);
      this.last = { head: { branch, sha: await git(this.repoDir, ['rev-parse', 'FETCH_HEAD']) }, at };
    } catch (failure) {
      this.last = { failure, at };
    }
    return this.last;
  }
}

async function compareWith(repoDir: string, remote: string, branch: string, remoteSha: string): Promise<UpdateCheck> {
  const [localSha, localVersion] = await Promise.all([
    git(repoDir, ['rev-parse', 'HEAD']),
    readPackageVersion(repoDir),
  ]);
  const [behind, ahead, remoteStamp] = await Promise.all([
    git(repoDir, ['rev-list', '--count', `${localSha}..${remoteSha}`]).then(Number),
    git(repoDir, ['rev-list', '--count', `${remoteSha}..${localSha}`]).then(Number),
    remoteVersion(repoDir, remoteSha),
  ]);
  const stampsDiffer = remoteStamp !== null && remoteStamp !== localVersion;
  return {
    ok: true,
    remote,
    branch,
    local: { sha: localSha, version: localVersion },
    remote_head: { sha: remoteSha, version: remoteStamp },
    behind,
    ahead,
    // A differing stamp names the release to expect; the commits we lack decide whether to pull.
    update_available: behind > 0,
    compared_by: stampsDiffer ? 'build_stamp' : 'sha',
  };
}
