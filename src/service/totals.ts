// Overview totals kept up to date by the import: each player's counts and per-stat sums, stored as
// one JSON document a player. A new match adds its rows; a replaced match subtracts its old rows
// first, so an import costs what it imports, not what the store already holds. Each sum carries
// how many matches had that stat, so a stat that no remaining match has disappears, as it would
// from a rebuild.
import { totalsToValues, type Totals } from './aggregate.js';
import { KeyTable } from './key-table.js';

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
  /** Per stat slot of its title (see TotalsDeltas.slots) its sum at `2 * slot` and its count of matches at `2 * slot + 1`. */
  sums: number[];
}

/**
 * TotalsDeltas as plain data: what a parse worker hands the writer. The numbers travel in buffers
 * the worker transfers (exportBuffers), the players' keys as an array of strings a title and
 * platform. As objects, one a player, a million-match import's deltas took about 3 s to cross
 * after the last batch was written, the writer waiting; this way 0.4 to 0.9 s.
 */
export interface DeltasExport {
  /** Stat names by slot, by title. */
  names: Record<string, string[]>;
  /** The deltas by title and platform, each group's players in order. */
  groups: { title: string; platform: string; players: string[] }[];
  /** Per delta, in the groups' order: matchesPlayed, wins, losses, timePlayed, then its sums (see Delta.sums). */
  numbers: Float64Array;
  /** Where each delta's numbers start in `numbers`, and after the last, where they end. */
  offsets: Uint32Array;
}

/** The buffers an export's numbers are in, to transfer with it. */
export const exportBuffers = (x: DeltasExport): ArrayBuffer[] => [x.numbers.buffer as ArrayBuffer, x.offsets.buffer as ArrayBuffer];

/** What a match row contributes to its player's totals. */
export interface TotalsRow {
  result: string | null;
  duration_s: number;
  /** The row's stats: JSON text as stored, or the parsed numbers. */
  stats: string | Record<string, number>;
}

/** Changes to players' totals gathered over an import and written in one go per flush. */
export class TotalsDeltas {
  /** By title and platform, then player: a joined key string costs more than the sums (an import adds ten rows a match). */
  private readonly deltas = new Map<string, Map<string, KeyTable<Delta>>>();
  private count = 0;
  /**
   * Stat names by slot, and slots by name, a set by title: a delta keeps its sums in a flat array (a
   * few hundred bytes a player) as long as the highest slot it has. Numbered by title, a player's
   * sums never make room for another title's stats; an import brings a title at most
   * MAX_STAT_NAMES (dataset.ts).
   */
  private slots = new Map<string, { names: string[]; slots: Map<string, number> }>();

  get size(): number {
    return this.count;
  }

  /** Adds (`sign` 1) or takes away (`sign` -1) one match row; true when the player was not touched since the last flush. */
  add(title: string, platform: string, player: string, row: TotalsRow, sign: 1 | -1): boolean {
    const count = this.count;
    const d = this.counted(title, platform, player, row.result, row.duration_s, sign);
    const stats = typeof row.stats === 'string' ? (JSON.parse(row.stats) as Record<string, unknown>) : row.stats;
    const slots = this.slotsOf(title);
    for (const key in stats) {
      const value = stats[key];
      if (typeof value === 'number') addSum(d.sums, 2 * slotOf(slots, key), sign * value, sign);
    }
    return this.count > count;
  }

  /**
   * Adds one match row whose stats are `names[from..to)` with their `values` (a match line read from
   * its bytes, src/service/match-line.ts): as add, without an object of stats.
   */
  addNumbers(
    title: string,
    platform: string,
    player: string,
    result: string | null,
    duration_s: number,
    names: readonly string[],
    values: readonly number[],
    from: number,
    to: number,
  ): boolean {
    const count = this.count;
    const d = this.counted(title, platform, player, result, duration_s, 1);
    const slots = this.slotsOf(title);
    for (let k = from; k < to; k++) addSum(d.sums, 2 * slotOf(slots, names[k] as string), values[k] as number, 1);
    return this.count > count;
  }

