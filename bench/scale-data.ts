// A deterministic generator of large datasets in the service's own format, for the scale bench:
// `matches` matches spread evenly over the four titles, 10 players a match drawn by Zipf activity
// (a few very busy players, a long tail of occasional ones), a year of start times. Nothing is
// committed: the same arguments give the same lines on every machine. Three shapes, so that the
// import is measured on data it was not written for:
// - `current`: about 20 matches a player, the roster first;
// - `long-tail`: about 2 matches a player (several hundred thousand players in 100,000 matches),
//   drawn nearly evenly, the roster first, with ids as long as a real platform's and in no order;
// - `corrections`: `current` with one match in fifty sent again later with other numbers (the
//   same id), as a dataset that corrects what it sent.
import { LADDERS, platformsOfTitle, TITLE_SLUGS, type TitleSlug } from '../src/catalog/index.js';
import { random } from '../src/service/demo.js';

export const PLAYERS_PER_MATCH = 10;
/** Zipf exponent of player activity. */
const ZIPF_S = 0.9;
const YEAR_MS = 365 * 86_400_000;
const T0 = Date.parse('2025-11-20T00:00:00Z');

export const SHAPES = ['current', 'long-tail', 'corrections'] as const;
export type Shape = (typeof SHAPES)[number];

/** Players in each title's pool: on average 20 matches each (2 in the long tail). */
export function poolSize(matches: number, shape: Shape = 'current'): number {
  return Math.max(200, Math.ceil(((matches / TITLE_SLUGS.length) * PLAYERS_PER_MATCH) / (shape === 'long-tail' ? 2 : 20)));
}

/** The identifier of the player at activity rank `rank` (0 = busiest) of a title. */
export function scalePlayer(title: TitleSlug, rank: number, shape: Shape = 'current'): { platform: string; id: string } {
  const platforms = platformsOfTitle(title);
  const id =
    shape === 'long-tail' ? `${title.slice(-1)}-765611${String((rank * 2_654_435_761) % 4_294_967_291).padStart(10, '0')}` : `${title.slice(-1)}p${rank}`;
  return { platform: platforms[rank % platforms.length] ?? 'pc_store_a', id };
}

/** Activity ranks the bench looks up: the busiest player, and a typical one (the pool's median). */
export function benchPlayers(matches: number, shape: Shape = 'current'): { heavy: number; typical: number } {
  return { heavy: 0, typical: Math.floor(poolSize(matches, shape) / 8) };
}

function zipfDraw(n: number, rnd: () => number, s = ZIPF_S): () => number {
  const cdf = new Float64Array(n);
  let sum = 0;
  for (let k = 0; k < n; k++) cdf[k] = sum += 1 / (k + 1) ** s;
  return () => {
    const x = rnd() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((cdf[mid] ?? 0) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

const MAPS = ['Foundry', 'Harbor', 'Skyline', 'Dunes', 'Citadel', 'Glacier', 'Monolith', 'Canal'];
const MODES = ['Team Deathmatch', 'Domination', 'Hardpoint'];
const LEGENDS = ['Pathfinder', 'Wraith', 'Bloodhound', 'Gibraltar', 'Lifeline', 'Octane', 'Seer'];
const HEROES = ['Tracer', 'Reinhardt', 'Mercy', 'Genji', 'Ana', 'Winston', 'Kiriko'];
const WEAPONS = ['Carbine', 'SMG', 'Shotgun', 'Sniper', 'Pistol'];

/** The dataset's lines: every title's player records first, then the matches in time order. */
export function* scaleLines(matches: number, seed = 11, shape: Shape = 'current'): Generator<string> {
  const pool = poolSize(matches, shape);
  for (const title of TITLE_SLUGS)
    for (let rank = 0; rank < pool; rank++) {
      const p = scalePlayer(title, rank, shape);
      yield JSON.stringify({
        type: 'player',
        title,
        ...p,
        handle: `Player ${title.slice(-1)}${rank}`,
        ...(p.platform === 'pc_store_a' && rank % 3 === 0 ? { vanity: `v${title.slice(-1)}${rank}` } : {}),
      });
    }
  const rnd = random(seed);
  const draw = zipfDraw(pool, rnd, shape === 'long-tail' ? 0.2 : ZIPF_S);
  /** The last matches, for the corrections to send again. */
  const recent: string[] = [];
  const pick = (list: readonly string[]) => list[Math.floor(rnd() * list.length)] ?? null;
  const int = (n: number) => Math.floor(rnd() * n);
  // Ranked play in every title: every other match (title_a's ranked queue) moves its players'
  // ratings, by a fixed step so that the draws above stay what they were.
  const ratings = new Map<string, number>();
  for (let i = 0; i < matches; i++) {
    const title = TITLE_SLUGS[i % TITLE_SLUGS.length] ?? 'title_a';
    const ladder = LADDERS[title];
    const ranked = title === 'title_a' ? i % 5 === 0 : (i >> 2) % 2 === 0;
    const ranks = new Set<number>();
    while (ranks.size < PLAYERS_PER_MATCH) ranks.add(draw());
    const players = [...ranks].map((rank, j) => {
      const won = j < PLAYERS_PER_MATCH / 2;
      const kills = int(25);
      let rating: Record<string, number> = {};
      if (ranked) {
        const key = `${title}:${rank}`;
        const before = ratings.get(key) ?? ((rank * 7919) % 10) * ladder.step * 10;
        const after = Math.max(0, before + (won ? ladder.step : -Math.round(ladder.step * 0.8)));
        ratings.set(key, after);
        rating = { [ladder.key]: after, [ladder.changeKey]: after - before };
      }
      return {
        ...scalePlayer(title, rank, shape),
        team: won ? 'red' : 'blue',
        result: won ? 'win' : 'loss',
        ...(title === 'title_b' ? { legend: pick(LEGENDS) } : {}),
        ...(title === 'title_c' ? { hero: pick(HEROES) } : {}),
        stats: { kills, deaths: 1 + int(15), assists: int(10), damage: 500 + int(3000), headshots: int(kills + 1), score: 100 * int(40), ...rating },
        ...(title === 'title_a' || title === 'title_d'
          ? { weapons: { [pick(WEAPONS) ?? 'Carbine']: { kills, shotsFired: 100 + int(200), shotsHit: int(100) } } }
          : {}),
      };
    });
    const first = players[0] ?? { platform: 'pc_store_a' };
    const line = JSON.stringify({
      type: 'match',
      title,
      platform: first.platform,
      id: `${title.slice(-1)}-${i}`,
      startedAt: new Date(T0 + Math.floor((i / matches) * YEAR_MS)).toISOString(),
      durationSeconds: 600 + int(1200),
      ...(title === 'title_a' || title === 'title_d' ? { map: pick(MAPS), mode: pick(MODES) } : {}),
      ...(title === 'title_a' ? { playlist: 'Unranked', queue: i % 5 === 0 ? 'ranked' : 'social', season: 1 + Math.floor((i / matches) * 4) } : {}),
      players,
    });
    yield line;
    if (shape !== 'corrections') continue;
    recent[i % 64] = line;
    // One match in fifty sent again, 25 matches later, its kills one higher.
    const again = i % 50 === 49 ? recent[(i - 25) % 64] : undefined;
    if (again) yield again.replace(/"kills":(\d+)/g, (_, k: string) => `"kills":${Number(k) + 1}`);
  }
}
