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

/** Chunks of every stat's values. */
export function buildRankChunks(byKey: Map<string, number[]>): RankChunk[] {
  const chunks: RankChunk[] = [];
  for (const [key, list] of byKey) {
    // A typed array sorts numbers natively, several times faster than an array with a comparator
    // (an import sorts one list a stat of each title it touches).
    // NaN and the infinities are left out: no stat or ratio of a checked dataset is one, but a NaN
    // (a K/D of sums that overflowed) equals nothing, and the runs below waited for it to equal
    // itself, forever.
    const all = Float64Array.from(list);
    let finite = 0;
    for (const v of all) if (Number.isFinite(v)) all[finite++] = v;
    const values = all.subarray(0, finite).sort();
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
