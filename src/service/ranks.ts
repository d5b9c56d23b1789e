// Rank material: for each title and stat, every player's value in sorted runs of equal values,
// cut into chunks of at most RANK_CHUNK distinct values. A chunk knows how many values lie below
// it, so a player's place is one indexed read of the chunk holding their value and a binary search
// in it: no population is loaded or rebuilt when the service starts. The import rebuilds the
// chunks of the titles it touched.

/** Distinct values a chunk holds at most. */
export const RANK_CHUNK = 512;

export interface RankChunk {
  key: string;
  /** The chunk's smallest value: its position among the chunks. */
  lo: number;
  /** How many players' values lie below this chunk. */
  below: number;
  /** How many players have a value for this stat. */
  population: number;
  /** The chunk's distinct values, ascending, then for each how many players have at most it within the chunk. */
  data: Buffer;
}

/** Adds one player's values to the lists of every stat's values that buildRankChunks takes. */
export function addValues(byKey: Map<string, number[]>, values: Record<string, number>): void {
  for (const key in values) {
    let list = byKey.get(key);
    if (!list) byKey.set(key, (list = []));
    list.push(values[key] ?? 0);
  }
}

/**
 * A stat's values sorted ascending, in a typed array (which sorts natively, several times faster
 * than an array with a comparator). NaN and the infinities are left out: no stat or ratio of a
 * checked dataset is one, but a NaN (a K/D of sums that overflowed) equals nothing, and the runs of
 * buildRankChunks waited for it to equal itself, forever.
 */
export function sortedValues(list: ArrayLike<number>): Float64Array {
  const all = Float64Array.from(list);
  let finite = 0;
  for (const v of all) if (Number.isFinite(v)) all[finite++] = v;
  return all.subarray(0, finite).sort();
}

/** By title, each stat's values sorted (sortedValues): what the ranks are built of, and what an import's workers hand over. */
export type RankValues = Map<string, Map<string, Float64Array>>;

/** Each stat's values sorted. */
export const sortedLists = (byKey: Map<string, number[]>): Map<string, Float64Array> => new Map([...byKey].map(([key, list]) => [key, sortedValues(list)]));

/** The values of several parts of the players, as one. */
export function mergeRankValues(parts: readonly RankValues[]): RankValues {
  const all: RankValues = new Map();
  for (const part of parts)
    for (const [title, byKey] of part) {
      let into = all.get(title);
      if (!into) all.set(title, (into = new Map<string, Float64Array>()));
      for (const [key, values] of byKey) {
        const had = into.get(key);
        into.set(key, had ? mergeSorted(had, values) : values);
      }
    }
  return all;
}

/** Two sorted lists of values as one. */
export function mergeSorted(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = (a[i] as number) <= (b[j] as number) ? (a[i++] as number) : (b[j++] as number);
  out.set(a.subarray(i), k);
  out.set(b.subarray(j), k + a.length - i);
  return out;
}

/** Chunks of every stat's values, each list sorted (sortedValues). */
export function buildRankChunks(byKey: Map<string, Float64Array>): RankChunk[] {
  const chunks: RankChunk[] = [];
  for (const [key, values] of byKey) {
    const population = values.length;
    let i = 0;
    while (i < population) {
      const lo = values[i] ?? 0;
      const below = i;
      const distinct: number[] = [];
      const cums: number[] = [];
      while (i < population && distinct.length < RANK_CHUNK) {
        const v = values[i] ?? 0;
        while (i < population && values[i] === v) i++;
        distinct.push(v);
        cums.push(i - below);
      }
      const data = new Float64Array(distinct.length * 2);
      data.set(distinct, 0);
      data.set(cums, distinct.length);
      chunks.push({ key, lo, below, population, data: Buffer.from(data.buffer) });
    }
  }
  return chunks;
}

/** Players below and at-or-below `value` in a stat, from the chunk whose `lo` is the greatest at most `value`. */
export function placeInChunk(chunk: Pick<RankChunk, 'below' | 'population' | 'data'>, value: number): { below: number; atOrBelow: number; population: number } {
  // A copy: the driver's Buffer need not be 8-byte aligned.
  const data = new Float64Array(new Uint8Array(chunk.data).buffer);
  const n = data.length / 2;
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((data[mid] ?? 0) < value) lo = mid + 1;
    else hi = mid;
  }
  // `lo` is the first distinct value >= value.
  const countBefore = lo === 0 ? 0 : (data[n + lo - 1] ?? 0);
  const countThrough = lo < n && data[lo] === value ? (data[n + lo] ?? 0) : countBefore;
  return { below: chunk.below + countBefore, atOrBelow: chunk.below + countThrough, population: chunk.population };
}
