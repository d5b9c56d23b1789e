// Aggregation: sums a player's match rows into totals, derives ratios, and turns values into the
// interface's Stat objects. One path for profiles, segments, sessions and match teams.
import { LADDERS, RATING_KEYS, formatStatValue, statInfo, tierOf, type TitleSlug } from '../catalog/index.js';
import type { Stat } from '../lookup/schemas.js';

/** One player's part in one match, as stored. `stats` and `weapons` are JSON text. */
export interface MatchRow {
  match_id: string;
  started_at: number;
  duration_s: number;
  result: string | null;
  hero: string | null;
  legend: string | null;
  map: string | null;
  mode: string | null;
  playlist: string | null;
  queue: string | null;
  season: number | null;
  stats: string;
  weapons: string | null;
}

export interface Totals {
  matchesPlayed: number;
  wins: number;
  losses: number;
  timePlayed: number;
  sums: Map<string, number>;
  /** Ratings (RATING_KEYS): not summed, but the newest match's and the best, rows added oldest first. */
  ratings?: Map<string, { last: number; peak: number }>;
}

export function emptyTotals(): Totals {
  return { matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: new Map(), ratings: new Map() };
}

function addNumbers(totals: Totals, numbers: Record<string, number>): void {
  for (const key in numbers) {
    const value = numbers[key];
    if (typeof value !== 'number') continue;
    if (RATING_KEYS.has(key)) {
      const ratings = (totals.ratings ??= new Map<string, { last: number; peak: number }>());
      const had = ratings.get(key);
      ratings.set(key, { last: value, peak: had ? Math.max(had.peak, value) : value });
    } else totals.sums.set(key, (totals.sums.get(key) ?? 0) + value);
  }
}

function countMatch(totals: Totals, row: Pick<MatchRow, 'result' | 'duration_s'>): void {
  totals.matchesPlayed++;
  if (row.result === 'win') totals.wins++;
  else if (row.result === 'loss') totals.losses++;
  totals.timePlayed += row.duration_s;
}

/** Adds one match row (its counts and its `stats`) to the totals. */
export function addMatch(totals: Totals, row: Pick<MatchRow, 'result' | 'duration_s' | 'stats'>): void {
  countMatch(totals, row);
  addNumbers(totals, JSON.parse(row.stats) as Record<string, number>);
}

const ratio = (a: number, b: number) => (b === 0 ? a : a / b);

/** Counts, sums and the ratios derived from them, by stat key. */
/**
 * A sum of fractional values to 12 significant digits: added in another order (PostgreSQL adds each
 * batch's part to the stored total, SQLite sums a player's rows at once) the same healing read
 * 4.2 in one store and 4.200000000000001 in the other, and ranked 66th against 2nd among players
 * whose 4.2 it was equal to. Whole sums are exact either way and stay as they are.
 */
export const tidySum = (value: number): number => (Number.isInteger(value) ? value : Number(value.toPrecision(12)));

export function totalsToValues(t: Totals): Record<string, number> {
  const v: Record<string, number> = {
    matchesPlayed: t.matchesPlayed,
    wins: t.wins,
    losses: t.losses,
    timePlayed: t.timePlayed,
  };
  // A sum of ratings says nothing (stored totals add every stat up): a rating is the newest match's.
  for (const [key, value] of t.sums) if (!RATING_KEYS.has(key)) v[key] = tidySum(value);
  for (const [key, { last, peak }] of t.ratings ?? []) {
    v[key] = last;
    const peakKey = PEAK_KEYS.get(key);
    if (peakKey !== undefined && peakKey !== key) v[peakKey] = Math.max(peak, v[peakKey] ?? peak);
  }
  const { kills, deaths, assists, damage, shotsFired, shotsHit, headshots } = v;
  if (kills !== undefined && deaths !== undefined) v.kd = ratio(kills, deaths);
  if (kills !== undefined && deaths !== undefined && assists !== undefined) v.kda = ratio(kills + assists, deaths);
  if (t.matchesPlayed > 0 && t.wins + t.losses > 0) v.winRate = (t.wins / t.matchesPlayed) * 100;
  if (kills !== undefined && t.matchesPlayed > 0) v.killsPerMatch = kills / t.matchesPlayed;
  if (damage !== undefined && t.matchesPlayed > 0) v.damagePerMatch = damage / t.matchesPlayed;
  if (shotsFired !== undefined && shotsHit !== undefined && shotsFired > 0) v.accuracy = (shotsHit / shotsFired) * 100;
  if (headshots !== undefined && kills !== undefined && kills > 0) v.headshotRate = (headshots / kills) * 100;
  return v;
}

/** Each rating key's peak key. */
const PEAK_KEYS = new Map(Object.values(LADDERS).map((l) => [l.key, l.peakKey]));

