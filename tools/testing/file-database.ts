// A database of the test file's own on the run's PostgreSQL server, copied from the migrated
// template (postgres-global-setup.ts) when the file first asks for one, so a file that needs no
// database pays nothing. drop() removes it; whatever a file leaves is dropped after its last test
// (drop-file-databases.ts, a setup file of the postgres project).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { databaseUrl } from './test-postgres.ts';

export interface FileDatabase {
  /** The superuser's connection string to this database. */
  url: string;
  name: string;
  /** Drops the database, ending whatever connections are still open on it. Safe to call twice. */
  drop(): Promise<void>;
}

const undropped = new Set<FileDatabase>();

async function onServer(adminUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}

// `create database ... template` copies the template's contents but not its settings (`alter
// database ... set`, kept per database oid): the platform's search path among them. Each is set
// again on the copy. A list setting (search_path) is written as it is stored, a list of names; any
// other as a string literal.
const COPY_SETTINGS = `
  do $$
  declare
    setting record;
  begin
    for setting in
      select split_part(config, '=', 1) as name, substr(config, strpos(config, '=') + 1) as value, role.rolname
      from pg_db_role_setting
      cross join unnest(setconfig) as config
      left join pg_roles as role on role.oid = setrole
      where setdatabase = (select oid from pg_database where datname = $1)
    loop
      execute format(
        'alter %s database %I set %I = %s',
        case when setting.rolname is null then '' else format('role %I in', setting.rolname) end,
        $2,
        setting.name,
        case when setting.name = 'search_path' then setting.value else quote_literal(setting.value) end
      );
    end loop;
  end
  $$`;

export async function createFileDatabase(): Promise<FileDatabase> {
  const { adminUrl, template } = inject('testPostgres');
  // Identifiers of [a-z0-9_] only: safe to write into the statement.
  const name = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(adminUrl, async (client) => {
    await client.query(`create database ${name} template ${template}`);
    await client.query(COPY_SETTINGS.replace('$1', `'${template}'`).replace('$2', `'${name}'`));
  });
  let dropping: Promise<void> | undefined;
  const database: FileDatabase = {
    url: databaseUrl(adminUrl, name),
    name,
    drop: () =>
      (dropping ??= (async () => {
        undropped.delete(database);
        await onServer(adminUrl, (client) => client.query(`drop database if exists ${name} with (force)`));
      })()),
  };
  undropped.add(database);
  return database;
}

/** Drops every database this file made and did not drop itself. */
export async function dropFileDatabases(): Promise<void> {
  await Promise.all([...undropped].map((database) => database.drop()));
}
