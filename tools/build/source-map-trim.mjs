// @ts-check
// The compiled server's source maps, kept to the project's own code. The server turns source maps on
// (start.mjs) so stack traces name the TypeScript sources; Node parses a bundle's map the first time
// a stack trace passes through that bundle, and keeps it for the life of the process as one small
// array per mapping segment: about 120 bytes each. esbuild maps every bundled npm package too, and
// those are 85 % of gateway-main.js's segments and nearly all of the shared chunk's: parsed, the two
// maps held some 70 MB of heap, taken in steps as errors first passed through each file, never given
// back (tools/bench/README-soak.md).
//
// trimSourceMap keeps the segments of sources outside node_modules as they are and replaces each
// run of segments from node_modules by one segment that maps nowhere, placed where the run begins.
// Node's lookup takes the nearest segment at or before a position, across lines, so positions in a
// package's code find that unmapped segment and the frame keeps the bundle's own file:line:column,
// as it would without a map; frames in the project's code are mapped exactly as before.
//
// Plain JavaScript on purpose: server-build.mjs runs it before anything is compiled.

/** Sources under node_modules: their segments are dropped. */
const PACKAGE_SOURCE = /(^|\/)node_modules\//;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const BASE64_VALUE = new Map([...BASE64].map((char, index) => [char, index]));

/**
 * One segment of a "mappings" string, fields made absolute: [column] or [column, source, line,
 * sourceColumn] or [column, source, line, sourceColumn, name].
 * @typedef {number[]} Segment
 */

/**
 * The base64 VLQ numbers of one segment.
 * @param {string} text
 * @returns {number[]}
 */
function decodeVlq(text) {
  /** @type {number[]} */
  const numbers = [];
  let value = 0;
  let shift = 0;
  for (const char of text) {
    const digit = BASE64_VALUE.get(char);
    if (digit === undefined) throw new Error(`source map: "${char}" is not a base64 digit`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      numbers.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  if (shift !== 0) throw new Error('source map: a segment ends inside a number');
  return numbers;
}

/**
 * @param {number} number
 * @returns {string}
 */
function encodeVlq(number) {
  let value = number < 0 ? (-number << 1) | 1 : number << 1;
  let text = '';
  do {
    let digit = value & 31;
    value >>>= 5;
    if (value > 0) digit |= 32;
    text += BASE64[digit];
  } while (value > 0);
  return text;
}

/**
 * The segments of each generated line, with absolute fields.
 * @param {string} mappings
 * @returns {Segment[][]}
 */
export function decodeMappings(mappings) {
  const previous = [0, 0, 0, 0, 0];
  return mappings.split(';').map((line) => {
    previous[0] = 0; // the generated column restarts on each line; the other fields run on
    if (line === '') return [];
    return line.split(',').map((text) => {
      const relative = decodeVlq(text);
      if (![1, 4, 5].includes(relative.length)) throw new Error(`source map: a segment of ${relative.length} fields`);
      return relative.map((delta, field) => (previous[field] = (previous[field] ?? 0) + delta));
    });
  });
}

/**
 * @param {Segment[][]} lines
 * @returns {string}
 */
export function encodeMappings(lines) {
  const previous = [0, 0, 0, 0, 0];
  return lines
    .map((segments) => {
      previous[0] = 0;
      return segments
        .map((segment) =>
          segment
            .map((value, field) => {
              const delta = value - (previous[field] ?? 0);
              previous[field] = value;
              return encodeVlq(delta);
            })
            .join(''),
        )
        .join(',');
    })
    .join(';');
}

/**
 * The map without the segments of npm packages (see the top); the rest of it as it was.
 * @template {{ sources: string[], mappings: string }} SourceMapJson
 * @param {SourceMapJson} map
 * @returns {SourceMapJson}
 */
export function trimSourceMap(map) {
  const fromPackage = map.sources.map((source) => PACKAGE_SOURCE.test(source));
  // Whether the last segment kept maps nowhere: then a package's segment after it needs no marker.
  let lastKeptUnmapped = false;
  const lines = decodeMappings(map.mappings).map((segments) =>
    segments.flatMap((segment) => {
      const source = segment[1];
      if (source === undefined) {
        lastKeptUnmapped = true;
        return [segment];
      }
      if (!fromPackage[source]) {
        lastKeptUnmapped = false;
        return [segment];
      }
      if (lastKeptUnmapped) return [];
      lastKeptUnmapped = true;
      return [[segment[0] ?? 0]];
    }),
  );
  const mappings = encodeMappings(lines);
  // Node 20's parser reads a one-field segment at the very end of the string as mapped to the
  // previous source; an empty line after it keeps it unmapped.
  const endsUnmapped = lines.at(-1)?.at(-1)?.length === 1;
  return { ...map, mappings: endsUnmapped ? `${mappings};` : mappings };
}
