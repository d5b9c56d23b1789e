// `npm run bench`: the service's lookups for a player with 10,000 matches. "cold" builds every
// aggregate from the store (a fresh memo each time); "warm" is a repeat lookup until the next import.
import { bench, describe } from 'vitest';

import { Memo, matches, profile, search, segments, sessions, type LookupContext } from '../src/service/lookups.js';
import { heavyStore } from './heavy-player.js';

const { store, importMs } = await heavyStore();
process.stderr.write(`imported 20,000 heavy matches in ${Math.round(importMs)} ms (${Math.round(20_000 / (importMs / 1000))} matches/s)\n`);
const ctx: LookupContext = { store, now: () => Date.now() };
const warm = new Memo();

describe('player with 10,000 matches (title_a)', () => {
  bench('profile, cold', async () => {
    await profile(ctx, new Memo(), 'title_a', 'pc_store_a', 'heavy_a', true);
  });
  bench('profile, warm', async () => {
    await profile(ctx, warm, 'title_a', 'pc_store_a', 'heavy_a', true);
  });
  bench('segments map, cold', async () => {
    await segments(ctx, new Memo(), 'title_a', 'pc_store_a', 'heavy_a', 'map', {});
  });
  bench('segments weapon, cold', async () => {
    await segments(ctx, new Memo(), 'title_a', 'pc_store_a', 'heavy_a', 'weapon', {});
  });
  bench('segments map queue+season, cold', async () => {
    await segments(ctx, new Memo(), 'title_a', 'pc_store_a', 'heavy_a', 'map', { queue: 'ranked', season: 2 });
  });
  bench('segments map, warm', async () => {
    await segments(ctx, warm, 'title_a', 'pc_store_a', 'heavy_a', 'map', {});
  });
  bench('matches, first page', async () => {
    await matches(ctx, 'title_a', 'pc_store_a', 'heavy_a');
  });
});

describe('player with 10,000 matches (title_b)', () => {
  bench('sessions (2,500 sessions, newest 20 answered), cold', async () => {
    await sessions(ctx, new Memo(), 'title_b', 'pc_store_b', 'heavy_b');
  });
  bench('sessions, warm', async () => {
    await sessions(ctx, warm, 'title_b', 'pc_store_b', 'heavy_b');
  });
});

describe('demo data', () => {
  bench('profile of a demo player, cold', async () => {
    await profile(ctx, new Memo(), 'title_c', 'pc_store_c', 'Nova#2231', true);
  });
  bench('search by handle prefix', async () => {
    await search(ctx, 'title_c', 'pc_store_c', 'no');
  });
});
