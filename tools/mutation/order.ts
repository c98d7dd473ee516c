// Which pgTAP files a mutant runs first. A mutant is killed by the first failing file, so the
// files most likely to fail run first: those that already killed a mutant of the same table in
// this run, then those that name the table, then the rest in suite order. Every file still runs
// for a mutant that survives, so the order changes only how fast a kill is found, never whether.
import type { TableRef } from './catalog.ts';

export interface SuiteFile {
  name: string;
  sql: string;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whether the file's SQL names the table (storage.objects, realtime.messages by their qualified names). */
export function mentionsTable(file: SuiteFile, target: TableRef): boolean {
  const name = target.schema === 'public' ? target.table : `${target.schema}.${target.table}`;
  return new RegExp(`(^|[^a-z0-9_])${escapeRegExp(name)}($|[^a-z0-9_])`, 'i').test(file.sql);
}

export class KillerOrder {
  /** "schema.table" -> file name -> mutants of that table the file killed. */
  private readonly kills = new Map<string, Map<string, number>>();

  constructor(private readonly files: SuiteFile[]) {}

  order(target: TableRef): SuiteFile[] {
    const kills = this.kills.get(key(target)) ?? new Map<string, number>();
    const rank = (file: SuiteFile): number => (kills.get(file.name) ?? 0) * 2 + (mentionsTable(file, target) ? 1 : 0);
    return this.files
      .map((file, index) => ({ file, index, rank: rank(file) }))
      .sort((a, b) => b.rank - a.rank || a.index - b.index)
      .map(({ file }) => file);
  }

  recordKill(target: TableRef, fileName: string): void {
    const kills = this.kills.get(key(target)) ?? new Map<string, number>();
    kills.set(fileName, (kills.get(fileName) ?? 0) + 1);
    this.kills.set(key(target), kills);
  }
}

function key(target: TableRef): string {
  return `${target.schema}.${target.table}`;
}
