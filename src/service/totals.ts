// A player's overview totals as the import keeps them (src/service/sqlite-import.ts,
// src/service/pg-import.ts): one JSON document a player, of counts and sums per stat, so that a
// profile and the ranks read one value instead of every row.
import { totalsToValues } from './aggregate.js';

/**
 * A player's stored totals: counts, and per stat its sum and how many matches had it (a stat whose
 * matches are all replaced goes, as it would from a sum of the rows).
 */
export interface StoredTotals {
  matchesPlayed: number;
  wins: number;
  losses: number;
  timePlayed: number;
  sums: Record<string, [sum: number, matches: number]>;
}

/** Stored totals (as JSON, or as they are) as the values a profile shows: counts, sums and the ratios derived from them. */
export function storedValues(totals: string | StoredTotals): Record<string, number> {
  const t = typeof totals === 'string' ? (JSON.parse(totals) as StoredTotals) : totals;
  // Built in a loop: an import calls this for every player it totals.
  const sums = new Map<string, number>();
  for (const key in t.sums) sums.set(key, (t.sums[key] as [number, number])[0]);
  return totalsToValues({ matchesPlayed: t.matchesPlayed, wins: t.wins, losses: t.losses, timePlayed: t.timePlayed, sums });
}
