// `npm start` as a child process for the browser suites and the companion's benchmark: the real
// launcher (tools/build/start.mjs) running the compiled server, which the browser tests' global setup
// builds once, started on free ports with its own DATA_DIR and LOG_DIR, stopped with SIGTERM, started
// again on the same ports. (Running gateway/src/main.ts through tsx instead compiled every module again
// at each start: 3.0 s to listening on a fresh DATA_DIR, against 1.1 s.)
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';

export interface StudyhallProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when npm start printed that it listens; rejects if it exits or takes too long. */
  ready: Promise<void>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export function startStudyhall(env: Record<string, string>, readyTimeoutMs = 120_000): StudyhallProcess {
  const child = spawn(process.execPath, [path.join(repoRoot, 'tools', 'build', 'start.mjs'), 'gateway-main'], {
    cwd: repoRoot,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      LOG_LEVEL: 'warn',
      ...env,
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const ready = (async () => {
    const deadline = Date.now() + readyTimeoutMs;
    while (!output.includes('studyhall: logs')) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  return {
    child,
    output: () => output,
    ready,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
