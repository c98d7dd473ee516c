// Realtime's row filter, `column=op.value` with eq, neq, lt, lte, gt, gte and in.(a,b), matched
// against the new record in memory (RLS is checked separately, in the database).

export interface RowFilter {
  column: string;
  operator: 'eq' | 'neq' | 'lt' | 'lte' | 'gt' | 'gte' | 'in';
  values: string[];
}

const FILTER = /^([^=]+)=(eq|neq|lt|lte|gt|gte|in)\.(.*)$/s;

/** Parses a filter string; undefined for "no filter", an Error for one realtime would refuse. */
export function parseRowFilter(filter: string | undefined): RowFilter | undefined | Error {
  if (filter === undefined || filter === '') return undefined;
  const match = FILTER.exec(filter);
  if (!match)
    return new Error(`invalid filter "${filter}": expected column=op.value with eq, neq, lt, lte, gt, gte or in`);
  const [, column, operator, operand] = match as unknown as [string, string, RowFilter['operator'], string];
  if (operator === 'in') {
    if (!operand.startsWith('(') || !operand.endsWith(')'))
      return new Error(`invalid filter "${filter}": in expects (a,b)`);
    return {
      column,
      operator,
      values: operand
        .slice(1, -1)
        .split(',')
        .map((value) => value.trim().replace(/^"(.*)"$/, '$1')),
    };
  }
  return { column, operator, values: [operand] };
}

function compare(left: unknown, right: string): number {
  const number = Number(right);
  if (typeof left === 'number' && !Number.isNaN(number)) return left - number;
  const text = typeof left === 'string' ? left : JSON.stringify(left);
  return text < right ? -1 : text > right ? 1 : 0;
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function rowMatches(filter: RowFilter | undefined, record: Record<string, unknown>): boolean {
  if (!filter) return true;
  const value = record[filter.column];
  if (value === undefined || value === null) return false;
  const [first = ''] = filter.values;
  switch (filter.operator) {
    case 'eq':
      return asText(value) === first;
    case 'neq':
      return asText(value) !== first;
    case 'in':
      return filter.values.includes(asText(value));
    case 'lt':
      return compare(value, first) < 0;
    case 'lte':
      return compare(value, first) <= 0;
    case 'gt':
      return compare(value, first) > 0;
    case 'gte':
      return compare(value, first) >= 0;
  }
}
