// Types of source-map-trim.mjs (plain JavaScript, so it runs before anything is compiled).
/** One segment of a "mappings" string with absolute fields: [column] or [column, source, line, sourceColumn(, name)]. */
export type Segment = number[];
export function decodeMappings(mappings: string): Segment[][];
export function encodeMappings(lines: Segment[][]): string;
export function trimSourceMap<SourceMapJson extends { sources: string[]; mappings: string }>(
  map: SourceMapJson,
): SourceMapJson;
