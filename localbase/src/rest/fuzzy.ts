// The fuzzy matching behind PostgREST's "Perhaps you meant ..." hints (the fuzzyset algorithm:
// character n-gram vectors compared by cosine similarity, the best 50 re-scored by normalised
// Levenshtein distance, trying 3-grams before 2-grams).

const GRAM_SIZES = [3, 2] as const;
export const DEFAULT_MIN_SCORE = 0.33;

function normalized(value: string): string {
  return [...value.toLowerCase()].filter((char) => /[\p{L}\p{N}\s,]/u.test(char)).join('');
}

function gramCounts(value: string, size: number): Map<string, number> {
  const padded = `-${normalized(value)}-`;
  const counts = new Map<string, number>();
  for (let i = 0; i <= padded.length - size; i++) {
    const gram = padded.slice(i, i + size);
    counts.set(gram, (counts.get(gram) ?? 0) + 1);
  }
  return counts;
}

function magnitude(counts: Map<string, number>): number {
  let sum = 0;
  for (const count of counts.values()) sum += count * count;
  return Math.sqrt(sum);
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - levenshtein(a, b) / longest;
}

/** Candidates similar to `value`, best first, each with its score in [0, 1]. */
export function fuzzyMatches(
  candidates: Iterable<string>,
  value: string,
  minScore = DEFAULT_MIN_SCORE,
): { score: number; value: string }[] {
  const entries = [...new Set(candidates)];
  const key = value.toLowerCase();
  const exact = entries.find((entry) => entry.toLowerCase() === key);
  if (exact !== undefined) return [{ score: 1, value: exact }];
  for (const size of GRAM_SIZES) {
    const wanted = gramCounts(value, size);
    const wantedMagnitude = magnitude(wanted);
    const scored: { score: number; value: string }[] = [];
    for (const entry of entries) {
      const counts = gramCounts(entry, size);
      let dot = 0;
      for (const [gram, count] of wanted) dot += count * (counts.get(gram) ?? 0);
      if (dot > 0) scored.push({ score: dot / (wantedMagnitude * magnitude(counts)), value: entry });
    }
    if (scored.length === 0) continue;
    scored.sort((a, b) => b.score - a.score);
    const rescored = scored
      .slice(0, 50)
      .map((match) => ({ score: similarity(key, match.value.toLowerCase()), value: match.value }))
      .sort((a, b) => b.score - a.score)
      .filter((match) => match.score >= minScore);
    if (rescored.length > 0) return rescored;
  }
  return [];
}

export function bestFuzzyMatch(
  candidates: Iterable<string>,
  value: string,
  minScore = DEFAULT_MIN_SCORE,
): string | undefined {
  return fuzzyMatches(candidates, value, minScore)[0]?.value;
}
