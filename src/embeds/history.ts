// A player's history: one snapshot of their career a day (the bot keeps them for linked players,
// src/bot/stores.ts), and what changed over a day, a week, a month or the season.
import type { TitleSlug } from '../catalog/index.js';
import { say, sayCount, type TextKey } from '../locales/index.js';
import type { Stats } from '../lookup/schemas.js';
import { figure, ratingTier } from './figures.js';
import { formatValue, unbroken } from './format.js';
import { signed } from './form.js';
import { safeText } from './reply.js';

/** A career as it stood on one day (UTC): the few figures a period's change is told from. */
export interface DaySnapshot {
  /** `2026-11-20`. */
  day: string;
  matches?: number | undefined;
  wins?: number | undefined;
  kills?: number | undefined;
  deaths?: number | undefined;
  kd?: number | undefined;
  winRate?: number | undefined;
  rating?: number | undefined;
  tier?: string | undefined;
  /** The season the profile named (title_a's `currentSeason`), for the `season` period. */
  season?: number | undefined;
}

/** Days a player's history keeps. */
export const HISTORY_DAYS = 90;

export const PERIODS = ['day', 'week', 'month', 'season'] as const;
export type Period = (typeof PERIODS)[number];
const PERIOD_DAYS: Record<Exclude<Period, 'season'>, number> = { day: 1, week: 7, month: 30 };

const DAY_MS = 86_400_000;
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);
/** A kept day as Discord writes a date for each reader (`11/24/2026`, `24.11.2026`). */
const dateOf = (day: string): string => `<t:${Math.floor(Date.parse(day) / 1000)}:d>`;

