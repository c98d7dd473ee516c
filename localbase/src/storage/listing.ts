// storage-api's list: the direct children of a prefix. Objects deeper down show up once, as a
// folder entry (name only, id and timestamps null), exactly like storage.search() answers.
import type { ObjectRow } from './objects.ts';

export interface ListOptions {
  prefix: string;
  limit: number;
  offset: number;
  sortColumn: 'name' | 'created_at' | 'updated_at' | 'last_accessed_at';
  descending: boolean;
  search: string;
}

export interface ListEntry {
  name: string;
  id: string | null;
  updated_at: string | null;
  created_at: string | null;
  last_accessed_at: string | null;
  metadata: Record<string, unknown> | null;
}

export function folderPrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, '');
  return trimmed === '' || trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
}

export function listChildren(rows: ObjectRow[], options: ListOptions): ListEntry[] {
  const prefix = folderPrefix(options.prefix);
  const entries = new Map<string, ListEntry>();
  for (const row of rows) {
    const rest = row.name.slice(prefix.length);
    const slash = rest.indexOf('/');
    const name = slash < 0 ? rest : rest.slice(0, slash);
    if (name === '' || (options.search && !name.toLowerCase().includes(options.search.toLowerCase()))) continue;
    if (slash >= 0) {
      if (!entries.has(name)) {
        entries.set(name, {
          name,
          id: null,
          updated_at: null,
          created_at: null,
          last_accessed_at: null,
          metadata: null,
        });
      }
      continue;
    }
    entries.set(name, {
      name,
      id: row.id,
      updated_at: row.updated_at?.toISOString() ?? null,
      created_at: row.created_at?.toISOString() ?? null,
      last_accessed_at: row.last_accessed_at?.toISOString() ?? null,
      metadata: row.metadata,
    });
  }
  const direction = options.descending ? -1 : 1;
  const sorted = [...entries.values()].sort((a, b) => {
    const left = String(a[options.sortColumn] ?? a.name);
    const right = String(b[options.sortColumn] ?? b.name);
    return left < right ? -direction : left > right ? direction : 0;
  });
  return sorted.slice(options.offset, options.offset + options.limit);
}