/**
 * A title's ratings as its answers carry them: the tier in the stat's metadata (`rankName` or
 * `tierName` as the title's real answers name it, its division where the title has them). The
 * emblem is the bot's to draw: no `iconUrl` is made up.
 */
export function withTiers(title: TitleSlug, stats: Record<string, Stat>): Record<string, Stat> {
  const ladder = LADDERS[title];
  for (const key of [ladder.key, ladder.peakKey]) {
    const stat = stats[key];
    if (!stat || typeof stat.value !== 'number') continue;
    const tier = tierOf(title, stat.value);
    stat.metadata = { [ladder.tierField]: tier.name, ...(tier.division === null ? {} : { division: tier.division }), iconUrl: null };
  }
  return stats;
}

/** Place and share of a value among every player's value of the same stat. */
export interface Standing {
  rank: number;
  percentile: number;
}

/** First index whose value is greater than `value` (sorted ascending input). */
function upperBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose value is not less than `value`. */
function lowerBound(sorted: Float64Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Rank (1 = best) and percentile (share of the other players at or below this one, so 99.1 means top
 * 0.9 %) of a value among `population`, sorted ascending. When less is better (deaths), the order
 * turns around.
 */
export function standing(population: Float64Array, value: number, higherIsBetter: boolean): Standing | null {
  return standingOfCounts(lowerBound(population, value), upperBound(population, value), population.length, higherIsBetter);
}

/**
 * The same from counts: `below` players have less than the value, `atOrBelow` at most the value,
 * out of `n`.
 */
export function standingOfCounts(below: number, atOrBelow: number, n: number, higherIsBetter: boolean): Standing | null {
  if (n === 0) return null;
  const better = higherIsBetter ? n - atOrBelow : below;
  // The others at or below, the player not counted among them: counted, the best of three read 100
  // ("top 0 %", shown as top 0.1 %) and the second 66.7 ("top 33.3 %"), where they are the top
  // third and the top two thirds.
  const othersAtOrWorse = (higherIsBetter ? atOrBelow : n - below) - 1;
  return { rank: better + 1, percentile: Math.round((othersAtOrWorse / n) * 1000) / 10 };
}

/** Known stats first, in the catalog's order, then the rest by name. */
function statOrder(keys: string[]): string[] {
  const known = ['matchesPlayed', 'wins', 'losses', 'winRate', 'kills', 'deaths', 'assists', 'kd', 'kda', 'damage'];
  const rank = (k: string) => {
    const i = known.indexOf(k);
    return i === -1 ? known.length : i;
  };
  return keys.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Values as the interface's Stat objects, with standings where `standingOf` gives one. */
export function toStats(values: Record<string, number>, standingOf?: (key: string, value: number) => Standing | null): Record<string, Stat> {
  const stats: Record<string, Stat> = {};
  for (const key of statOrder(Object.keys(values))) {
    const value = values[key] ?? 0;
    const info = statInfo(key);
    const place = standingOf?.(key, value) ?? null;
    stats[key] = {
      rank: place?.rank ?? null,
      percentile: place?.percentile ?? null,
      displayName: info.displayName,
      displayCategory: info.category.charAt(0).toUpperCase() + info.category.slice(1),
      category: info.category,
      metadata: {},
      value,
      displayValue: formatStatValue(value, info.displayType),
      displayType: info.displayType,
    };
  }
  return stats;
}

/**
 * What aggregation reads of a match row: `[result, durationSeconds, groupKey, json]`, where `json`
 * is the row's `stats`, or its `weapons` when grouping by weapon. Raw tuples, because reading
 * 10,000 rows as objects costs several times more than the sums themselves.
 */
export type AggregateRow = [result: string | null, durationSeconds: number, key: string | null, json: string | null];

/**
 * Groups rows by their key and sums each group. Weapon rows carry a JSON map of weapon -> numbers:
 * each weapon a match used counts that match and adds its own numbers.
 */
export function groupRows(rows: Iterable<AggregateRow>, byWeapon: boolean): Map<string, Totals> {
  const groups = new Map<string, Totals>();
  const group = (key: string) => {
    let t = groups.get(key);
    if (!t) groups.set(key, (t = emptyTotals()));
    return t;
  };
  for (const [result, duration_s, key, json] of rows) {
    if (json === null) continue;
    if (byWeapon) {
      const weapons = JSON.parse(json) as Record<string, Record<string, number>>;
      for (const name in weapons) {
        const t = group(name);
        countMatch(t, { result, duration_s });
        addNumbers(t, weapons[name] ?? {});
      }
    } else if (key !== null) {
      addMatch(group(key), { result, duration_s, stats: json });
    }
  }
  return groups;
}