const numberOf = (stats: Stats, title: TitleSlug, name: Parameters<typeof figure>[2]): number | undefined => {
  const v = figure(stats, title, name)?.value;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** Today's snapshot of a career overview. */
export function daySnapshotOf(stats: Stats, title: TitleSlug, at: Date, season?: unknown): DaySnapshot {
  const tier = ratingTier(figure(stats, title, 'rating'))?.name;
  return {
    day: dayOf(at),
    matches: numberOf(stats, title, 'matchesPlayed'),
    wins: numberOf(stats, title, 'wins'),
    kills: numberOf(stats, title, 'kills'),
    deaths: numberOf(stats, title, 'deaths'),
    kd: numberOf(stats, title, 'kd'),
    winRate: numberOf(stats, title, 'winRate'),
    rating: numberOf(stats, title, 'rating'),
    ...(tier ? { tier } : {}),
    ...(typeof season === 'number' && Number.isInteger(season) ? { season } : {}),
  };
}

/**
 * A history with `today` in it (replacing an earlier one of the same day: the day's latest look
 * stands for it), oldest first, without days older than HISTORY_DAYS before it.
 */
export function withDay(days: readonly DaySnapshot[], today: DaySnapshot): DaySnapshot[] {
  const oldest = dayOf(new Date(Date.parse(today.day) - HISTORY_DAYS * DAY_MS));
  return [...days.filter((d) => d.day !== today.day && d.day >= oldest && d.day < today.day), today].sort((a, b) => a.day.localeCompare(b.day));
}

/**
 * The snapshot a period is measured from: the newest at least the period's days before today,
 * else (a history younger than the period) the oldest before today. `season`: the oldest of the
 * current season where snapshots name one, else the oldest kept.
 */
export function baseOf(days: readonly DaySnapshot[], period: Period, today: DaySnapshot): DaySnapshot | undefined {
  const before = days.filter((d) => d.day < today.day);
  if (period === 'season') return (today.season === undefined ? before : before.filter((d) => d.season === today.season))[0];
  const cut = dayOf(new Date(Date.parse(today.day) - PERIOD_DAYS[period] * DAY_MS));
  return before.filter((d) => d.day <= cut).at(-1) ?? before[0];
}

const HEADINGS: Record<Period, TextKey> = { day: 'history.day', week: 'history.week', month: 'history.month', season: 'history.season' };

/** `1.42 → **1.48**`, or the one value when it did not move. */
export function thenAndNow(before: number | undefined, now: number | undefined, write: (v: number) => string): string | null {
  if (now === undefined) return null;
  if (before === undefined || write(before) === write(now)) return `**${write(now)}**`;
  return `${write(before)} → **${write(now)}**`;
}

/**
 * What changed over a period: the matches, wins and kills played in it, K/D and win rate then and
 * now with the period's own K/D against the career's, and the rating with its tiers. A history
 * with nothing before today says when there will be.
 */
export function periodLines(days: readonly DaySnapshot[], today: DaySnapshot, period: Period, locale: string | undefined): string[] {
  const base = baseOf(days, period, today);
  if (!base) return [say(locale, 'history.none')];
  const since = unbroken(say(locale, 'history.since', { date: dateOf(base.day) }));
  const heading = `**${say(locale, HEADINGS[period])}** · ${since}`;
  const delta = (k: 'matches' | 'wins' | 'kills' | 'deaths') => (today[k] !== undefined && base[k] !== undefined ? Math.max(0, today[k] - base[k]) : undefined);
  const played = delta('matches');
  if (played === 0) return [heading, say(locale, 'history.nothingNew')];
  const n = (v: number) => formatValue(v, 'Number', locale);
  const counts = [
    played !== undefined ? sayCount(locale, 'since.matches', played, {}, n(played)) : null,
    delta('wins') !== undefined ? sayCount(locale, 'since.wins', delta('wins')!, {}, n(delta('wins')!)) : null,
    delta('kills') !== undefined ? `+${n(delta('kills')!)} ${say(locale, 'figure.kills')}` : null,
  ].filter(Boolean);
  const kills = delta('kills');
  const deaths = delta('deaths');
  const kdOver = kills !== undefined && deaths !== undefined && kills + deaths > 0 ? (deaths === 0 ? kills : kills / deaths) : undefined;
  const kdWrite = (v: number) => formatValue(v, 'NumberPrecision2', locale);
  const kd = thenAndNow(base.kd, today.kd, kdWrite);
  const winRate = thenAndNow(base.winRate, today.winRate, (v) => formatValue(v, 'NumberPercentage', locale));
  const tierThen = base.tier ? safeText(base.tier) : undefined;
  const tierNow = today.tier ? safeText(today.tier) : undefined;
  const rating =
    today.rating !== undefined
      ? `${say(locale, 'figure.rating')} ${tierThen && tierNow && tierThen !== tierNow ? `${tierThen} → **${tierNow}**` : `**${tierNow ?? n(today.rating)}**`}${
          base.rating !== undefined ? `\u00a0(${signed(today.rating - base.rating, locale)})` : ''
        }`
      : null;
  return [
    heading,
    counts.join(' · '),
    // A line each: "then → now" twice on one line wraps on a phone.
    kd ? `K/D ${kd}${kdOver !== undefined ? ` · ${unbroken(say(locale, 'history.over', { value: kdWrite(kdOver) }))}` : ''}` : null,
    winRate ? `${say(locale, 'figure.winRate')} ${winRate}` : null,
    rating,
  ].filter((l): l is string => !!l);
}

/**
 * The last week at a glance for a title with no match list (title_c, title_d): matches and wins
 * played in it and its K/D against the career's. Null without a snapshot from before today.
 */
export function weekLines(days: readonly DaySnapshot[], today: DaySnapshot, locale: string | undefined): string[] | null {
  const base = baseOf(days, 'week', today);
  if (!base || today.matches === undefined || base.matches === undefined) return null;
  const played = Math.max(0, today.matches - base.matches);
  const n = (v: number) => formatValue(v, 'Number', locale);
  const wins = today.wins !== undefined && base.wins !== undefined ? Math.max(0, today.wins - base.wins) : undefined;
  const kills = today.kills !== undefined && base.kills !== undefined ? today.kills - base.kills : undefined;
  const deaths = today.deaths !== undefined && base.deaths !== undefined ? today.deaths - base.deaths : undefined;
  const kd = kills !== undefined && deaths !== undefined && kills + deaths > 0 ? (deaths === 0 ? kills : kills / deaths) : undefined;
  const head = `**${say(locale, 'history.since', { date: dateOf(base.day) })}** · ${sayCount(locale, 'since.matches', played, {}, n(played))}${
    wins !== undefined && played > 0 ? ` · ${sayCount(locale, 'since.wins', wins, {}, n(wins))}` : ''
  }`;
  return kd !== undefined && played > 0
    ? [
        head,
        `K/D ${formatValue(kd, 'NumberPrecision2', locale)}${
          today.kd !== undefined ? ` (${say(locale, 'form.career', { value: formatValue(today.kd, 'NumberPrecision2', locale) })})` : ''
        }`,
      ]
    : [head];
}