  /** The player's delta with the row's match, result and time counted. */
  private counted(title: string, platform: string, player: string, result: string | null, duration_s: number, sign: 1 | -1): Delta {
    const d = this.deltaOf(this.playersOf(title, platform), title, platform, player);
    d.matchesPlayed += sign;
    if (result === 'win') d.wins += sign;
    else if (result === 'loss') d.losses += sign;
    d.timePlayed += sign * duration_s;
    return d;
  }

  /** The player's delta among `players` (their title and platform's), made empty and counted if they had none. */
  private deltaOf(players: KeyTable<Delta>, title: string, platform: string, player: string): Delta {
    let d = players.get(player);
    if (!d) {
      players.add(player, (d = { title, platform, player, matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: [] }));
      this.count++;
    }
    return d;
  }

  /** A title's stat slots. */
  private slotsOf(title: string): { names: string[]; slots: Map<string, number> } {
    let slots = this.slots.get(title);
    if (!slots) this.slots.set(title, (slots = { names: [], slots: new Map() }));
    return slots;
  }

  /** Forgets every delta and stat name (once they are taken or drained). */
  private forget(): void {
    this.deltas.clear();
    this.count = 0;
    this.slots = new Map();
  }

  private playersOf(title: string, platform: string): KeyTable<Delta> {
    let platforms = this.deltas.get(title);
    if (!platforms) this.deltas.set(title, (platforms = new Map<string, KeyTable<Delta>>()));
    let players = platforms.get(platform);
    if (!players) platforms.set(platform, (players = new KeyTable<Delta>()));
    return players;
  }

  /**
   * The deltas as plain data (for another thread), forgotten here: in key order (title, platform,
   * player, each by code units), so that exports are merged without a map (drainExports) and their
   * totals written in the order of their table's key.
   */
  take(): DeltasExport {
    const groups: DeltasExport['groups'] = [];
    const ordered: Delta[][] = [];
    let size = 0;
    const byKey = <T>(entries: Iterable<[string, T]>) => [...entries].sort(([a], [b]) => byCodeUnits(a, b));
    for (const [title, platforms] of byKey(this.deltas)) {
      for (const [platform, byPlayer] of byKey(platforms)) {
        // The keys sorted, then their deltas found: half the time of the deltas sorted by their keys.
        const keys = Array.from(byPlayer.values(), (d) => d.player).sort(byCodeUnits);
        const players = keys.map((key) => byPlayer.get(key) as Delta);
        groups.push({ title, platform, players: keys });
        ordered.push(players);
        for (const d of players) size += 4 + d.sums.length;
      }
    }
    const numbers = new Float64Array(size);
    const offsets = new Uint32Array(this.count + 1);
    let i = 0;
    let at = 0;
    for (const players of ordered)
      for (const d of players) {
        offsets[i++] = at;
        numbers[at] = d.matchesPlayed;
        numbers[at + 1] = d.wins;
        numbers[at + 2] = d.losses;
        numbers[at + 3] = d.timePlayed;
        // Copied one by one: `set` from an array of numbers took half as long again.
        const sums = d.sums;
        for (let k = 0; k < sums.length; k++) numbers[at + 4 + k] = sums[k] ?? 0;
        at += 4 + sums.length;
      }
    offsets[i] = at;
    const names = Object.fromEntries([...this.slots].map(([title, s]) => [title, s.names]));
    const out: DeltasExport = { names, groups, numbers, offsets };
    this.forget();
    return out;
  }

  /**
   * Hands every touched player's delta to `apply` (which merges it into what is stored) and
   * forgets them; with `more` (exports taken from other TotalsDeltas, a parse worker's), each
   * player's deltas summed across them, once a player, in key order (see drainExports).
   */
  drain(apply: ApplyDelta, more: readonly DeltasExport[] = []): void {
    drainExports([this.take(), ...more], apply);
  }
}

/**
 * What a drain hands each player to: `merge` merges their delta into what is stored (JSON, or
 * nothing) and gives what to store (null: no match left); `values` gives the delta as the values a
 * profile shows (storedValues of what merging it into nothing writes), a player's whole totals when
 * nothing was stored for them.
 */
export type ApplyDelta = (
  title: string,
  platform: string,
  player: string,
  merge: (stored: string | undefined) => string | null,
  values: () => Record<string, number>,
) => void;

