// The built-in demo dataset: a few hundred players across every title and platform with six weeks
// of matches, generated from a fixed seed so that every machine serves the same data. It includes
// `#` handles, vanity names, private players and play sessions.
import { LADDERS, platformsOfTitle, type PlatformSlug, type TitleSlug } from '../catalog/index.js';
import type { DatasetRecord, MatchPlayer, MatchRecord, PlayerRecord } from './dataset.js';

/** The demo's last match ends shortly before this instant. */
export const DEMO_END = Date.parse('2026-11-20T23:00:00Z');
export const DEMO_DAYS = 42;

/** Players every newcomer can look up; the README and the tests name them. */
export const DEMO_PLAYERS = {
  title_a: { platform: 'pc_store_a', id: '76561198000000001', handle: 'Nova', vanity: 'novaplays' },
  title_b: { platform: 'pc_store_b', id: 'Wraithling', handle: 'Wraithling' },
  title_bSegments: { platform: 'pc_store_c', id: 'Nova#2231', handle: 'Nova#2231' },
  title_c: { platform: 'pc_store_c', id: 'Nova#2231', handle: 'Nova#2231' },
  title_cConsole: { platform: 'console_a', id: 'Nova', handle: 'Nova' },
  title_d: { platform: 'pc_store_a', id: '76561198000000001', handle: 'Nova', vanity: 'novaplays' },
  private: { title: 'title_c', platform: 'pc_store_c', id: 'Hidden#0001' },
} as const;

/** mulberry32: small, fast, and the same sequence everywhere. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const NAMES = [
  'Nova',
  'Wraith',
  'Echo',
  'Blaze',
  'Vex',
  'Orion',
  'Kestrel',
  'Juno',
  'Rook',
  'Sable',
  'Talon',
  'Vesper',
  'Zephyr',
  'Cinder',
  'Atlas',
  'Pixel',
  'Quill',
  'Raven',
  'Hex',
  'Ion',
  'Lumen',
  'Mako',
  'Nyx',
  'Onyx',
  'Pike',
  'Rune',
  'Sol',
  'Tempest',
  'Umbra',
  'Volt',
  'Wren',
  'Yuki',
  'Zane',
  'Ember',
  'Frost',
  'Gale',
  'Havoc',
  'Iris',
  'Jinx',
  'Kai',
];
const SUFFIXES = ['', 'TTV', '_x', 'Prime', '99', 'GG', 'Main', '_', 'Jr', 'One'];

interface TitlePlan {
  players: number;
  lobbiesPerDay: number;
  lobbySize: number;
  matchesPerLobby: [number, number];
  durationSeconds: [number, number];
}

const PLAN: Record<TitleSlug, TitlePlan> = {
  title_a: { players: 96, lobbiesPerDay: 5, lobbySize: 8, matchesPerLobby: [2, 6], durationSeconds: [480, 900] },
  title_b: { players: 96, lobbiesPerDay: 6, lobbySize: 6, matchesPerLobby: [2, 7], durationSeconds: [600, 1500] },
  title_c: { players: 80, lobbiesPerDay: 4, lobbySize: 10, matchesPerLobby: [2, 5], durationSeconds: [540, 1080] },
  title_d: { players: 48, lobbiesPerDay: 3, lobbySize: 8, matchesPerLobby: [1, 4], durationSeconds: [1200, 2400] },
};

const A_MAPS = ['Foundry', 'Harbor', 'Skyline', 'Dunes', 'Citadel', 'Glacier', 'Monolith', 'Canal'];
const A_MODES = ['Team Deathmatch', 'Domination', 'Hardpoint', 'Search & Destroy'];
const A_WEAPONS = ['Carbine', 'Battle Rifle', 'SMG', 'Shotgun', 'Marksman Rifle', 'Sniper', 'LMG', 'Pistol', 'Launcher', 'Knife'];
const B_LEGENDS = ['Pathfinder', 'Wraith', 'Bloodhound', 'Gibraltar', 'Lifeline', 'Octane', 'Bangalore', 'Horizon', 'Valkyrie', 'Seer'];
const C_HEROES = ['Tracer', 'Reinhardt', 'Mercy', 'Genji', 'Ana', 'Winston', 'Soldier', 'Kiriko', 'Sojourn', 'Zarya', 'Lucio', 'Ashe'];
const C_MAPS = ['Kings Row', 'Ilios', 'Numbani', 'Oasis', 'Route 66'];
const D_MAPS = ['Dust', 'Mirage', 'Inferno', 'Nuke', 'Overpass', 'Ancient', 'Vertigo'];
const D_WEAPONS = ['Rifle', 'Carbine', 'AWP', 'Deagle', 'SMG', 'Pistol'];

interface DemoPlayer {
  title: TitleSlug;
  platform: PlatformSlug;
  id: string;
  skill: number;
  /** Popular players play more often: the lobby draw is weighted by this. */
  weight: number;
  busyUntil: number;
  favorites: string[];
  /** Ranked rating, moved by each ranked match the player plays. */
  rating: number;
}

