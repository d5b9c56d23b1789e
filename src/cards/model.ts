// What a card shows, as plain data: pure functions from a payload to a card model, with every
// figure chosen by meaning (src/embeds/figures.ts) and every text already fit for the fonts. The
// model is what cards are cached by: the same model draws the same picture.
import { FIGURE_INFO, formatDuration, parseTimeSpan, tierColours, type Figure, type TitleSlug } from '../catalog/index.js';
import { FORM_MATCHES, type FormMatch } from '../embeds/form.js';
import type { DaySnapshot } from '../embeds/history.js';
import { compareRows, tallyOf, type Better } from '../embeds/compare.js';
import { figure, ratingTier } from '../embeds/figures.js';
import { madeOnce } from '../embeds/once.js';
import { outcomeOf } from '../embeds/results.js';
import { sessionTally } from '../embeds/sessions.js';
import { figureLabel, formatValue, platformName, statValue, titleName } from '../embeds/format.js';
import { languageOf, say, sayCount, type Language, type TextKey } from '../locales/index.js';
import { overviewOf, type Session, type Stats, type StatsProfile } from '../lookup/schemas.js';
import { drawable } from './fonts.js';

export interface CardFigure {
  label: string;
  value: string;
  /** Share of players at or below (0-100) when the answer says and more is better; drawn as a bar. */
  percentile: number | null;
}

interface CardHead {
  title: TitleSlug;
  /** The player's name as the fonts can draw it; empty when none of it can be (the reply's text has it). */
  name: string;
  /** `Title C · Console A`, and what else the card is about. */
  subtitle: string;
  /** The reader's language: the card's own words are in it (and a card is kept per language). */
  language: Language;
}

export interface ProfileCardModel extends CardHead {
  kind: 'profile';
  /** The rank, drawn as an emblem in the tier's colours: its name, the rating, the peak above it. */
  rank: { tier: string; mark: string; fill: string; edge: string; rating: string | null; peak: string | null } | null;
  /** K/D and win rate (or what the title leads with), drawn large. */
  lead: CardFigure[];
  /** The last matches' results, oldest first. */
  form: MatchResult[];
  /** The rating over the last matches (else their K/D), oldest first, with its label and the first and last value as written. */
  trend: { label: string; values: number[]; from: string; to: string; rise: number } | null;
  /** Up to three more, with a bar for their percentile when it is known; fewer where the form and trend take the room. */
  figures: CardFigure[];
}

export type MatchResult = 'win' | 'loss' | 'other';

export interface SessionCardModel extends CardHead {
  kind: 'session';
  active: boolean;
  /** Oldest first, the newest 12. */
  results: MatchResult[];
  /** Each match's, in the same order; null for a match whose answer has none (drawn as no bar, not a zero). */
  kills: (number | null)[];
  damage: (number | null)[];
  /** The session's figures against the career's, when the career is known. */
  versus: { label: string; session: string; career: string | null; better: boolean | null }[];
  ratingChange: string | null;
}

export interface CompareCardModel extends CardHead {
  kind: 'compare';
  /** The second player's name as the fonts can draw it (`name` is the first's). */
  other: string;
  /** A line a figure, left then right, the better of each pair marked; the counts unmarked. */
  rows: { label: string; left: string; right: string; better: Better }[];
  /** How many figures each is better on. */
  ahead: { left: number; right: number };
}

export type CardModel = ProfileCardModel | SessionCardModel | CompareCardModel;

const LEAD: readonly Figure[] = ['kd', 'winRate'];
const MORE: readonly Figure[] = ['headshotRate', 'accuracy', 'killsPerMatch', 'damagePerMatch', 'rating', 'matchesPlayed', 'timePlayed'];
const MAX_FIGURES = 3;
const MAX_MATCHES = 12;

const MAINS: [key: string, label: TextKey][] = [
  ['mainHero', 'card.main'],
  ['activeLegendName', 'profile.legend'],
  ['favoriteMap', 'segment.map.one'],
];

function cardFigure(stats: Stats, title: TitleSlug, name: Figure, locale: string | undefined): CardFigure | undefined {
  const stat = figure(stats, title, name);
  if (!stat) return undefined;
  const info = FIGURE_INFO[name];
  const known = typeof stat.value === 'number' && Number.isFinite(stat.value);
  // Written for the reader as the reply writes it (`9.928` in German), short past 10,000 (`12.3K`),
  // by what the figure means (damage a match as a whole number); a figure the answer gives only as
  // text is drawn as that text, without a bar.
  const value = known
    ? statValue({ ...stat, value: info.displayType === 'Number' ? Math.round(stat.value as number) : stat.value }, locale, name, true)
    : drawable(stat.displayValue);
  if (!value) return undefined;
  const p = stat.percentile;
  return {
    label: figureLabel(name, locale),
    value,
    percentile: known && info.higherIsBetter && typeof p === 'number' && Number.isFinite(p) ? Math.min(100, Math.max(0, p)) : null,
  };
}

