// A store with the demo data plus one title_a and one title_b player with 10,000 matches each:
// the figures the service promises ("an aggregate over 10,000 matches answers in milliseconds").
import type { MatchRecord } from '../src/service/dataset.js';
import { demoLines } from '../src/service/demo.js';
import { importLines } from '../src/service/import.js';
import { StatsStore } from '../src/service/store.js';

export const HEAVY_MATCHES = 10_000;

export function* heavyMatches(title: 'title_a' | 'title_b', id: string, count = HEAVY_MATCHES): Generator<MatchRecord> {
  const platform = title === 'title_a' ? 'pc_store_a' : 'pc_store_b';
  const t0 = Date.parse('2025-06-01T00:00:00Z');
  for (let i = 0; i < count; i++) {
    // Four matches an evening, 20 minutes apart: a session every four matches.
    const start = t0 + Math.floor(i / 4) * 86_400_000 + (i % 4) * 20 * 60_000;
    yield {
      type: 'match',
      title,
      platform,
      id: `heavy-${title}-${i}`,
      startedAt: new Date(start).toISOString(),
      durationSeconds: 900,
      map: `Map ${i % 8}`,
      mode: ['Team Deathmatch', 'Domination', 'Hardpoint'][i % 3] ?? null,
      playlist: i % 5 === 0 ? 'Ranked Arena' : 'Unranked',
      queue: i % 5 === 0 ? 'ranked' : 'social',
      season: 1 + (i % 4),
      players: [
        {
          id,
          platform,
          team: 'red',
          result: i % 3 === 0 ? 'loss' : 'win',
          legend: title === 'title_b' ? ['Wraith', 'Octane', 'Seer'][i % 3] : null,
          stats: { kills: i % 23, deaths: 1 + (i % 7), assists: i % 5, damage: 1000 + (i % 900), headshots: i % 4, score: 100 * (i % 30) },
          weapons:
            title === 'title_a'
              ? { Carbine: { kills: i % 11, shotsFired: 150, shotsHit: 40 }, [`Sidearm ${i % 6}`]: { kills: i % 3, shotsFired: 30, shotsHit: 12 } }
              : undefined,
        },
      ],
    };
  }
}

export async function heavyStore(): Promise<{ store: StatsStore; importMs: number }> {
  const store = new StatsStore();
  await importLines(store, demoLines());
  const started = performance.now();
  await importLines(
    store,
    (function* () {
      for (const m of heavyMatches('title_a', 'heavy_a')) yield JSON.stringify(m);
      for (const m of heavyMatches('title_b', 'heavy_b')) yield JSON.stringify(m);
    })(),
  );
  return { store, importMs: performance.now() - started };
}
