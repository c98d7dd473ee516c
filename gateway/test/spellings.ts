// Generated spellings of a path: the same resource written the ways an attacker can write it. Each
// character may be kept, upper-cased, or percent-encoded (either hex case); each slash may be
// doubled; a `./` or `x/../` may be slipped in at a segment boundary. Every spelling decodes (once,
// case-blind, slashes folded, dot segments resolved) to the original path.
import fc from 'fast-check';

const characterSpelling = (character: string): fc.Arbitrary<string> => {
  const hex = character.charCodeAt(0).toString(16).padStart(2, '0');
  const options = [fc.constant(character), fc.constant(`%${hex}`), fc.constant(`%${hex.toUpperCase()}`)];
  if (/[a-z]/.test(character)) options.push(fc.constant(character.toUpperCase()));
  return fc.oneof(...options);
};

const separatorSpelling: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constant('/') },
  { weight: 1, arbitrary: fc.constant('//') },
  { weight: 1, arbitrary: fc.constant('/./') },
  { weight: 1, arbitrary: fc.constant('/zz/../') },
  { weight: 1, arbitrary: fc.constant('%2f') },
);

/** Spellings of `path` (which starts with `/`); the first slash is always a plain one. */
export function spellingsOf(path: string): fc.Arbitrary<string> {
  const segments = path.slice(1).split('/');
  const spelledSegments = segments.map((segment) =>
    fc.tuple(...[...segment].map(characterSpelling)).map((parts) => parts.join('')),
  );
  const separators = segments.slice(1).map(() => separatorSpelling);
  return fc.tuple(fc.tuple(...spelledSegments), fc.tuple(...separators)).map(([spelled, seps]) => {
    let out = `/${spelled[0] ?? ''}`;
    for (let index = 1; index < spelled.length; index++) out += `${seps[index - 1]}${spelled[index]}`;
    return out;
  });
}

/** How a lenient backend reads a path (decoded once, case-blind, slashes folded, dots resolved). */
export function lenientReading(rawPath: string): string {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawPath);
  } catch {
    decoded = rawPath;
  }
  return new URL(`http://backend${decoded.replace(/\/+/g, '/')}`).pathname.toLowerCase();
}