function subtitle(title: TitleSlug, platform: string | null, ...more: (string | null | undefined)[]): string {
  return [titleName(title), platform ? platformName(platform) : null, ...more]
    .filter((s): s is string => !!s)
    .map(drawable)
    .filter(Boolean)
    .join(' · ');
}

/** A profile's card; undefined when it has no stats to draw. `recent`: the last matches, newest first, for the form and the trend. */
export function profileCard(
  profile: StatsProfile,
  title: TitleSlug,
  locale?: string,
  recent?: readonly FormMatch[],
  days?: readonly DaySnapshot[],
): ProfileCardModel | undefined {
  const form = (recent ?? []).slice(0, FORM_MATCHES).reverse();
  // Without recent matches (title_c, title_d), the days kept trace the trend.
  const daily = recent ? [] : (days ?? []).slice(-FORM_MATCHES);
  // A cached lookup hands back the same profile object: its card, per title, language and recent matches or days, is made once.
  const key = `${title}|${languageOf(locale)}|${form.map((m) => `${m.outcome ?? ''}${numberOf(m.stats, title, 'rating') ?? ''}/${numberOf(m.stats, title, 'kd') ?? ''}`).join(',')}|${daily
    .map((d) => `${d.rating ?? ''}/${d.kd ?? ''}`)
    .join(',')}`;
  return madeCards(profile, key, () => makeProfileCard(profile, title, locale, form, daily));
}

const madeCards = madeOnce<StatsProfile, ProfileCardModel | undefined>();

/** A figure's number, sign kept (a rating change), or null. */
const numberOf = (stats: Stats, title: TitleSlug, name: Figure): number | null => {
  const v = figure(stats, title, name)?.value;
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
};

/** `Diamond 1` -> `D1`, `Master` -> `M`: what the emblem holds. */
const markOf = (tier: string): string => {
  const words = tier.trim().split(/\s+/);
  const division = words.length > 1 ? (words.at(-1) ?? '') : '';
  return `${(words[0] ?? '?').charAt(0).toUpperCase()}${/^[0-9IVX]{1,4}$/.test(division) ? division : ''}`;
};

function makeProfileCard(
  profile: StatsProfile,
  title: TitleSlug,
  locale: string | undefined,
  form: readonly FormMatch[],
  daily: readonly DaySnapshot[],
): ProfileCardModel | undefined {
  const stats = overviewOf(profile.segments)?.stats;
  if (!stats) return undefined;
  const lead = LEAD.flatMap((f) => cardFigure(stats, title, f, locale) ?? []);
  const rating = figure(stats, title, 'rating');
  const tier = ratingTier(rating);
  const tierName = tier ? drawable(tier.name) : '';
  const peak = figure(stats, title, 'peakRating');
  const peakValue = numberOf(stats, title, 'peakRating');
  const ratingValue = numberOf(stats, title, 'rating');
  const [fill, edge] = tierColours(tierName);
  const rank = tierName
    ? {
        tier: tierName,
        mark: markOf(tierName),
        fill,
        edge,
        rating: rating && ratingValue !== null ? statValue(rating, locale, 'rating') : null,
        peak:
          peak && peakValue !== null && ratingValue !== null && peakValue > ratingValue
            ? `${figureLabel('peakRating', locale)} ${statValue(peak, locale, 'peakRating')}`
            : null,
      }
    : null;
  const results = form.flatMap((m): MatchResult[] => (m.outcome === null ? [] : [m.outcome === 'draw' ? 'other' : m.outcome]));
  const known = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);
  const ratings = [...form.map((m) => numberOf(m.stats, title, 'rating')), ...daily.map((d) => d.rating)].filter(known);
  const kds = [...form.map((m) => numberOf(m.stats, title, 'kd')), ...daily.map((d) => d.kd)].filter(known);
  const [trendFigure, values]: [Figure, number[]] = ratings.length >= 2 ? ['rating', ratings] : ['kd', kds];
  const written = (v: number) => formatValue(v, FIGURE_INFO[trendFigure].displayType, locale, true);
  const trend =
    values.length >= 2
      ? {
          label: figureLabel(trendFigure, locale),
          values,
          from: written(values[0]!),
          to: written(values.at(-1)!),
          rise: Math.sign(values.at(-1)! - values[0]!),
        }
      : null;
  // The card's height is fixed: the figures (the reply's text has them) give way to what only the card shows.
  const room = rank ? MAX_FIGURES - 1 - (results.length > 0 ? 1 : 0) - (trend ? 2 : 0) : MAX_FIGURES;
  const figures = MORE.filter((f) => !(rank && f === 'rating'))
    .flatMap((f) => cardFigure(stats, title, f, locale) ?? [])
    .slice(0, Math.max(0, room));
  if (lead.length + figures.length === 0 && !rank) return undefined;
  const main = MAINS.map(([key, label]) => {
    const v = profile.metadata[key];
    return typeof v === 'string' && drawable(v) ? `${say(locale, label)}: ${v}` : null;
  }).find(Boolean);
  return {
    kind: 'profile',
    title,
    language: languageOf(locale),
    name: drawable(profile.platformInfo.platformUserHandle),
    subtitle: subtitle(title, profile.platformInfo.platformSlug, main),
    rank,
    lead,
    form: results,
    trend,
    figures,
  };
}

