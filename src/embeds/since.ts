// "Since your last look": what a linked player's own profile kept from the last time they looked
// (a snapshot per user and title), and the lines that say what changed since.
import type { TitleSlug } from '../catalog/index.js';
import type { Stats } from '../lookup/schemas.js';
import { say, sayCount } from '../locales/index.js';
import { figure } from './figures.js';
import { formatValue, relativeTime } from './format.js';
import { thenAndNow } from './history.js';

/** The few figures a look keeps: enough to say what changed, small enough to keep for every user. */
export interface ProfileSnapshot {
  /** When the look was (ISO). */
  at: string;
  platform: string;
  identifier: string;
  matches?: number | undefined;
  wins?: number | undefined;
  kd?: number | undefined;
  winRate?: number | undefined;
}

const numberOf = (stats: Stats, title: TitleSlug, f: Parameters<typeof figure>[2]): number | undefined => {
  const v = figure(stats, title, f)?.value;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/** A snapshot of a career overview, taken `at`. */
export function snapshotOf(stats: Stats, title: TitleSlug, account: { platform: string; identifier: string }, at: Date): ProfileSnapshot {
  return {
    at: at.toISOString(),
    platform: account.platform,
    identifier: account.identifier,
    matches: numberOf(stats, title, 'matchesPlayed'),
    wins: numberOf(stats, title, 'wins'),
    kd: numberOf(stats, title, 'kd'),
    winRate: numberOf(stats, title, 'winRate'),
  };
}

/**
 * The lines under a linked player's own profile: nothing the first time but a promise, then the
 * matches and wins played since the last look and K/D and win rate then and now. A snapshot of
 * another account (the link changed) is not compared.
 */
export function sinceLines(previous: ProfileSnapshot | undefined, current: ProfileSnapshot, locale?: string): string[] {
  if (!previous || previous.platform !== current.platform || previous.identifier.toLowerCase() !== current.identifier.toLowerCase())
    return [say(locale, 'since.first')];
  const when = relativeTime(previous.at);
  const played = current.matches !== undefined && previous.matches !== undefined ? current.matches - previous.matches : undefined;
  if (played === undefined) return [say(locale, 'since.noCount', { when })];
  if (played <= 0) return [say(locale, 'since.nothingNew', { when })];
  const wins = current.wins !== undefined && previous.wins !== undefined ? Math.max(0, current.wins - previous.wins) : undefined;
  const kd = thenAndNow(previous.kd, current.kd, (v) => formatValue(v, 'NumberPrecision2', locale));
  // A look kept before percentages sent as fractions were read on the scale of a hundred (0.548, now 55.0).
  const before =
    previous.winRate !== undefined && previous.winRate <= 1 && current.winRate !== undefined && current.winRate > 1 ? previous.winRate * 100 : previous.winRate;
  const winRate = thenAndNow(before, current.winRate, (v) => formatValue(v, 'NumberPercentage', locale));
  return [
    say(locale, 'since.heading', { when }),
    `${sayCount(locale, 'since.matches', played, {}, formatValue(played, 'Number', locale))}${wins !== undefined ? ` · ${sayCount(locale, 'since.wins', wins, {}, formatValue(wins, 'Number', locale))}` : ''}`,
    // A line each: "then → now" twice on one line wraps on a phone.
    kd ? `K/D ${kd}` : null,
    winRate ? `${say(locale, 'figure.winRate')} ${winRate}` : null,
  ].filter((l): l is string => l !== null);
}
