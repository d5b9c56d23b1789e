// What a card shows, as plain data: pure functions from a payload to a card model, with every
// figure chosen by meaning (src/embeds/figures.ts) and every text already fit for the fonts. The
// model is what cards are cached by: the same model draws the same picture.
import { FIGURE_INFO, formatDuration, parseTimeSpan, type Figure, type TitleSlug } from '../catalog/index.js';
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
  tier: string | null;
  /** K/D and win rate (or what the title leads with), drawn large. */
  lead: CardFigure[];
  /** Up to three more, with a bar for their percentile when it is known. */
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

/** A profile's card; undefined when it has no stats to draw. */
export function profileCard(profile: StatsProfile, title: TitleSlug, locale?: string): ProfileCardModel | undefined {
  // A cached lookup hands back the same profile object: its card, per title and language, is made once.
  return madeCards(profile, `${title}|${languageOf(locale)}`, () => makeProfileCard(profile, title, locale));
}

const madeCards = madeOnce<StatsProfile, ProfileCardModel | undefined>();

function makeProfileCard(profile: StatsProfile, title: TitleSlug, locale?: string): ProfileCardModel | undefined {
  const stats = overviewOf(profile.segments)?.stats;
  if (!stats) return undefined;
  const lead = LEAD.flatMap((f) => cardFigure(stats, title, f, locale) ?? []);
  const figures = MORE.flatMap((f) => cardFigure(stats, title, f, locale) ?? []).slice(0, MAX_FIGURES);
  if (lead.length + figures.length === 0) return undefined;
  const main = MAINS.map(([key, label]) => {
    const v = profile.metadata[key];
    return typeof v === 'string' && drawable(v) ? `${say(locale, label)}: ${v}` : null;
  }).find(Boolean);
  const tier = ratingTier(figure(stats, title, 'rating'));
  return {
    kind: 'profile',
    title,
    language: languageOf(locale),
    name: drawable(profile.platformInfo.platformUserHandle),
    subtitle: subtitle(title, profile.platformInfo.platformSlug, main),
    tier: tier ? drawable(tier.name) || null : null,
    lead,
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
  const change = s.stats.rankScoreChange;
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
    ratingChange: change && change.value !== null && change.value !== 0 ? `${change.value > 0 ? '+' : '-'}${drawable(String(Math.abs(change.value)))}` : null,
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
