// A process whose parent never reaps it, as under a container init that does not reap: killed, it
// stays a zombie (state Z) until its parent goes. A shell starts the script in the background and
// then becomes `sleep`, which never waits for children; the script is the shell's child, so
// Node's own reaping never reaches it. Linux and other systems with `sh` and `sleep`.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { repoRoot } from '#db/paths.ts';

export interface UnreapedChild {
  /** The non-reaping parent (`sleep`): the only process Node started, and the one to stop. */
  parent: ChildProcess;
  /** Resolves once the script has printed `ready`. */
  ready: Promise<void>;
  /** Stops the parent; the zombie is then reparented and reaped. */
  stop(): Promise<void>;
}

export function spawnUnreaped(script: string, env: NodeJS.ProcessEnv): UnreapedChild {
  const command = `"${process.execPath}" --import tsx "${script}" & exec sleep 600`;
  const parent = spawn('sh', ['-c', command], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ready = new Promise<void>((resolve, reject) => {
    let stderr = '';
    parent.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    parent.stdout?.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
    parent.on('exit', (code, signal) => reject(new Error(`parent exited early (${code ?? signal}): ${stderr}`)));
  });
  const stop = async () => {
    if (parent.exitCode !== null || parent.signalCode !== null) return;
    const exited = new Promise((resolve) => parent.once('exit', resolve));
    parent.kill('SIGKILL');
    await exited;
  };
  return { parent, ready, stop };
}

/** The state letter of /proc/<pid>/stat (R, S, T, Z ...), or undefined when there is no such process. */
export function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Waits until the process is in `state` (a signal sent to it takes effect a moment later). */
export async function untilState(pid: number, state: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (procState(pid) !== state) {
    if (Date.now() > deadline) throw new Error(`process ${pid} is ${procState(pid) ?? 'gone'}, not ${state}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the process is a zombie (it was killed and its parent has not reaped it). */
export const untilZombie = (pid: number) => untilState(pid, 'Z');
