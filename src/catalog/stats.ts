// Display names and categories of the stat keys. A match record's `stats` is any map of numbers:
// known keys are named here, unknown keys get a readable default.

export const DISPLAY_TYPES = ['Unspecified', 'Number', 'NumberPercentage', 'NumberPrecision2', 'TimeSeconds'] as const;
export type DisplayType = (typeof DISPLAY_TYPES)[number];

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
  return (Object.hasOwn(KNOWN_STATS, key) ? KNOWN_STATS[key] : undefined) ?? { displayName: readableStatName(key), category: 'general', displayType: 'Number', higherIsBetter: true };
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

/** `3725` -> `01:02:05`, the form the real service gives session durations in. */
export function formatClock(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds));
  const pad = (v: number) => String(v).padStart(2, '0');
  return `${pad(Math.floor(s / 3_600))}:${pad(Math.floor((s % 3_600) / 60))}:${pad(s % 60)}`;
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