export interface DemoOptions {
  /** The instant the last day of matches ends before. */
  end?: number;
  days?: number;
  seed?: number;
}

/** The demo dataset as records, players first. Deterministic for the same options. */
export function* demoRecords(options: DemoOptions = {}): Generator<DatasetRecord> {
  const rnd = random(options.seed ?? 20_261_120);
  const end = options.end ?? DEMO_END;
  const days = options.days ?? DEMO_DAYS;
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  // Ranked play draws from a sequence of its own, so that the rest of the data is what it was before ranks.
  const ranked = random((options.seed ?? 20_261_120) ^ 0x5eed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)] as T;

  for (const title of Object.keys(PLAN) as TitleSlug[]) {
    const plan = PLAN[title];
    const platforms = platformsOfTitle(title);
    const players: DemoPlayer[] = [];
    const records: PlayerRecord[] = [];
    const taken = new Set<string>();

    const addPlayer = (record: PlayerRecord) => {
      records.push(record);
      taken.add(`${record.platform}:${record.id.toLowerCase()}`);
      const favorites = title === 'title_b' ? B_LEGENDS : title === 'title_c' ? C_HEROES : title === 'title_a' ? A_WEAPONS : D_WEAPONS;
      players.push({
        title,
        platform: record.platform,
        id: record.id,
        skill: 0.5 + rnd(),
        weight: 1 + Math.floor(rnd() ** 4 * 12),
        busyUntil: 0,
        favorites: [pick(favorites), pick(favorites), pick(favorites)],
        rating: 0,
      });
    };

    // The named players first, so that the README's examples always exist.
    for (const fixed of Object.values(DEMO_PLAYERS)) {
      const fixedTitle = 'title' in fixed ? fixed.title : undefined;
      const forTitle = fixedTitle === title || (fixedTitle === undefined && Object.entries(DEMO_PLAYERS).some(([k, v]) => v === fixed && k.startsWith(title)));
      if (!forTitle) continue;
      addPlayer({
        type: 'player',
        title,
        platform: fixed.platform,
        id: fixed.id,
        handle: 'handle' in fixed ? fixed.handle : fixed.id,
        avatarUrl: `https://avatars.example.com/${title}/${encodeURIComponent(fixed.id)}.png`,
        vanity: 'vanity' in fixed ? fixed.vanity : null,
        private: 'title' in fixed,
      });
    }

    let serial = 2;
    while (records.length < plan.players) {
      const platform = platforms[records.length % platforms.length] as PlatformSlug;
      const name = `${pick(NAMES)}${pick(SUFFIXES)}`;
      let id: string;
      let handle: string;
      let vanity: string | null = null;
      switch (platform) {
        case 'pc_store_a':
          id = `7656119800000${String(serial++).padStart(4, '0')}`;
          handle = name;
          if (rnd() < 0.5) vanity = `${name.toLowerCase().replace(/[^a-z0-9]/g, '')}${int(1, 999)}`;
          break;
        case 'pc_store_c':
          handle = id = `${name}#${int(1000, 9999)}`;
          break;
        case 'console_b':
          handle = id = `${name.toLowerCase()}_${int(10, 99)}`;
          break;
        case 'pc_store_b':
        case 'console_a':
          handle = id = rnd() < 0.3 ? `${name} ${pick(NAMES)}` : name;
          break;
      }
      if (taken.has(`${platform}:${id.toLowerCase()}`)) continue;
      addPlayer({
        type: 'player',
        title,
        platform,
        id,
        handle,
        avatarUrl: rnd() < 0.8 ? `https://avatars.example.com/${title}/${encodeURIComponent(id)}.png` : null,
        vanity,
        private: rnd() < 0.02,
      });
    }
    yield* records;
    // Ratings start spread over the ladder by skill, the best players near its top tier.
    const ladder = LADDERS[title];
    const top = ladder.tiers.at(-1)?.from ?? 0;
    for (const p of players) p.rating = Math.max(0, Math.round(top * (p.skill - 0.5) * 0.85 + (ranked() - 0.5) * ladder.step * 20));

    // Lobbies: a group of players who are free plays a few matches back to back, a few minutes apart.
    // Each player's matches thus cluster into sessions separated by hours.
    const totalWeight = players.reduce((s, p) => s + p.weight, 0);
    const draw = (): DemoPlayer => {
      let x = rnd() * totalWeight;
      for (const p of players) if ((x -= p.weight) <= 0) return p;
      return players[players.length - 1] as DemoPlayer;
    };
    let matchSerial = 1;
    const dayMs = 86_400_000;
    const firstDay = end - days * dayMs;
    for (let day = 0; day < days; day++) {
      const starts = Array.from({ length: plan.lobbiesPerDay }, () => firstDay + day * dayMs + int(10, 21) * 3_600_000 + int(0, 59) * 60_000).sort(
        (a, b) => a - b,
      );
      for (let lobby = 0; lobby < starts.length; lobby++) {
        let at = starts[lobby] ?? 0;
        const group = new Set<DemoPlayer>();
        for (let tries = 0; group.size < plan.lobbySize && tries < plan.lobbySize * 10; tries++) {
          const p = draw();
          if (p.busyUntil <= at) group.add(p);
        }
        if (group.size < 2) continue;
        const count = int(...plan.matchesPerLobby);
        for (let m = 0; m < count; m++) {
          const duration = int(...plan.durationSeconds);
          if (at + duration * 1000 > end) break;
          yield makeMatch(title, `${title.slice(-1)}-${String(matchSerial++).padStart(5, '0')}`, at, duration, [...group]);
          at += duration * 1000 + int(1, 8) * 60_000;
        }
        for (const p of group) p.busyUntil = at + 30 * 60_000;
      }
    }
  }

  /** A weapon's numbers in a match, added to what it has (a player's favourites may name one weapon twice). */
  function addWeapon(weapons: Record<string, Record<string, number>>, name: string, numbers: Record<string, number>): void {
    const had = weapons[name] ?? {};
    weapons[name] = Object.fromEntries(Object.entries(numbers).map(([key, n]) => [key, n + (had[key] ?? 0)]));
  }

  /**
   * A ranked match's rating change for each player (`stats[ladder.changeKey]`) and their rating after
   * it (`stats[ladder.key]`): won or lost, more for a player better than their rating says.
   */
  function rate(title: TitleSlug, group: DemoPlayer[], players: MatchPlayer[]): void {
    const ladder = LADDERS[title];
    const top = ladder.tiers.at(-1)?.from ?? 0;
    group.forEach((p, i) => {
      const mp = players[i];
      if (!mp) return;
      const deserved = top * (p.skill - 0.5) * 0.85;
      const pull = Math.max(-0.5, Math.min(0.5, (deserved - p.rating) / (ladder.step * 40)));
      const swing = ladder.step * (0.7 + ranked() * 0.6);
      const before = p.rating;
      p.rating = Math.max(0, before + Math.round(mp.result === 'win' ? swing * (1 + pull) : -swing * (1 - pull)));
      mp.stats = { ...mp.stats, [ladder.key]: p.rating, [ladder.changeKey]: p.rating - before };
    });
  }

  function makeMatch(title: TitleSlug, id: string, at: number, duration: number, group: DemoPlayer[]): MatchRecord {
    const minutes = duration / 60;
    const season = 1 + Math.min(3, Math.floor(((at - (end - days * 86_400_000)) / (days * 86_400_000)) * 4));
    const teams = title === 'title_b' ? ['alpha', 'bravo', 'charlie'] : title === 'title_d' ? ['ct', 't'] : ['red', 'blue'];
    const winner = pick(teams);
    const players: MatchPlayer[] = group.map((p, i): MatchPlayer => {
      const team = teams[i % teams.length] as string;
      const won = team === winner;
      const k = (base: number) => Math.max(0, Math.round(base * p.skill * (0.5 + rnd())));
      const base: MatchPlayer = { id: p.id, platform: p.platform, team, result: won ? 'win' : 'loss', stats: {} };
      switch (title) {
        case 'title_a': {
          const kills = k(minutes * 1.4);
          const weapons: Record<string, Record<string, number>> = {};
          const used = p.favorites.slice(0, int(1, 3));
          let left = kills;
          used.forEach((w, i) => {
            // The first weapon most of the kills, a second some of the rest, the last what is left: they add up to the match's.
            const wk = i === used.length - 1 ? left : Math.ceil(left * (i === 0 ? 0.7 : 0.6));
            left -= wk;
            const fired = wk * int(8, 20) + int(10, 60);
            addWeapon(weapons, w, {
              kills: wk,
              shotsFired: fired,
              shotsHit: Math.round(fired * (0.18 + rnd() * 0.2)),
              headshots: Math.round(wk * rnd() * 0.4),
            });
          });
          const headshots = Object.values(weapons).reduce((sum, w) => sum + (w.headshots ?? 0), 0);
          return {
            ...base,
            stats: { kills, deaths: k(minutes * 1.2), assists: k(minutes * 0.5), damage: kills * int(90, 130), headshots, score: kills * 100 + int(0, 900) },
            weapons,
          };
        }
        case 'title_b': {
          const kills = k(2.5);
          return {
            ...base,
            legend: p.favorites[rnd() < 0.7 ? 0 : int(1, 2)] ?? null,
            stats: { kills, damage: kills * int(150, 260) + int(0, 400), revives: int(0, 3), placement: won ? 1 : int(2, 20), deaths: won ? 0 : 1 },
          };
        }
        case 'title_c': {
          const kills = k(minutes * 1.1);
          return {
            ...base,
            hero: p.favorites[rnd() < 0.6 ? 0 : int(1, 2)] ?? null,
            stats: {
              kills,
              deaths: k(minutes * 0.7),
              assists: k(minutes * 0.8),
              damage: kills * int(400, 700),
              healing: rnd() < 0.3 ? int(2000, 12000) : 0,
              objectiveTime: int(30, 240),
            },
          };
        }
        case 'title_d': {
          const kills = k(minutes * 0.7);
          const weapons: Record<string, Record<string, number>> = {};
          p.favorites.slice(0, 2).forEach((w, i) => {
            const fired = int(60, 400);
            addWeapon(weapons, w, {
              kills: i === 0 ? Math.round(kills / 2) : kills - Math.round(kills / 2),
              shotsFired: fired,
              shotsHit: Math.round(fired * (0.15 + rnd() * 0.2)),
            });
          });
          return {
            ...base,
            stats: {
              kills,
              deaths: k(minutes * 0.65),
              assists: k(minutes * 0.2),
              damage: kills * int(80, 110),
              headshots: Math.round(kills * 0.45),
              roundsWon: won ? 13 : int(3, 12),
            },
            weapons,
          };
        }
      }
    });
    // title_a's team with the higher score wins, as in its modes a team's points are its players'
    // (a winner drawn apart from them headed a report "Win · Score 7,578" over "Loss · Score 8,258").
    // The draw above still happens, so that the rest of the demo's sequence stays as it was.
    if (title === 'title_a') {
      const totals = new Map<string, number>();
      for (const p of players) totals.set(p.team ?? '', (totals.get(p.team ?? '') ?? 0) + (p.stats.score ?? 0));
      const best = [...totals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0];
      for (const p of players) p.result = p.team === best ? 'win' : 'loss';
    }
    const record: MatchRecord = {
      type: 'match',
      title,
      platform: group[0]?.platform ?? 'pc_store_a',
      id,
      startedAt: new Date(at).toISOString(),
      durationSeconds: duration,
      players,
    };
    let isRanked: boolean;
    if (title === 'title_a') {
      isRanked = rnd() < 0.4;
      Object.assign(record, {
        map: pick(A_MAPS),
        mode: pick(A_MODES),
        playlist: isRanked ? 'Ranked Arena' : pick(['Unranked', 'Casual']),
        queue: isRanked ? 'ranked' : 'social',
        season,
      });
    } else if (title === 'title_c') {
      isRanked = ranked() < 0.5;
      Object.assign(record, { map: pick(C_MAPS), mode: 'Push', playlist: isRanked ? 'Competitive' : 'Quick Play' });
    } else if (title === 'title_d') {
      isRanked = true;
      Object.assign(record, { map: pick(D_MAPS), mode: 'Competitive' });
    } else {
      isRanked = ranked() < 0.5;
      Object.assign(record, { mode: 'Battle Royale', map: 'World Edge', playlist: isRanked ? 'Ranked Leagues' : 'Trios' });
    }
    if (isRanked) rate(title, group, players);
    return record;
  }
}

/** The demo dataset as JSON Lines, for `importLines` or to write to a file. */
export function* demoLines(options: DemoOptions = {}): Generator<string> {
  for (const record of demoRecords(options)) yield JSON.stringify(record);
}
