// vitest globalSetup of `npm test`'s pglite project: builds the PGlite test database snapshot once,
// before any of its files runs. Without it, on a clean clone the first files of both workers found no snapshot and
// each migrated its own PGlite from scratch at the same time (about 70 s each on two cores instead
// of a few seconds); every later file loads the snapshot in about a second either way.
import { testDatabaseSnapshot } from './test-database.ts';

export default async function setup(): Promise<void> {
  await testDatabaseSnapshot();
}
