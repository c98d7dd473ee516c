// Compares two heap snapshots (Chrome's .heapsnapshot format, as the soak bench writes them with
// --heap-snapshots, or `node --heapsnapshot-signal=SIGUSR2` does): the objects counted and their
// own (shallow) size, grouped by constructor (by type for strings, code, arrays and the like), and
// the groups that grew the most from the first snapshot to the second. Something that leaks shows
// as a group whose count keeps growing with the load: the Map entries, closures or sockets someone
// still holds. Retained sizes are left to Chrome DevTools' Comparison view.
// Run: node --import tsx tools/bench/heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [--top 30]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

interface Group {
  count: number;
  bytes: number;
}

/** What a snapshot holds, by `type:name` ("object:Map", "closure:onClose", "string"). */
export async function groupsOf(file: string): Promise<Map<string, Group>> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as Snapshot;
  const fields = parsed.snapshot.meta.node_fields;
  const types = parsed.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const groups = new Map<string, Group>();
  for (let at = 0; at < parsed.nodes.length; at += width) {
    const type = types[parsed.nodes[at + typeAt] as number] ?? 'unknown';
    // Strings and numbers are grouped by type alone: their "name" is their value.
    const named = type === 'object' || type === 'closure' || type === 'native' || type === 'hidden';
    const key = named ? `${type}:${parsed.strings[parsed.nodes[at + nameAt] as number]}` : type;
    const group = groups.get(key) ?? { count: 0, bytes: 0 };
    group.count += 1;
    group.bytes += parsed.nodes[at + sizeAt] as number;
    groups.set(key, group);
  }
  return groups;
}

const isMain = import.meta.url === `file://${process.argv[1]}`;
if (isMain) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '30' } },
  });
  const [beforeFile, afterFile] = positionals;
  if (!beforeFile || !afterFile) {
    console.error('usage: heap-diff.ts <before.heapsnapshot> <after.heapsnapshot> [--top 30]');
    process.exit(2);
  }
  const before = await groupsOf(beforeFile);
  const after = await groupsOf(afterFile);
  const total = (groups: Map<string, Group>) => [...groups.values()].reduce((sum, group) => sum + group.bytes, 0);
  const rows = [...new Set([...before.keys(), ...after.keys()])].map((key) => {
    const was = before.get(key) ?? { count: 0, bytes: 0 };
    const is = after.get(key) ?? { count: 0, bytes: 0 };
    return {
      key,
      count: is.count,
      countDelta: is.count - was.count,
      bytes: is.bytes,
      bytesDelta: is.bytes - was.bytes,
    };
  });
  rows.sort((a, b) => b.bytesDelta - a.bytesDelta);
  const KiB = 1024;
  console.log(
    `heap: ${(total(before) / KiB / KiB).toFixed(1)} MiB -> ${(total(after) / KiB / KiB).toFixed(1)} MiB (shallow sizes)`,
  );
  console.log('| group | count | count change | KiB | KiB change |');
  console.log('|---|---:|---:|---:|---:|');
  for (const row of rows.slice(0, Number(values.top))) {
    console.log(
      `| ${row.key.slice(0, 80)} | ${row.count} | ${row.countDelta >= 0 ? '+' : ''}${row.countDelta} | ${(row.bytes / KiB).toFixed(0)} | ${row.bytesDelta >= 0 ? '+' : ''}${(row.bytesDelta / KiB).toFixed(0)} |`,
    );
  }
}
