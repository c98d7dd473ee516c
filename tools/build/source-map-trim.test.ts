// The server build's source maps without npm packages' segments: read back by Node's own SourceMap
// (the one stack traces use), the project's positions map exactly as before, positions in a
// package's code map nowhere (the frame keeps the bundle's position), and nothing of a package
// is left in the mappings.
import { SourceMap, type SourceMapping } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decodeMappings, encodeMappings, trimSourceMap } from './source-map-trim.mjs';

const SOURCES = ['../../gateway/src/main.ts', '../../node_modules/fastify/fastify.js', '../../db/database.ts'];

/**
 * Generated lines 0-1 from main.ts, line 2 from fastify, line 3 from main.ts then fastify on one
 * line, lines 4-5 from fastify, line 6 from database.ts (with a name), line 7 an unmapped segment
 * then fastify.
 */
const LINES = [
  [
    [0, 0, 0, 0],
    [8, 0, 0, 6],
  ],
  [[2, 0, 1, 2]],
  [
    [0, 1, 10, 0],
    [12, 1, 10, 9],
  ],
  [
    [0, 0, 2, 0],
    [20, 1, 11, 4],
    [30, 1, 11, 8],
  ],
  [[0, 1, 40, 0]],
  [[4, 1, 41, 2]],
  [[0, 2, 7, 1, 0]],
  [[0], [5, 1, 50, 0]],
];

const map = {
  version: 3,
  file: 'main.js',
  sourceRoot: '',
  sources: SOURCES,
  sourcesContent: [],
  names: ['open'],
  mappings: encodeMappings(LINES),
};

/** What Node's stack traces read for a (0-based) position: an empty object or fields left undefined when unmapped. */
function entryAt(sourceMap: SourceMap, line: number, column: number): Partial<SourceMapping> {
  return sourceMap.findEntry(line, column);
}

describe('trimSourceMap', () => {
  it('reads back the mappings it writes, fields made absolute', () => {
    expect(decodeMappings(map.mappings)).toEqual(LINES);
  });

  it("maps the project's positions exactly as the whole map did", () => {
    const whole = new SourceMap(map);
    const trimmed = new SourceMap(trimSourceMap(map));
    const ours = LINES.flatMap((segments, line) =>
      segments.filter((segment) => segment[1] !== undefined && segment[1] !== 1).map((segment) => [line, segment[0]]),
    );
    expect(ours).toHaveLength(5);
    for (const [line, column] of ours) {
      const entry = entryAt(trimmed, line as number, (column as number) + 1);
      expect(entry).toEqual(entryAt(whole, line as number, (column as number) + 1));
      expect(entry.originalSource).toBeDefined();
    }
  });

  it("maps a position in a package's code nowhere, even lines after the run began", () => {
    const trimmed = new SourceMap(trimSourceMap(map));
    for (const [line, column] of [
      [2, 0],
      [2, 15],
      [3, 25],
      [3, 31],
      [4, 3],
      [5, 40],
      [7, 9],
    ]) {
      expect(entryAt(trimmed, line as number, column as number).originalSource).toBeUndefined();
    }
    // Before the package's code on the same line, the project's segment still answers.
    expect(entryAt(trimmed, 3, 19)).toMatchObject({ originalLine: 2 });
  });

  it('keeps no segment of a package, one unmapped segment where each run begins', () => {
    const lines = decodeMappings(trimSourceMap(map).mappings);
    expect(lines.flat().filter((segment) => segment[1] === 1)).toEqual([]);
    expect(lines).toEqual([
      [
        [0, 0, 0, 0],
        [8, 0, 0, 6],
      ],
      [[2, 0, 1, 2]],
      [[0]],
      [[0, 0, 2, 0], [20]],
      [],
      [],
      [[0, 2, 7, 1, 0]],
      [[0]],
      // An empty last line: Node's parser misreads a one-field segment that ends the string.
      [],
    ]);
  });

  it('refuses a mappings string that is not base64 VLQ', () => {
    expect(() => trimSourceMap({ ...map, mappings: 'AA!A' })).toThrow(/not a base64 digit/);
  });
});
