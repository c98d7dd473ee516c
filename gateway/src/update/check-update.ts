// GET /api/check-update: fetch the configured remote, then compare the local build stamp (the
// package version at HEAD) with the remote's; when the stamps agree, the SHAs decide.
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

export async function checkForUpdate(
  repoDir: string,
  remote: string,
  configuredBranch: string | undefined,
): Promise<UpdateCheck> {
  const branch = configuredBranch ?? (await currentBranch(repoDir));
  await git(repoDir, ['fetch', '--quiet', remote, branch], 30_000);
  const [localSha, remoteSha, localVersion] = await Promise.all([
    git(repoDir, ['rev-parse', 'HEAD']),
    git(repoDir, ['rev-parse', 'FETCH_HEAD']),
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
