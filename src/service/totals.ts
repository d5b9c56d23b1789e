// A player's overview totals as the import keeps them (src/service/sqlite-import.ts,
// src/service/pg-import.ts): one JSON document a player, of counts and a sum per stat, so that a
// profile and the ranks read one value instead of every row.
import { totalsToValues } from './aggregate.js';

/** A player's stored totals: counts, and the sum of each stat over the matches that have it. */
export interface StoredTotals {
  matchesPlayed: number;
  wins: number;
  losses: number;
  timePlayed: number;
  sums: Record<string, number>;
}

/** Stored totals as the values a profile shows: counts, sums and the ratios derived from them. */
export function storedValues(json: string): Record<string, number> {
  const t = JSON.parse(json) as StoredTotals;
  return totalsToValues({ ...t, sums: new Map(Object.entries(t.sums)) });
}
