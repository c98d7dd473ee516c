// What every browser test's server gets besides its ports and directories.
//
// The browser tests hold people to their waits (a chat line within a second) with two files and
// their browsers sharing two cores. The snapshot for reads that the server keeps open by default
// (docs/localbase.md) costs each server a second PGlite and a copy of its data after each pause in
// writing, which these tests never use: no statement holds their database for a second. So their
// servers make one only when needed (`on-demand`). The kept snapshot has tests of its own (db/) and
// its figures (tools/bench); gateway/test/npm-start.e2e.test.ts runs `npm start` with the default.
export const E2E_SERVER_ENV: Readonly<Record<string, string>> = { LOCALBASE_SNAPSHOT_READS: 'on-demand' };
