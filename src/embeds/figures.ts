// Figures by meaning: a reply asks for "win rate", and gets it whatever the answer calls it
// (`winRate`, `wlPercentage`, ...), or derived from the sums the answer has when it sends none.
import { FIGURE_ALIASES, FIGURE_INFO, formatStatValue, parseTimeSpan, percentOnHundred, type Figure, type TitleSlug } from '../catalog/index.js';
import type { Stat, Stats } from '../lookup/schemas.js';

/** A stat that says nothing: no value, and a display value of nothing or a dash (`-`), as answers mark a figure they lack. */
export const saysNothing = (stat: Stat): boolean => stat.value === null && /^[\s\-\u2013\u2014]*$/.test(stat.displayValue);

/** The key of `stats` that carries `figure` for `title`, if the answer has one (a stat that says nothing carries none). */
export function figureKey(stats: Stats, title: TitleSlug, figure: Figure): string | undefined {
  return FIGURE_ALIASES[title][figure].find((key) => Object.hasOwn(stats, key) && !saysNothing(stats[key]!));
}

const valueOf = (stats: Stats, title: TitleSlug, figure: Figure): number | undefined => {
  const key = figureKey(stats, title, figure);
  const value = key === undefined ? undefined : stats[key]?.value;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
};

/** How a figure derives from sums, for answers that send the sums but not the ratio. */
const DERIVED: Partial<Record<Figure, (get: (f: Figure) => number | undefined) => number | undefined>> = {
  kd: (get) => {
    const kills = get('kills');
    const deaths = get('deaths');
    return kills === undefined || deaths === undefined ? undefined : deaths === 0 ? kills : kills / deaths;
  },
  winRate: (get) => {
    const wins = get('wins');
    const losses = get('losses');
    const matches = get('matchesPlayed') ?? (wins !== undefined && losses !== undefined ? wins + losses : undefined);
    return wins === undefined || !matches ? undefined : (wins / matches) * 100;
  },
  killsPerMatch: (get) => per(get('kills'), get('matchesPlayed')),
  damagePerMatch: (get) => per(get('damage'), get('matchesPlayed')),
  headshotRate: (get) => percent(get('headshots'), get('kills')),
  healingPerMatch: (get) => per(get('healing'), get('matchesPlayed')),
  accuracy: (get) => percent(get('shotsHit'), get('shotsFired')),
};

function per(sum: number | undefined, matches: number | undefined): number | undefined {
  return sum === undefined || !matches ? undefined : sum / matches;
}

function percent(part: number | undefined, whole: number | undefined): number | undefined {
  return part === undefined || !whole ? undefined : (part / whole) * 100;
}

/**
 * A time (time played) some answers give as a .NET TimeSpan text (`12.03:04:05`) rather than
 * seconds: with no value, its display value read as seconds.
 */
function inSeconds(stat: Stat | undefined, name: Figure): Stat | undefined {
  if (!stat || stat.value !== null || FIGURE_INFO[name].displayType !== 'TimeSeconds') return stat;
  const seconds = parseTimeSpan(stat.displayValue);
  return seconds === null || seconds < 0
    ? stat
    : { ...stat, value: seconds, displayValue: formatStatValue(seconds, 'TimeSeconds'), displayType: 'TimeSeconds' };
}

/** A percentage sent as a fraction (`0.55` shown `55.0%`) on the scale of a hundred, as the rest are. */
export function inPercent(stat: Stat, displayType: string): Stat {
  if (displayType !== 'NumberPercentage' || stat.value === null) return stat;
  const value = percentOnHundred(stat.value, stat.displayValue);
  return value === stat.value ? stat : { ...stat, value };
}

/**
 * `figure` of a stats map: the stat under the first of its aliases the answer has, else one derived
 * from the sums it has (kills/deaths), marked `metadata.derived`; undefined when neither.
 */
export function figure(stats: Stats, title: TitleSlug, name: Figure): Stat | undefined {
  const key = figureKey(stats, title, name);
  if (key !== undefined) {
    const stat = inSeconds(stats[key], name);
    return stat && inPercent(stat, FIGURE_INFO[name].displayType);
  }
  const value = DERIVED[name]?.((f) => valueOf(stats, title, f));
  if (value === undefined || !Number.isFinite(value)) return undefined;
  const info = FIGURE_INFO[name];
  return {
    rank: null,
    percentile: null,
    displayName: info.label,
    displayCategory: null,
    category: null,
    metadata: { derived: true },
    value,
    displayValue: formatStatValue(value, info.displayType),
    displayType: info.displayType,
  };
}

/** Each of `names` the stats have or can derive, with the key it came from (none when derived). */
export function figures(stats: Stats, title: TitleSlug, names: readonly Figure[]): { figure: Figure; key: string | undefined; stat: Stat }[] {
  return names.flatMap((name) => {
    const stat = figure(stats, title, name);
    return stat ? [{ figure: name, key: figureKey(stats, title, name), stat }] : [];
  });
}

/** A ranked rating's tier, when the answer names one (`metadata.rankName`, `metadata.iconUrl`). */
export function ratingTier(stat: Stat | undefined): { name: string; iconUrl: string | null } | undefined {
  const name = stat?.metadata.rankName ?? stat?.metadata.tierName;
  if (typeof name !== 'string' || name.trim() === '') return undefined;
  const icon = stat?.metadata.iconUrl;
  return { name, iconUrl: typeof icon === 'string' && /^https?:\/\/\S+$/i.test(icon) ? icon : null };
}
