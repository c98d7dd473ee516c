// Setup file of the postgres project: after a file's last test, its databases that are still there
// are dropped, so a run of hundreds of files does not fill the server with copies.
import { afterAll } from 'vitest';
import { dropFileDatabases } from './file-database.ts';

afterAll(async () => {
  await dropFileDatabases();
});
