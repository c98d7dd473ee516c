// PostgREST's db-pre-request: a function named in the configuration, called with no arguments in
// every Data API request's transaction, after the role and request GUCs are set and before the
// statement. It may raise (the request fails with that error, status and all) or set
// response.headers / response.status (the answer carries them).

/**
 * The setting (`name` or `schema.name`, as PostgREST's db-pre-request takes it) as a quoted SQL
 * name. An unqualified name is looked up in the first exposed schema, where PostgREST's search_path
 * would find it for a request to the default schema. Anything else is a configuration error.
 */
export function preRequestSql(setting: string, defaultSchema: string): string {
  const parts = setting.split('.');
  if (parts.length > 2 || parts.some((part) => part === '' || part.includes('\0'))) {
    throw new Error(`pre-request function "${setting}" must be a function name or schema.name`);
  }
  const [schema, name] = parts.length === 2 ? (parts as [string, string]) : [defaultSchema, parts[0] as string];
  return `${quoteName(schema)}.${quoteName(name)}`;
}

function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