/**
 * Hands each player of the exports (each in key order, see TotalsDeltas.take) to `apply` once, their
 * deltas summed across the exports, in key order: a merge of the exports' sorted lists. Summing a
 * million-match load's two parse workers' exports into maps first took 2 s; their totals written
 * in the table's key order are appended rather than put all over it (half a million players: 1.9
 * s against 4.4 in first-seen order).
 */
export function drainExports(xs: readonly DeltasExport[], apply: ApplyDelta): void {
  /** Each export's groups, with where their deltas start among the export's. */
  const groups: { title: string; platform: string; players: string[]; x: DeltasExport; start: number }[] = [];
  for (const x of xs) {
    let start = 0;
    for (const g of x.groups) {
      groups.push({ ...g, x, start });
      start += g.players.length;
    }
  }
  groups.sort((a, b) => byCodeUnits(a.title, b.title) || byCodeUnits(a.platform, b.platform));
  /** Stat names by slot, by title, across the exports; each export's slots in them. */
  const titles = new Map<string, TitleNames>();
  const slotsIn = new Map<DeltasExport, Map<string, number[]>>();
  for (const x of xs)
    for (const [title, names] of Object.entries(x.names)) {
      const t = titles.get(title) ?? { names: [], slots: new Map<string, number>(), order: [], keys: [] };
      titles.set(title, t);
      const slots = slotsIn.get(x) ?? new Map<string, number[]>();
      slotsIn.set(x, slots);
      slots.set(
        title,
        names.map((name) => slotOf(t, name)),
      );
    }
  for (const t of titles.values()) {
    t.order = jsonOrder(t.names);
    t.keys = t.names.map((name) => JSON.stringify(name));
  }
  for (let g = 0; g < groups.length;) {
    const first = groups[g];
    if (!first) break;
    // The groups of one title and platform, one an export at most.
    let end = g + 1;
    while (end < groups.length && groups[end]?.title === first.title && groups[end]?.platform === first.platform) end++;
    const run = groups.slice(g, end);
    g = end;
    const { title, platform } = first;
    const t = titles.get(title) ?? { names: [], slots: new Map(), order: [], keys: [] };
    const heads = run.map(() => 0);
    for (;;) {
      let player: string | undefined;
      for (let r = 0; r < run.length; r++) {
        const key = run[r]?.players[heads[r] ?? 0];
        if (key !== undefined && (player === undefined || key < player)) player = key;
      }
      if (player === undefined) break;
      const d: Delta = { title, platform, player, matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: [] };
      for (let r = 0; r < run.length; r++) {
        const from = run[r];
        const head = heads[r] ?? 0;
        if (!from || from.players[head] !== player) continue;
        heads[r] = head + 1;
        addExported(d, from.x, from.start + head, slotsIn.get(from.x)?.get(title) ?? []);
      }
      apply(
        title,
        platform,
        player,
        (stored) => mergeTotals(stored, d, t),
        () => deltaValues(d, t.names),
      );
    }
  }
}

/** Adds the `i`th delta of an export to `d`, its stat slots at `slotAt` among d's. */
function addExported(d: Delta, x: DeltasExport, i: number, slotAt: readonly number[]): void {
  const { numbers, offsets } = x;
  const start = offsets[i] ?? 0;
  const end = offsets[i + 1] ?? start;
  d.matchesPlayed += numbers[start] ?? 0;
  d.wins += numbers[start + 1] ?? 0;
  d.losses += numbers[start + 2] ?? 0;
  d.timePlayed += numbers[start + 3] ?? 0;
  const sums = d.sums;
  for (let k = 0; start + 4 + 2 * k < end; k++) {
    const at = 2 * (slotAt[k] ?? 0);
    while (sums.length < at + 2) sums.push(0, 0);
    sums[at] = (sums[at] ?? 0) + (numbers[start + 4 + 2 * k] ?? 0);
    sums[at + 1] = (sums[at + 1] ?? 0) + (numbers[start + 5 + 2 * k] ?? 0);
  }
}

/** Adds `value` to the sum at `at` of `sums` and `n` to its count of matches, making room for it. */
function addSum(sums: number[], at: number, value: number, n: number): void {
  while (sums.length < at) sums.push(0, 0);
  if (sums.length === at) sums.push(value, n);
  else {
    sums[at] = (sums[at] ?? 0) + value;
    sums[at + 1] = (sums[at + 1] ?? 0) + n;
  }
}

