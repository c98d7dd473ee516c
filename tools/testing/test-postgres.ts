// What the postgres project's globalSetup (postgres-global-setup.ts) hands the test files: where
// the run's PostgreSQL server is and which database on it is the template.

export interface TestPostgres {
  /** The superuser's connection string to the server's `postgres` database. */
  adminUrl: string;
  /** The migrated database every test file's database is copied from. */
  template: string;
}

export const TEMPLATE_DATABASE = 'studyhall_template';

declare module 'vitest' {
  export interface ProvidedContext {
    testPostgres: TestPostgres;
  }
}

/** `adminUrl` with another database. */
export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}
