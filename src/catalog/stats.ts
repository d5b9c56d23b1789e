// Display names and categories of the stat keys. A match record's `stats` is any map of numbers:
// known keys are named here, unknown keys get a readable default.
import type { TitleSlug } from './catalog.js';

export const DISPLAY_TYPES = ['Unspecified', 'Number', 'NumberPercentage', 'NumberPrecision2', 'TimeSeconds'] as const;
export type DisplayType = (typeof DISPLAY_TYPES)[number];
export const isDisplayType = (value: string): value is DisplayType => (DISPLAY_TYPES as readonly string[]).includes(value);

export interface StatInfo {
  readonly displayName: string;
  readonly category: string;
  readonly displayType: DisplayType;
  /** false when less is better (deaths): ranks then count upwards. */
  readonly higherIsBetter: boolean;
}

const n = (displayName: string, category: string, higherIsBetter = true): StatInfo => ({
  displayName,
  category,
  displayType: 'Number',
  higherIsBetter,
});

export const KNOWN_STATS: Readonly<Record<string, StatInfo>> = {
  // Counted from the match records themselves.
  matchesPlayed: n('Matches Played', 'general'),
  wins: n('Wins', 'general'),
  losses: n('Losses', 'general', false),
  timePlayed: { displayName: 'Time Played', category: 'general', displayType: 'TimeSeconds', higherIsBetter: true },
  // Summed from `stats`.
  kills: n('Kills', 'combat'),
  deaths: n('Deaths', 'combat', false),
  assists: n('Assists', 'combat'),
  damage: n('Damage', 'combat'),
  damageTaken: n('Damage Taken', 'combat', false),
  headshots: n('Headshots', 'combat'),
  score: n('Score', 'general'),
  revives: n('Revives', 'support'),
  healing: n('Healing', 'support'),
  eliminations: n('Eliminations', 'combat'),
  objectiveTime: { displayName: 'Objective Time', category: 'objective', displayType: 'TimeSeconds', higherIsBetter: true },
  shotsFired: n('Shots Fired', 'weapons'),
  shotsHit: n('Shots Hit', 'weapons'),
  // Derived from the sums.
  kd: { displayName: 'K/D', category: 'combat', displayType: 'NumberPrecision2', higherIsBetter: true },
  kda: { displayName: 'KDA', category: 'combat', displayType: 'NumberPrecision2', higherIsBetter: true },
  winRate: { displayName: 'Win %', category: 'general', displayType: 'NumberPercentage', higherIsBetter: true },
  killsPerMatch: { displayName: 'Kills / Match', category: 'combat', displayType: 'NumberPrecision2', higherIsBetter: true },
  damagePerMatch: { displayName: 'Damage / Match', category: 'combat', displayType: 'NumberPrecision2', higherIsBetter: true },
  accuracy: { displayName: 'Accuracy', category: 'weapons', displayType: 'NumberPercentage', higherIsBetter: true },
  headshotRate: { displayName: 'Headshot %', category: 'combat', displayType: 'NumberPercentage', higherIsBetter: true },
};

/** `longestKillStreak` -> `Longest Kill Streak`, `time_alive` -> `Time Alive`. */
export function readableStatName(key: string): string {
  const words = key
    .replace(/[_\-.]+/g, ' ')
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  if (words.length === 0) return key;
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

export function statInfo(key: string): StatInfo {
  // Own properties only: a stat named `constructor` or `toString` is a stat, not Object's method.
  return (
    (Object.hasOwn(KNOWN_STATS, key) ? KNOWN_STATS[key] : undefined) ?? {
      displayName: readableStatName(key),
      category: 'general',
      displayType: 'Number',
      higherIsBetter: true,
    }
  );
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const precision2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percent = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

/** `93784` seconds -> `1d 2h 3m`; under an hour keeps the seconds: `3m 4s`. */
export function formatDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3_600);
  const m = Math.floor((s % 3_600) / 60);
  const sec = s % 60;
  if (d > 0) return `${d}d ${h}h ${m}m`;
  if (h > 0) return `${h}h ${m}m`;
  if (m > 0) return `${m}m ${sec}s`;
  return `${sec}s`;
}