/** The slot of a stat name among a title's, given the next one if it has none. */
function slotOf(title: { names: string[]; slots: Map<string, number> }, name: string): number {
  let slot = title.slots.get(name);
  if (slot === undefined) {
    slot = title.names.length;
    title.slots.set(name, slot);
    title.names.push(name);
  }
  return slot;
}

const byCodeUnits = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A title's stat names by slot across a drain's exports, the slots in the order stored totals write them (jsonOrder), and the names as JSON. */
interface TitleNames {
  names: string[];
  slots: Map<string, number>;
  order: number[];
  keys: string[];
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * The slots of `names` in the order JSON.stringify writes an object whose keys were set in name
 * order (as stored totals are merged, mergeTotals): names that are array indexes first, by their
 * number, then the others by code units.
 */
function jsonOrder(names: readonly string[]): number[] {
  const index = (name: string) => (ARRAY_INDEX.test(name) && Number(name) < 2 ** 32 - 1 ? Number(name) : undefined);
  return names
    .map((_, slot) => slot)
    .sort((a, b) => {
      const [x, y] = [names[a] ?? '', names[b] ?? ''];
      const [i, j] = [index(x), index(y)];
      if (i !== undefined || j !== undefined) return i === undefined ? 1 : j === undefined ? -1 : i - j;
      return byCodeUnits(x, y);
    });
}

/** A number as JSON.stringify writes it. */
const jsonNumber = (x: number): string => (Number.isFinite(x) ? String(x) : 'null');

/**
 * Stored totals plus a delta, as JSON with sorted keys; null when no match is left. A player with
 * nothing stored yet (every player of a fresh import) takes the delta's sums as they are, written
 * straight as text, the same bytes as JSON.stringify (of an object made for it, that took about
 * 1.9 µs a player, half a million in a million-match load, on the writer's thread after its last
 * batch).
 */
function mergeTotals(stored: string | undefined, d: Delta, title: TitleNames): string | null {
  const { names, order, keys } = title;
  const t: StoredTotals = stored ? (JSON.parse(stored) as StoredTotals) : { matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: {} };
  const matchesPlayed = t.matchesPlayed + d.matchesPlayed;
  if (matchesPlayed <= 0) return null;
  if (stored === undefined) {
    let json = `{"matchesPlayed":${jsonNumber(matchesPlayed)},"wins":${jsonNumber(d.wins)},"losses":${jsonNumber(d.losses)},"timePlayed":${jsonNumber(d.timePlayed)},"sums":{`;
    let comma = '';
    for (const slot of order) {
      const n = d.sums[2 * slot + 1] ?? 0;
      const key = keys[slot];
      if (n <= 0 || key === undefined) continue;
      json += `${comma}${key}:[${jsonNumber(d.sums[2 * slot] ?? 0)},${jsonNumber(n)}]`;
      comma = ',';
    }
    return `${json}}}`;
  }
  const sums = new Map(Object.entries(t.sums));
  for (let slot = 0; 2 * slot < d.sums.length; slot++) {
    const value = d.sums[2 * slot] ?? 0;
    const n = d.sums[2 * slot + 1] ?? 0;
    const key = names[slot];
    // A slot this player never had a stat of (a zero count, nothing added).
    if (key === undefined || (n === 0 && value === 0)) continue;
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
    sums: Object.fromEntries([...sums].sort(([a], [b]) => byCodeUnits(a, b))),
  };
  return JSON.stringify(out);
}

/** A delta merged into nothing, as storedValues reads it back: without parsing the JSON that merging writes. */
function deltaValues(d: Delta, names: readonly string[]): Record<string, number> {
  const sums = new Map<string, number>();
  for (let slot = 0; 2 * slot < d.sums.length; slot++) {
    const key = names[slot];
    // A stat none of the player's matches had (mergeTotals leaves it out too). A sum of -0 (a stat
    // given as -0) is 0, as it is once written as JSON and read back.
    if (key !== undefined && (d.sums[2 * slot + 1] ?? 0) > 0) sums.set(key, (d.sums[2 * slot] ?? 0) + 0);
  }
  return totalsToValues({ matchesPlayed: d.matchesPlayed, wins: d.wins, losses: d.losses, timePlayed: d.timePlayed, sums });
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
