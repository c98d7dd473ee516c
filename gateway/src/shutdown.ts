// How the server stops on SIGINT/SIGTERM: it stops accepting, lets requests in flight finish (every
// backend call has a deadline shorter than the grace period), closes localbase, and exits 0; past
// the grace period it exits 1 anyway, so a stop never hangs. A self-update running at the time is a
// separate, detached process: it carries on and finishes on its own (update/run-update.ts).
import type { FastifyInstance } from 'fastify';

export const SHUTDOWN_GRACE_MS = 15_000;

export function stopOnSignals(
  app: FastifyInstance,
  closeBackend: () => Promise<void>,
  log: (line: string) => void,
  graceMs = SHUTDOWN_GRACE_MS,
): void {
  let stopping = false;
  const stop = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) return;
    stopping = true;
    log(`studyhall: ${signal}, stopping`);
    setTimeout(() => {
      console.error(`studyhall: requests still open after ${graceMs / 1000} s; stopping anyway`);
      process.exit(1);
    }, graceMs).unref();
    try {
      await app.close();
      await closeBackend();
      process.exit(0);
    } catch (error) {
      console.error(`studyhall: shutdown failed: ${(error as Error).message}`);
      process.exit(1);
    }
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