/**
 * Seconds as a .NET TimeSpan, the form the real service gives session durations in:
 * `3725` -> `01:02:05`, `93784` -> `1.02:03:04` (days before a dot past a day).
 */
export function formatTimeSpan(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const pad = (v: number) => String(v).padStart(2, '0');
  const days = Math.floor(s / 86_400);
  const clock = `${pad(Math.floor((s % 86_400) / 3_600))}:${pad(Math.floor((s % 3_600) / 60))}:${pad(s % 60)}`;
  return days > 0 ? `${days}.${clock}` : clock;
}

// An ISO date-time without an offset: Date.parse reads it in the process's time zone, so that one
// answer would name other instants on machines set to other zones. Answers' dates are read as UTC.
const WITHOUT_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;

/** Whether a date text is an ISO date-time without an offset. */
export const lacksOffset = (text: string): boolean => WITHOUT_OFFSET.test(text);
/** A date text as UTC: one without an offset given `Z`, any other as it is. */
export const inUtc = (text: string): string => (lacksOffset(text) ? `${text}Z` : text);
/** Epoch milliseconds of an answer's date text (NaN when it is none): what Date.parse reads, UTC when no offset is given. */
export const parseAnswerDate = (text: string): number => Date.parse(inUtc(text));

/** A .NET TimeSpan `[-][d.]HH:MM:SS[.fffffff]` as seconds (`00:45:06.6886760` -> 2706.688676); null when it is not one. */
export function parseTimeSpan(text: string): number | null {
  const m = /^(-)?(?:(\d+)\.)?(\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/.exec(text.trim());
  if (!m) return null;
  const [, sign, days = '0', h = '0', min = '0', sec = '0', fraction = ''] = m;
  const seconds = Number(days) * 86_400 + Number(h) * 3_600 + Number(min) * 60 + Number(sec) + (fraction ? Number(`0.${fraction}`) : 0);
  return sign ? -seconds : seconds;
}

/**
 * A percentage's value on the scale of a hundred. Answers mostly send a percentage as its share of
 * a hundred (`55.0`, shown `55.0%`), but some send the fraction (`0.55`) with the same display
 * value: when the display value reads a hundred times the value, the value is taken as a fraction.
 * Anything else (no number shown, `-`, one that agrees) is left as it came.
 */
export function percentOnHundred(value: number, displayValue: string): number {
  if (!(Math.abs(value) <= 1) || value === 0) return value;
  // `55.0%`, or `55,0 %` where a comma is the decimal mark (one comma, no point).
  const digits = displayValue.replace(/[^0-9.,-]/g, '');
  const shown = Number.parseFloat(/^[^.]*,[^,.]*$/.test(digits) ? digits.replace(',', '.') : digits.replace(/,/g, ''));
  if (!Number.isFinite(shown)) return value;
  const scaled = value * 100;
  // The display value is the scaled one, rounded to at most one place more or less than shown.
  return Math.abs(shown - scaled) <= 0.5 + Math.abs(scaled) * 0.01 && Math.abs(shown - value) > 0.05 ? scaled : value;
}

/** The `displayValue` of a stat: what a reader sees. */
export function formatStatValue(value: number | null, displayType: DisplayType): string {
  if (value === null || !Number.isFinite(value)) return '-';
  switch (displayType) {
    case 'TimeSeconds':
      return formatDuration(value);
    case 'NumberPercentage':
      return `${percent.format(value)}%`;
    case 'NumberPrecision2':
      return precision2.format(value);
    case 'Number':
    case 'Unspecified':
      return Number.isInteger(value) ? integer.format(value) : precision2.format(value);
  }
}

// Figures chosen by meaning. Real answers name the same figure differently from one title (and one
// year) to the next: win rate is `winRate` here and `wlPercentage` there. A reply asks for a figure
// by what it means, and the catalog says which keys may carry it, in order of preference.

export const FIGURES = [
  'kd',
  'winRate',
  'headshotRate',
  'accuracy',
  'killsPerMatch',
  'damagePerMatch',
  'matchesPlayed',
  'timePlayed',
  'rating',
  'peakRating',
  'ratingChange',
  'kills',
  'deaths',
  'wins',
  'losses',
  'damage',
  'headshots',
  'shotsFired',
  'shotsHit',
  'healing',
  'healingPerMatch',
  'score',
] as const;
export type Figure = (typeof FIGURES)[number];

export interface FigureInfo {
  /** Short enough for a field name on a phone. */
  readonly label: string;
  readonly displayType: DisplayType;
  /** Whether a higher value is better; undefined for counts, where more says nothing of skill. */
  readonly higherIsBetter?: boolean;
}

export const FIGURE_INFO: Readonly<Record<Figure, FigureInfo>> = {
  kd: { label: 'K/D', displayType: 'NumberPrecision2', higherIsBetter: true },
  winRate: { label: 'Win rate', displayType: 'NumberPercentage', higherIsBetter: true },
  headshotRate: { label: 'Headshots', displayType: 'NumberPercentage', higherIsBetter: true },
  accuracy: { label: 'Accuracy', displayType: 'NumberPercentage', higherIsBetter: true },
  killsPerMatch: { label: 'Kills/match', displayType: 'NumberPrecision2', higherIsBetter: true },
  damagePerMatch: { label: 'Damage/match', displayType: 'Number', higherIsBetter: true },
  matchesPlayed: { label: 'Matches', displayType: 'Number' },
  timePlayed: { label: 'Time played', displayType: 'TimeSeconds' },
  rating: { label: 'Rating', displayType: 'Number', higherIsBetter: true },
  peakRating: { label: 'Peak', displayType: 'Number', higherIsBetter: true },
  ratingChange: { label: 'Rating change', displayType: 'Number', higherIsBetter: true },
  kills: { label: 'Kills', displayType: 'Number' },
  deaths: { label: 'Deaths', displayType: 'Number' },
  wins: { label: 'Wins', displayType: 'Number' },
  losses: { label: 'Losses', displayType: 'Number' },
  damage: { label: 'Damage', displayType: 'Number' },
  headshots: { label: 'Headshots', displayType: 'Number' },
  shotsFired: { label: 'Shots fired', displayType: 'Number' },
  shotsHit: { label: 'Shots hit', displayType: 'Number' },
  healing: { label: 'Healing', displayType: 'Number' },
  healingPerMatch: { label: 'Healing/match', displayType: 'Number', higherIsBetter: true },
  score: { label: 'Score', displayType: 'Number', higherIsBetter: true },
};

/** The keys each figure goes by in answers seen of any title. */
const COMMON_ALIASES: Readonly<Record<Figure, readonly string[]>> = {
  kd: ['kd', 'kdRatio', 'kDRatio', 'kdr', 'killsDeathsRatio'],
  winRate: ['winRate', 'wlPercentage', 'winPercentage', 'winPct', 'matchesWinPct', 'winRatio'],
  headshotRate: ['headshotRate', 'headshotPct', 'headshotPercentage', 'headshotsPercentage', 'headshotAccuracy'],
  accuracy: ['accuracy', 'shotsAccuracy', 'shotAccuracy', 'weaponAccuracy'],
  killsPerMatch: ['killsPerMatch', 'killsPerGame', 'avgKills'],
  damagePerMatch: ['damagePerMatch', 'damagePerGame', 'avgDamage'],
  matchesPlayed: ['matchesPlayed', 'matches', 'gamesPlayed'],
  timePlayed: ['timePlayed', 'playTime', 'timeplayed'],
  rating: ['rating', 'rankedRating', 'skillRating', 'rankScore'],
  peakRating: ['peakRating', 'peakRankScore', 'rankScorePeak', 'highestRating', 'peakSkillRating'],
  ratingChange: ['ratingChange', 'rankScoreChange', 'rankedRatingChange', 'srChange'],
  kills: ['kills', 'eliminations'],
  deaths: ['deaths'],
  wins: ['wins', 'matchesWon', 'gamesWon'],
  losses: ['losses', 'matchesLost', 'gamesLost'],
  damage: ['damage', 'damageDone', 'damageDealt'],
  headshots: ['headshots'],
  shotsFired: ['shotsFired'],
  shotsHit: ['shotsHit', 'shotsLanded'],
  healing: ['healing', 'healingDone'],
  healingPerMatch: ['healingPerMatch', 'healingPerGame'],
  score: ['score', 'combatScore', 'matchScore'],
};

const withFirst = (figure: Figure, ...first: string[]): Partial<Record<Figure, readonly string[]>> => ({
  [figure]: [...first, ...COMMON_ALIASES[figure].filter((k) => !first.includes(k))],
});

/**
 * Per title, the keys of each figure in order of preference: title_d (as its real answers do) says
 * `wlPercentage`, `headshotPct` and `shotsAccuracy`; title_b's ranked rating is `rankScore`, with its
 * tier in the stat's `metadata`.
 */
export const FIGURE_ALIASES: Readonly<Record<TitleSlug, Readonly<Record<Figure, readonly string[]>>>> = {
  title_a: { ...COMMON_ALIASES },
  title_b: { ...COMMON_ALIASES, ...withFirst('rating', 'rankScore', 'arenaRankScore'), ...withFirst('peakRating', 'peakRankScore') },
  title_c: { ...COMMON_ALIASES, ...withFirst('rating', 'skillRating', 'rating') },
  title_d: {
    ...COMMON_ALIASES,
    ...withFirst('winRate', 'wlPercentage'),
    ...withFirst('headshotRate', 'headshotPct'),
    ...withFirst('accuracy', 'shotsAccuracy'),
  },
};

/** Figures a profile leads with, in order; a reply shows those the answer has (or can derive). */
export const LEAD_FIGURES: readonly Figure[] = [
  'kd',
  'winRate',
  'headshotRate',
  'accuracy',
  'killsPerMatch',
  'damagePerMatch',
  'matchesPlayed',
  'timePlayed',
  'rating',
];

/**
 * The figures that suit each title's profile after its headline (K/D and win rate): what a player of
 * that game compares. A reply shows those the answer has or can derive, up to six.
 */
export const PROFILE_FIGURES: Readonly<Record<TitleSlug, readonly Figure[]>> = {
  title_a: ['killsPerMatch', 'damagePerMatch', 'accuracy', 'headshotRate', 'rating'],
  title_b: ['killsPerMatch', 'damagePerMatch', 'wins', 'headshotRate', 'rating'],
  title_c: ['killsPerMatch', 'damagePerMatch', 'healingPerMatch', 'accuracy', 'rating'],
  title_d: ['headshotRate', 'accuracy', 'killsPerMatch', 'damagePerMatch', 'rating'],
};

/**
 * A career's sums, in the order a profile shows them under its headline (the first few the answer
 * has), and all a profile shows when its answer has no rate to lead with.
 */
export const PROFILE_TOTALS: readonly Figure[] = ['kills', 'wins', 'damage', 'healing', 'headshots', 'deaths', 'losses'];

/**
 * The figure that decides a match of each title, by which a match report orders its players and
 * names the best (MVP): score where the title keeps one, kills in a battle royale and a tactical
 * shooter, damage in a hero shooter (where kills are shared). A report without it orders by kills.
 */
export const DECIDING_FIGURE: Readonly<Record<TitleSlug, Figure>> = {
  title_a: 'score',
  title_b: 'kills',
  title_c: 'damage',
  title_d: 'kills',
};

/** Figures a segment row shows, by what the segment groups: a weapon says nothing of wins. */
export const SEGMENT_FIGURES: Readonly<Record<'weapon' | 'other', readonly Figure[]>> = {
  weapon: ['kills', 'accuracy', 'headshotRate'],
  other: ['matchesPlayed', 'winRate', 'kd'],
};

/**
 * Columns of a segment list none of whose segments has any of SEGMENT_FIGURES' (real title_b legend
 * answers may carry kills and damage only): the totals they have, rather than a table of dashes.
 */
export const SEGMENT_TOTALS: readonly Figure[] = ['kills', 'damage', 'wins'];
