// A player's rank and recent form, as the top of a profile shows them: the tier and rating with the
// season's peak, then the last matches as letters (W L W, in the reader's language: not colour
// alone, the newest last), their K/D against the career's, the current streak and the rating won or lost over them.
import type { TitleSlug } from '../catalog/index.js';
import { say, sayCount } from '../locales/index.js';
import type { MatchSummary, SessionList, Stat, Stats } from '../lookup/schemas.js';
import { figure, ratingTier } from './figures.js';
import { formatValue, statValue, unbroken } from './format.js';
import { safeText } from './reply.js';
import { outcomeOf, type Outcome } from './results.js';

/** One recent match: how it went, and its own figures. */
export interface FormMatch {
  outcome: Outcome | null;
  stats: Stats;
}

/** Matches a form line sums up at most. */
export const FORM_MATCHES = 10;

/** A match list's matches, newest first (as it lists them). */
export function formOfMatches(matches: readonly MatchSummary[]): FormMatch[] {
  return matches.map((m) => ({
    outcome: outcomeOf(m.metadata.result),
    stats: (m.segments.find((s) => s.type.toLowerCase() === 'overview') ?? m.segments[0])?.stats ?? {},
  }));
}

/** The matches of a player's sessions, newest first (sessions and their matches come newest first). */
export function formOfSessions(list: SessionList): FormMatch[] {
  return list.items.flatMap((s) => s.matches.map((m) => ({ outcome: outcomeOf(m.metadata.result?.value), stats: m.stats })));
}

/** A result's letter in the reader's language (W, L, D; S, N, U in German). */
export const FORM_LETTERS = { win: 'result.letter.win', loss: 'result.letter.loss', draw: 'result.letter.draw' } as const;

/** A signed whole number in the reader's format: `+42`, `−64`, `±0`. */
export function signed(value: number, locale: string | undefined): string {
  const shown = formatValue(Math.abs(Math.round(value)), 'Number', locale);
  return value >= 0.5 ? `+${shown}` : value <= -0.5 ? `\u2212${shown}` : `±${shown}`;
}

const numberOf = (stat: Stat | undefined): number | undefined => (typeof stat?.value === 'number' && Number.isFinite(stat.value) ? stat.value : undefined);

/**
 * The last matches at a glance, two lines: their results as letters, then their K/D against the
 * career's, the current streak of wins or losses, and the rating they won or lost. Null when no
 * recent match has a result or a figure to show.
 */
export function formLines(recent: readonly FormMatch[], career: Stats, title: TitleSlug, locale: string | undefined): string[] | null {
  const last = recent.slice(0, FORM_MATCHES);
  const told = last.filter((m) => m.outcome !== null);
  let kills = 0;
  let deaths = 0;
  let counted = 0;
  let change = 0;
  let changed = false;
  for (const m of last) {
    const k = numberOf(figure(m.stats, title, 'kills'));
    const d = numberOf(figure(m.stats, title, 'deaths'));
    if (k !== undefined && d !== undefined) {
      kills += k;
      deaths += d;
      counted++;
    }
    const c = numberOf(figure(m.stats, title, 'ratingChange'));
    if (c !== undefined) {
      change += c;
      changed = true;
    }
  }
  if (told.length === 0 && counted === 0) return null;
  // Letters side by side, oldest first as form guides and the sessions' strips write them (`WWLDW`,
  // the newest last): spaced, ten of them broke over two lines on a phone.
  const letters = told
    .map((m) => say(locale, FORM_LETTERS[m.outcome!]))
    .reverse()
    .join('');
  const careerKd = figure(career, title, 'kd');
  const kd =
    counted > 0
      ? unbroken(
          `K/D ${formatValue(deaths === 0 ? kills : kills / deaths, 'NumberPrecision2', locale)}${
            careerKd ? ` (${say(locale, 'form.career', { value: statValue(careerKd, locale, 'kd') })})` : ''
          }`,
        )
      : null;
  // The streak the newest match is part of, from two on.
  const newest = told[0]?.outcome;
  let streak = 0;
  while (streak < told.length && told[streak]!.outcome === newest) streak++;
  const streakText =
    streak >= 2 && (newest === 'win' || newest === 'loss') ? unbroken(sayCount(locale, newest === 'win' ? 'form.winStreak' : 'form.lossStreak', streak)) : null;
  const rating = changed ? unbroken(`${say(locale, 'figure.rating')} ${signed(change, locale)}`) : null;
  const head = [`**${say(locale, 'form.last', { n: last.length })}**${letters ? ` \`${letters}\`` : ''}`, rating].filter(Boolean).join(' · ');
  const facts = [kd, streakText].filter(Boolean).join(' · ');
  return facts ? [head, facts] : [head];
}

/**
 * The rank at the top of a profile or overview: the tier as the answer names it and the rating
 * (`Diamond 1 · 11,902`), then the season's peak where the answer has one above it. Null when the
 * answer has no rating with a tier.
 */
export function rankLines(stats: Stats, title: TitleSlug, locale: string | undefined): { heading: string; peak: string | null } | null {
  const rating = figure(stats, title, 'rating');
  const tier = ratingTier(rating);
  if (!rating || !tier) return null;
  const value = numberOf(rating) === undefined ? null : statValue(rating, locale, 'rating');
  const heading = [safeText(tier.name), value].filter(Boolean).join(' · ');
  const peak = figure(stats, title, 'peakRating');
  const peakTier = ratingTier(peak);
  const peakValue = numberOf(peak);
  const shownPeak =
    peak && peakValue !== undefined && peakValue > (numberOf(rating) ?? -Infinity)
      ? say(locale, 'profile.peak', { tier: safeText(peakTier?.name ?? ''), value: statValue(peak, locale, 'peakRating') }).replace(/\*\*\*\*\s*·?\s*/, '')
      : null;
  return { heading, peak: shownPeak };
}
