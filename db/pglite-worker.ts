// The embedded engine's thread: owns the one PGlite instance and runs the Postgres wire protocol the
// main thread sends it (see pglite-engine.ts). A statement that runs here blocks only this thread,
// so the gateway keeps answering while it runs, and the main thread can stop it by terminating
// this thread (WASM cannot be interrupted from inside: it has no timer signal).
import { parentPort, workerData } from 'node:worker_threads';
import type { PGlite } from '@electric-sql/pglite';
import type { EngineRequest, EngineReply, WorkerOptions } from './pglite-worker-protocol.ts';
import { frameMessages } from './pglite-worker-protocol.ts';
import { openPglite, SEARCH_PATH_SQL } from './pglite.ts';

const port = parentPort;
if (!port) throw new Error('pglite-worker.ts runs as a worker thread only');

const options = workerData as WorkerOptions;

function reply(message: EngineReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(message, transfer);
}

async function open(): Promise<PGlite> {
  const pglite = await openPglite(options.pgdata, {
    ...(options.loadDataDir ? { loadDataDir: new Blob([options.loadDataDir]) } : {}),
    ...(options.settings ? { settings: options.settings } : {}),
  });
  // PGlite has one session: the hosted search path is set on it once, here (and again after a reset).
  await pglite.exec(SEARCH_PATH_SQL);
  return pglite;
}

/** The session the last protocol bytes came from: a new one starts with a fresh session state. */
let currentSession = -1;

/**
 * A new connection gets what a new Postgres backend would have: no open transaction, no prepared
 * statement, no session setting left by the connection before it (the pool discards a connection
 * whose state it no longer trusts, and its successor must not inherit that state).
 */
async function resetSession(pglite: PGlite): Promise<void> {
  if (pglite.isInTransaction()) await pglite.exec('rollback');
  // One statement per exec: several in one would run as one transaction block, which DISCARD refuses.
  await pglite.exec('discard all');
  await pglite.exec(SEARCH_PATH_SQL);
}

async function execute(pglite: PGlite, request: Extract<EngineRequest, { type: 'exec' }>): Promise<void> {
  const bytes = new Uint8Array(request.bytes);
  if (request.session !== currentSession) {
    if (currentSession !== -1) await resetSession(pglite);
    currentSession = request.session;
  }
  // Answered one group at a time (a group ends at Sync or a simple Query, where Postgres flushes),
  // so that the main thread sees each statement's answer as soon as it is there and its watchdog
  // can tell a statement that makes progress from one that does not.
  for (const group of frameMessages(bytes)) {
    const answer = await pglite.execProtocolRaw(group);
    // A connection's startup sets the session's parameters anew: the hosted search path again.
    if (group[0] === 0) await pglite.exec(SEARCH_PATH_SQL);
    const copy = answer.slice();
    reply({ type: 'data', session: request.session, bytes: copy.buffer }, [copy.buffer]);
  }
  reply({ type: 'done', session: request.session, id: request.id });
}

async function main(): Promise<void> {
  let pglite: PGlite;
  try {
    pglite = await open();
  } catch (error) {
    reply({ type: 'failed', message: (error as Error).message });
    return;
  }
  // Requests run strictly one after another, in the order they were sent: PGlite has one session.
  let queue = Promise.resolve();
  port!.on('message', (request: EngineRequest) => {
    queue = queue.then(async () => {
      if (request.type === 'close') {
        await pglite.close();
        reply({ type: 'closed' });
        port!.close();
        return;
      }
      await execute(pglite, request);
    });
    // An exception here is a broken engine (not a SQL error: those are answers): end the thread,
    // and the main thread reports it to whoever waits and opens the database again.
    queue.catch((error: unknown) => {
      setImmediate(() => {
        throw error;
      });
    });
  });
  reply({ type: 'ready' });
}

void main();
