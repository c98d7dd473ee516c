// `npm start` as a test runs it: the real launcher (tools/build/start.mjs gateway-main, which brings
// the builds up to date and then runs the compiled server) as a child process, with only the
// environment given (besides PATH and HOME), its output collected.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '#db/paths.ts';

export interface NpmStart {
  child: ChildProcess;
  /** The exit code once it exits. */
  exited: Promise<number | null>;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  /** Resolves once the output holds `text`; rejects if it exits first or takes longer than timeoutMs. */
  waitFor(text: string, timeoutMs: number): Promise<void>;
}

export function startNpmStart(env: Record<string, string>): NpmStart {
  const child = spawn(process.execPath, [path.join(repoRoot, 'tools', 'build', 'start.mjs'), 'gateway-main'], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const waitFor = async (text: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!output.includes(text)) {
      if (child.exitCode !== null || Date.now() > deadline)
        throw new Error(`no "${text}" in the output of npm start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return { child, exited, waitFor, output: () => output };
}
