// vitest globalSetup of `npm test`'s postgres project: one PostgreSQL 15 server for the whole run
// (the product's embedded engine, tools/pg/cluster.ts) and one template database on it, migrated
// once (platform + migrations + pgTAP, what `supabase test db` finds before its first file). Each
// test file gets its own database made from the template (file-database.ts): a copy takes a
// fraction of a second, where a server of its own took seconds and held hundreds of megabytes.
import type { TestProject } from 'vitest/node';
import { migrateDatabase } from '#db/migrate.ts';
import { startTestServer, withClient } from '../pg/cluster.ts';
import { installPgtap } from './pgtap-extension.ts';
import { TEMPLATE_DATABASE, type TestPostgres } from './test-postgres.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer();
  try {
    await withClient(server.urlOf('postgres'), (client) => client.query(`create database ${TEMPLATE_DATABASE}`));
    await withClient(server.urlOf(TEMPLATE_DATABASE), async (client) => {
      await migrateDatabase(client);
      await installPgtap(client);
    });
    // No connections to the template from here on: `create database ... template` refuses to copy
    // a database someone is connected to.
    await withClient(server.urlOf('postgres'), (client) =>
      client.query(`alter database ${TEMPLATE_DATABASE} is_template true allow_connections false`),
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  const provided: TestPostgres = { adminUrl: server.urlOf('postgres'), template: TEMPLATE_DATABASE };
  project.provide('testPostgres', provided);
  return () => server.stop();
}
