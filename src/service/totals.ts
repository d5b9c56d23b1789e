// Overview totals kept up to date by the import: each player's counts and per-stat sums, stored as
// one JSON document a player. A new match adds its rows; a replaced match subtracts its old rows
// first, so an import costs what it imports, not what the store already holds. Each sum carries
// how many matches had that stat, so a stat that no remaining match has disappears, as it would
// from a rebuild.
import { totalsToValues, type Totals } from './aggregate.js';

/** A player's stored totals: counts, and per stat `[sum, matches that had it]`. */
export interface StoredTotals {
  matchesPlayed: number;
  wins: number;
  losses: number;
  timePlayed: number;
  sums: Record<string, [sum: number, matches: number]>;
}

/** Totals to add to (or, negative, take from) one player's stored totals. */
interface Delta {
  title: string;
  platform: string;
  player: string;
  matchesPlayed: number;
  wins: number;
  losses: number;
  timePlayed: number;
  sums: Map<string, [number, number]>;
}

/** What a match row contributes to its player's totals. */
export interface TotalsRow {
  result: string | null;
  duration_s: number;
  /** The row's stats: JSON text as stored, or the parsed numbers. */
  stats: string | Record<string, number>;
}

/** Changes to players' totals gathered over an import and written in one go per flush. */
export class TotalsDeltas {
  private readonly deltas = new Map<string, Delta>();

  get size(): number {
    return this.deltas.size;
  }

  /** Adds (`sign` 1) or takes away (`sign` -1) one match row; true when the player was not touched since the last flush. */
  add(title: string, platform: string, player: string, row: TotalsRow, sign: 1 | -1): boolean {
    const k = `${title}\u0000${platform}\u0000${player}`;
    let d = this.deltas.get(k);
    const first = d === undefined;
    if (!d) this.deltas.set(k, (d = { title, platform, player, matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: new Map() }));
    d.matchesPlayed += sign;
    if (row.result === 'win') d.wins += sign;
    else if (row.result === 'loss') d.losses += sign;
    d.timePlayed += sign * row.duration_s;
    const stats = typeof row.stats === 'string' ? (JSON.parse(row.stats) as Record<string, unknown>) : row.stats;
    for (const key in stats) {
      const value = stats[key];
      if (typeof value !== 'number') continue;
      const s = d.sums.get(key);
      if (s) {
        s[0] += sign * value;
        s[1] += sign;
      } else d.sums.set(key, [sign * value, sign]);
    }
    return first;
  }

  /** The titles touched since the last flush. */
  titles(): Set<string> {
    return new Set([...this.deltas.values()].map((d) => d.title));
  }

  /**
   * Hands every touched player's delta to `apply` (which merges it into what is stored) and
   * forgets them.
   */
  drain(apply: (title: string, platform: string, player: string, merge: (stored: string | undefined) => string | null) => void): void {
    for (const d of this.deltas.values()) apply(d.title, d.platform, d.player, (stored) => mergeTotals(stored, d));
    this.deltas.clear();
  }
}

/** Stored totals plus a delta, as JSON with sorted keys; null when no match is left. */
function mergeTotals(stored: string | undefined, d: Delta): string | null {
  const t: StoredTotals = stored ? (JSON.parse(stored) as StoredTotals) : { matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: {} };
  const matchesPlayed = t.matchesPlayed + d.matchesPlayed;
  if (matchesPlayed <= 0) return null;
  const sums = new Map(Object.entries(t.sums));
  for (const [key, [value, n]] of d.sums) {
    const old = sums.get(key) ?? [0, 0];
    const count = old[1] + n;
    if (count <= 0) sums.delete(key);
    else sums.set(key, [old[0] + value, count]);
  }
  const out: StoredTotals = {
    matchesPlayed,
    wins: t.wins + d.wins,
    losses: t.losses + d.losses,
    timePlayed: t.timePlayed + d.timePlayed,
    sums: Object.fromEntries([...sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  };
  return JSON.stringify(out);
}

/** Stored totals as the values a profile shows: counts, sums and the ratios derived from them. */
export function storedValues(json: string): Record<string, number> {
  const t = JSON.parse(json) as StoredTotals;
  const totals: Totals = {
    matchesPlayed: t.matchesPlayed,
    wins: t.wins,
    losses: t.losses,
    timePlayed: t.timePlayed,
    sums: new Map(Object.entries(t.sums).map(([k, [v]]) => [k, v])),
  };
  return totalsToValues(totals);
}
