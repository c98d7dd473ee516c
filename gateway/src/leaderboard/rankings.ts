// Points are settled study minutes plus correct answers in the period (docs/database.md#points).
// Equal points share a rank (1, 2, 2, 4); ties are listed by minutes, then by user id for a
// stable order.
export interface StudyTotals {
  user_id: string;
  minutes: number;
  correct: number;
}

export interface RankedEntry extends StudyTotals {
  rank: number;
  points: number;
}

export function sumByUser(rows: StudyTotals[]): StudyTotals[] {
  const totals = new Map<string, StudyTotals>();
  for (const row of rows) {
    const total = totals.get(row.user_id) ?? { user_id: row.user_id, minutes: 0, correct: 0 };
    total.minutes += row.minutes;
    total.correct += row.correct;
    totals.set(row.user_id, total);
  }
  return [...totals.values()];
}

export function rankByPoints(totals: StudyTotals[]): RankedEntry[] {
  const scored = totals
    .map((total) => ({ ...total, points: total.minutes + total.correct }))
    .filter((entry) => entry.points > 0)
    .sort((a, b) => b.points - a.points || b.minutes - a.minutes || a.user_id.localeCompare(b.user_id));
  let rank = 0;
  return scored.map((entry, index) => {
    if (index === 0 || entry.points !== scored[index - 1]?.points) rank = index + 1;
    return { ...entry, rank };
  });
}
