// The PGlite worker's entry when studyhall runs from its TypeScript sources (tests, tsx): a worker
// thread does not inherit the main thread's tsx loader, so it registers tsx before loading the
// worker. The built server runs the bundled pglite-worker.js instead.
import { register } from 'tsx/esm/api';

register();
await import('./pglite-worker.ts');
