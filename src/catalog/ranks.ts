// Ranked play: each title's rating, the stat keys it travels under and the ladder of tiers it climbs.
// The service names tiers from here; the bot reads the tier an answer names (`rankName`, `tierName`)
// and colours its emblem by the tier's first word, so that a real answer's "Diamond 1" is drawn as
// ours is.
import type { TitleSlug } from './catalog.js';

export interface Tier {
  /** The tier's name without a division: `Diamond`. */
  readonly name: string;
  /** The lowest rating of the tier. */
  readonly from: number;
}

export interface Ladder {
  /** The rating's stat key, as real answers of the title name it (title_b: `rankScore`). */
  readonly key: string;
  /** The rating won or lost in a match or session (`rankScoreChange` in real title_b sessions). */
  readonly changeKey: string;
  /** The highest rating of the current season. */
  readonly peakKey: string;
  /** Where the stat's metadata names the tier: `rankName` as real title_b answers do, `tierName` as others do. */
  readonly tierField: 'rankName' | 'tierName';
  /** Divisions of every tier but the last, the best first (`Diamond 1` above `Diamond 4`); 0 when the title has none. */
  readonly divisions: number;
  /** Lowest first. */
  readonly tiers: readonly Tier[];
  /** A typical match's change, for generated data. */
  readonly step: number;
}

const tiers = (...list: [string, number][]): Tier[] => list.map(([name, from]) => ({ name, from }));

export const LADDERS: Readonly<Record<TitleSlug, Ladder>> = {
  title_a: {
    key: 'rating',
    changeKey: 'ratingChange',
    peakKey: 'peakRating',
    tierField: 'tierName',
    divisions: 3,
    tiers: tiers(['Bronze', 0], ['Silver', 900], ['Gold', 1500], ['Platinum', 2100], ['Diamond', 2700], ['Master', 3300]),
    step: 28,
  },
  title_b: {
    key: 'rankScore',
    changeKey: 'rankScoreChange',
    peakKey: 'peakRankScore',
    tierField: 'rankName',
    divisions: 4,
    tiers: tiers(['Rookie', 0], ['Bronze', 1000], ['Silver', 3000], ['Gold', 5400], ['Platinum', 8200], ['Diamond', 11400], ['Master', 15000]),
    step: 90,
  },
  title_c: {
    key: 'rating',
    changeKey: 'ratingChange',
    peakKey: 'peakRating',
    tierField: 'tierName',
    divisions: 5,
    tiers: tiers(['Bronze', 0], ['Silver', 1500], ['Gold', 2000], ['Platinum', 2500], ['Diamond', 3000], ['Master', 3500], ['Grandmaster', 4000]),
    step: 24,
  },
  title_d: {
    key: 'rating',
    changeKey: 'ratingChange',
    peakKey: 'peakRating',
    tierField: 'tierName',
    divisions: 0,
    tiers: tiers(['Iron', 0], ['Bronze', 5000], ['Silver', 10000], ['Gold', 15000], ['Platinum', 20000], ['Elite', 25000]),
    step: 320,
  },
};

/** Every title's rating and peak keys: values that are not summed over matches but read from the newest (or best) one. */
export const RATING_KEYS: ReadonlySet<string> = new Set(Object.values(LADDERS).flatMap((l) => [l.key, l.peakKey]));

/** The tier of a rating on a title's ladder, with its division where the title has them: `Diamond 1`. */
export function tierOf(title: TitleSlug, rating: number): { name: string; tier: string; division: number | null } {
  const ladder = LADDERS[title];
  const list = ladder.tiers;
  let i = 0;
  while (i + 1 < list.length && rating >= list[i + 1]!.from) i++;
  const tier = list[i]!;
  const next = list[i + 1];
  if (ladder.divisions === 0 || !next) return { name: tier.name, tier: tier.name, division: null };
  const span = (next.from - tier.from) / ladder.divisions;
  const division = ladder.divisions - Math.min(ladder.divisions - 1, Math.floor((rating - tier.from) / span));
  return { name: `${tier.name} ${division}`, tier: tier.name, division };
}

/**
 * An emblem's colours by the tier's first word, as any answer names it (`Diamond 1`, `Gold III`,
 * `Grandmaster`): the fill and a darker edge. Unknown tiers get a neutral grey.
 */
const TIER_COLOURS: Readonly<Record<string, readonly [fill: string, edge: string]>> = {
  iron: ['#8b8b8b', '#4d4d4d'],
  rookie: ['#a38b72', '#5e4a37'],
  bronze: ['#c9804a', '#7a4522'],
  silver: ['#c7d0d9', '#6f7c88'],
  gold: ['#f2c14e', '#9a6f12'],
  platinum: ['#5fd4c6', '#1f7f76'],
  diamond: ['#6aa8ff', '#2a55b8'],
  master: ['#b56cff', '#6a2bb0'],
  grandmaster: ['#ff8a5c', '#b03d1c'],
  elite: ['#ff5c7a', '#a61d3a'],
  predator: ['#e0303a', '#7a0f16'],
  champion: ['#ffd36b', '#b07a12'],
};
const NEUTRAL: readonly [string, string] = ['#9aa3ad', '#555d66'];

export function tierColours(tierName: string): readonly [fill: string, edge: string] {
  const word = tierName.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  return Object.hasOwn(TIER_COLOURS, word) ? TIER_COLOURS[word]! : NEUTRAL;
}
