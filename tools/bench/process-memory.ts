// What a server process and the PostgreSQL it runs cost the machine, read from /proc (Linux): the
// proportional set size (PSS, /proc/<pid>/smaps_rollup) of every postgres process below the
// server, so pages the postgres processes share (the shared buffers, the binary) count once.
import { readdir, readFile, readlink } from 'node:fs/promises';

async function childrenOf(pid: number): Promise<number[]> {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const lists = await Promise.all(
    tasks.map((task) => readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '')),
  );
  return lists.flatMap((list) => list.trim().split(/\s+/).filter(Boolean).map(Number));
}

/**
 * The PSS of the postgres processes below `rootPid`, in MiB, how much of it is shared memory (the
 * buffer pool: it fills up to shared_buffers as the data is read, then stays), and how many
 * processes there are.
 */
export async function postgresPss(rootPid: number): Promise<{ mib: number; shmemMib: number; processes: number }> {
  const pending = [rootPid];
  let kb = 0;
  let shmemKb = 0;
  let processes = 0;
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    pending.push(...(await childrenOf(pid)));
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    if (comm !== 'postgres') continue;
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => '');
    kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    shmemKb += Number(/^Pss_Shmem:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    processes += 1;
  }
  return { mib: kb / 1024, shmemMib: shmemKb / 1024, processes };
}

/** The machine's load average, as the figures are printed beside it. */
export function loadAverageText(loadavg: number[]): string {
  return loadavg.map((value) => value.toFixed(1)).join(' ');
}

/** How many sockets (TCP, Unix) process `pid` holds open: connections left behind show here. */
export async function openSockets(pid: number): Promise<number> {
  const descriptors = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  const targets = await Promise.all(descriptors.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')));
  return targets.filter((target) => target.startsWith('socket:')).length;
}