const number = (stats: Stats, title: TitleSlug, name: Figure): number | null => {
  const v = figure(stats, title, name)?.value;
  return typeof v === 'number' && Number.isFinite(v) ? Math.max(0, v) : null;
};

function result(value: string | null | undefined): MatchResult {
  const o = outcomeOf(value);
  return o === 'win' || o === 'loss' ? o : 'other';
}

function sessionLength(s: Session): string | null {
  const seconds = s.metadata.duration ? parseTimeSpan(s.metadata.duration.value) : null;
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  return formatDuration(seconds < 60 ? seconds : Math.round(seconds / 60) * 60).replace(/ 0s$/, '');
}

/**
 * The latest session's card: its results in order, kills and damage per match, and its K/D, win
 * rate and kills per match against the career's (`career`: the profile's overview, when known).
 */
export function sessionCard(
  sessions: readonly Session[],
  title: TitleSlug,
  platform: string,
  player: string,
  career?: StatsProfile,
  locale?: string,
): SessionCardModel | undefined {
  const s = sessions[0];
  if (!s || s.matches.length === 0) return undefined;
  const time = (m: Session['matches'][number]) => Date.parse(m.metadata.startDate?.value ?? m.metadata.endDate?.value ?? '') || 0;
  // The answer lists the newest first: reversed, then ordered by date where every match has one (a
  // match without a date keeps its place, so an undated session still reads oldest to newest).
  const inOrder = [...s.matches].reverse();
  const matches = (inOrder.every((m) => time(m) > 0) ? inOrder.sort((a, b) => time(a) - time(b)) : inOrder).slice(-MAX_MATCHES);
  const careerStats = career ? overviewOf(career.segments)?.stats : undefined;
  // The same tally as the reply's text: the same match count, and per-match figures from it.
  const { count, stats } = sessionTally(s);
  const versus = (['kd', 'winRate', 'killsPerMatch'] as const).flatMap((f) => {
    const mine = figure(stats, title, f);
    if (!mine || mine.value === null) return [];
    const theirs = careerStats ? figure(careerStats, title, f) : undefined;
    const better = theirs && typeof theirs.value === 'number' ? (mine.value === theirs.value ? null : mine.value > theirs.value) : null;
    const shown = (v: number) => formatValue(v, FIGURE_INFO[f].displayType, locale, true);
    return [
      { label: figureLabel(f, locale), session: shown(mine.value), career: theirs && typeof theirs.value === 'number' ? shown(theirs.value) : null, better },
    ];
  });
  const change = figure(s.stats, title, 'ratingChange');
  return {
    kind: 'session',
    title,
    language: languageOf(locale),
    name: drawable(career?.platformInfo.platformUserHandle ?? player),
    // The title and platform are in the reply's text (and the title in the card's colour): room for the session.
    subtitle: [say(locale, 'sessions.latest'), sayCount(locale, 'sessions.matches', count), sessionLength(s)].filter(Boolean).join(' · '),
    active: s.metadata.isActive?.value === true,
    results: matches.map((m) => result(m.metadata.result?.value)),
    kills: matches.map((m) => number(m.stats, title, 'kills')),
    damage: matches.map((m) => number(m.stats, title, 'damage')),
    versus,
    ratingChange:
      change && typeof change.value === 'number' && Math.round(change.value) !== 0
        ? `${change.value > 0 ? '+' : '-'}${formatValue(Math.abs(Math.round(change.value)), 'Number', locale)}`
        : null,
  };
}

/** At most this many figures on a compare card (a phone's screen): the title's own first, as in the reply. */
export const MAX_COMPARE_ROWS = 9;

/**
 * Two careers side by side, the figures and their marks those of the reply's text (the same rows,
 * written for the reader's language); undefined when neither player has a figure to compare.
 */
export function compareCard(title: TitleSlug, left: StatsProfile, right: StatsProfile, locale?: string): CompareCardModel | undefined {
  const rows = compareRows(title, left, right, locale).slice(0, MAX_COMPARE_ROWS);
  if (rows.length === 0) return undefined;
  const [a, b] = [left.platformInfo.platformSlug, right.platformInfo.platformSlug];
  return {
    kind: 'compare',
    title,
    language: languageOf(locale),
    name: drawable(left.platformInfo.platformUserHandle),
    other: drawable(right.platformInfo.platformUserHandle),
    subtitle: a === b ? subtitle(title, a) : `${subtitle(title, a)} ${say(locale, 'compare.vs')} ${drawable(platformName(b))}`,
    rows: rows.map((r) => ({ label: r.label, left: drawable(r.left), right: drawable(r.right), better: r.better })),
    ahead: tallyOf(rows),
  };
}
