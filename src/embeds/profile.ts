import { FIGURE_ALIASES, PROFILE_FIGURES, PROFILE_TOTALS, type Figure, type TitleSlug } from '../catalog/index.js';
import { languageOf, say, type TextKey } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import { overviewOf, type Stats, type StatsProfile } from '../lookup/schemas.js';
import { goButtons, rows } from './controls.js';
import { figure, figures, ratingTier, saysNothing } from './figures.js';
import { formLines, rankLines, type FormMatch } from './form.js';
import { periodLines, weekLines, type DaySnapshot, type Period } from './history.js';
import { TITLE_COLORS, answerTime, bulleted, capitalised, dataTime, describe, figureLabel, footerOf, place, statValue, titleName, unbroken } from './format.js';
import { madeOnce } from './once.js';
import { namedStat } from './named.js';
import { embedReply, safeText, type Reply } from './reply.js';

/** Where a reply can go next: buttons to the player's other views (the command decides which exist). */
export interface Onward {
  stateId: string;
  targets: readonly { to: string; label: string }[];
}

export interface ProfileOptions {
  locale?: string | undefined;
  onward?: Onward | undefined;
  /** "Since your last look" lines, for a linked player's own profile (`sinceLines`). */
  since?: readonly string[] | undefined;
  /** The player's last matches, newest first, for the form lines under the rank. */
  recent?: readonly FormMatch[] | undefined;
  /**
   * The player's kept days (none where the store failed) and today's snapshot: what changed over
   * `period`, and the last week at a glance for a title without a match list.
   */
  /**
   * The player's kept days before today and today's look; `keeping`: today's is kept (the form of a
   * title without a match list starts from it tomorrow).
   */
  history?: { days: readonly DaySnapshot[] | undefined; today: DaySnapshot; period?: Period | undefined; keeping?: boolean | undefined } | undefined;
}

const MAX_FIGURES = 6;
const MAX_TOTALS = 4;
/** Career sums on the line under the headline: a phone's line or two. */
const TOTALS_SHOWN = 3;
const CHARACTER_KEYS = ['mainHero', 'activeLegendName', 'favoriteMap'] as const;
const CHARACTER_LABELS: Record<(typeof CHARACTER_KEYS)[number], TextKey> = {
  mainHero: 'profile.mainHero',
  activeLegendName: 'profile.legend',
  favoriteMap: 'profile.favoriteMap',
};

/**
 * The totals of an overview that has no rate to work out (title_b's often has only `level`, `kills`,
 * `damage`): those known by meaning first, then the answer's own under its own names, each figure
 * known by meaning but not a total (a rating, matches) left to its own line.
 */
function totals(stats: Stats, title: TitleSlug, locale: string | undefined): string[] {
  // Whole, as the totals line writes them: a career's sum is read to the unit.
  const known = figures(stats, title, PROFILE_TOTALS).map(({ figure: f, stat }) => `${figureLabel(f, locale)} **${statValue(stat, locale, f)}**`);
  const named = new Set(Object.values(FIGURE_ALIASES[title]).flat());
  const others = Object.entries(stats)
    .filter(([key, stat]) => !named.has(key) && !saysNothing(stat))
    .map(([, stat]) => namedStat(stat, locale, true, false));
  return [...known, ...others].slice(0, MAX_TOTALS);
}

/** An overview's figures as a profile shows them (careerLines). */
export interface CareerLines {
  /** K/D and win rate, chosen by meaning: short enough for one line of a phone in a heading; '' when the answer has neither. */
  headline: string;
  /** Their places, where the answer gives them. */
  placeLine: string | null;
  /** Matches and time played; '' when neither. */
  played: string;
  /** The career's sums the answer has (kills, wins, damage, ...), in the reader's number format; '' when none, or when `more` holds them. */
  totals: string;
  /** The title's own figures the answer has or can derive, each with its place; with no rate to work out, the totals it has. */
  more: string[];
}

/** The figures of an overview (a profile's, or the overview segment's), `leaveOut` aside. */
export function careerLines(stats: Stats, title: TitleSlug, locale: string | undefined, leaveOut: readonly Figure[] = []): CareerLines {
  const kd = figure(stats, title, 'kd');
  const winRate = figure(stats, title, 'winRate');
  // Each figure held to its label, the bullet to the first: on a phone "Siegquote" was left at a line's end, its value under it.
  const headline = bulleted([
    kd ? `K/D\u00a0${statValue(kd, locale, 'kd')}` : null,
    winRate ? unbroken(say(locale, 'profile.win', { value: statValue(winRate, locale, 'winRate') })) : null,
  ]);
  const headlinePlaces = [kd ? place(kd, 'kd', locale) : null, winRate ? place(winRate, 'winRate', locale) : null];
  // Each place held together, the bullet to the first ("K/D top 31% ·" over "Siegquote top 28%" on a
  // phone, not "Siegquote" alone), and the line's first letter a capital ("Win rate top 35%").
  const placeLine =
    headlinePlaces.some(Boolean) && kd && winRate
      ? capitalised(
          bulleted([
            headlinePlaces[0] ? `K/D\u00a0${headlinePlaces[0]}` : null,
            headlinePlaces[1] ? unbroken(say(locale, 'profile.winRatePlace', { place: headlinePlaces[1] })) : null,
          ]),
        )
      : (headlinePlaces.find(Boolean) ?? null);
  const matches = figure(stats, title, 'matchesPlayed');
  const time = figure(stats, title, 'timePlayed');
  const played = [
    matches ? say(locale, 'profile.matches', { n: statValue(matches, locale, 'matchesPlayed') }) : null,
    time ? say(locale, 'profile.played', { time: statValue(time, locale, 'timePlayed') }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const sums = figures(
    stats,
    title,
    PROFILE_TOTALS.filter((f) => !leaveOut.includes(f)),
  ).slice(0, TOTALS_SHOWN);
  const summed = new Set(sums.map(({ figure: f }) => f));
  const rest = figures(
    stats,
    title,
    // A sum on the totals line is not repeated among the figures (title_b's wins).
    PROFILE_FIGURES[title].filter((f) => !leaveOut.includes(f) && !summed.has(f)),
  )
    .slice(0, MAX_FIGURES)
    .map(({ figure: f, stat }) => {
      const where = place(stat, f, locale);
      return `${figureLabel(f, locale)} **${statValue(stat, locale, f, true)}**${where ? ` · ${where}` : ''}`;
    });
  // No rate to work out: the totals the answer has are all there is to show, rather than "no stats".
  if (!headline && rest.length === 0) return { headline, placeLine, played, totals: '', more: totals(stats, title, locale) };
  // Each sum held to its label (the line breaks between them on a phone), whole, in the reader's
  // format (`2,351,118`, `2.351.118`): a career's sum is read to the unit.
  const sumLine = sums.map(({ figure: f, stat }) => unbroken(`${figureLabel(f, locale)} **${statValue(stat, locale, f)}**`)).join(' · ');
  return { headline, placeLine, played, totals: sumLine, more: rest };
}

/**
 * A player's career at a glance: the headline (K/D and win rate, chosen by meaning) first, then
 * matches, time played, main hero or legend, rating tier and when they last played; then the few
 * figures that suit the title, each with its place only where the place is worth saying.
 */
export function profileReply(profile: StatsProfile, title: TitleSlug, meta: LookupMeta, options: ProfileOptions = {}): Reply {
  const components = rows(options.onward ? goButtons(options.onward.stateId, options.onward.targets) : null);
  const { history, locale } = options;
  const form = options.recent
    ? formLines(options.recent, overviewOf(profile.segments)?.stats ?? {}, title, locale)
    : history?.days && !history.period
      ? (weekLines(history.days, history.today, locale) ?? (history.keeping ? [say(locale, 'history.formSoon')] : null))
      : null;
  const since = history?.period
    ? history.days
      ? periodLines(history.days, history.today, history.period, locale)
      : [`-# ⚠️ ${say(locale, 'store.historyUnreadable')}`]
    : options.since;
  // With no "since" lines the embed depends on the profile object, the title, the data's age and
  // source, the language and the form lines only: a cached lookup hands back the same object, so it is written once.
  if (since && since.length > 0) return { ...profileEmbed(profile, title, meta, locale, since, form), components };
  const key = `${title}|${languageOf(options.locale)}|${meta.source}|${meta.fetchedAt}|${meta.staleBecause?.kind ?? ''}|${form?.join('\n') ?? ''}`;
  return { ...writtenOnce(profile, key, () => profileEmbed(profile, title, meta, options.locale, undefined, form)), components };
}

/** Profile replies without their buttons, by profile object, then title, language, source and age. */
const writtenOnce = madeOnce<StatsProfile, Reply>();

function profileEmbed(
  profile: StatsProfile,
  title: TitleSlug,
  meta: LookupMeta,
  locale: string | undefined,
  since: readonly string[] | undefined,
  form: readonly string[] | null,
): Reply {
  const handle = safeText(profile.platformInfo.platformUserHandle);
  const stats = overviewOf(profile.segments)?.stats ?? {};
  const characterKey = CHARACTER_KEYS.find((k) => typeof profile.metadata[k] === 'string' && profile.metadata[k] !== '');
  const character = characterKey ? `${say(locale, CHARACTER_LABELS[characterKey])} **${safeText(String(profile.metadata[characterKey]))}**` : null;
  const rank = rankLines(stats, title, locale);
  const lastPlayedAt = answerTime(profile.metadata.lastPlayed);
  const lastPlayed = lastPlayedAt ? say(locale, 'profile.lastPlayed', { when: lastPlayedAt }) : null;

  // A rating already named with its tier is not repeated among the figures.
  const { headline, placeLine, played, totals: sums, more } = careerLines(stats, title, locale, rank ? ['rating', 'peakRating'] : ['peakRating']);
  const above = [headline, played, sums, character, rank, lastPlayed].some(Boolean);
  // Said only when the overview has nothing to show (a legend named, or when they last played, is not a stat).
  const empty = !headline && !played && !sums && !rank && more.length === 0;
  const avatar = profile.platformInfo.avatarUrl;
  // A real answer's rank emblem (`iconUrl` beside its `rankName`), small at the side; ours have none.
  const emblem = rank ? ratingTier(figure(stats, title, 'rating'))?.iconUrl : null;
  return embedReply(
    {
      color: TITLE_COLORS[title],
      // One avatar, small, beside the game's name: the description keeps the full width on a phone.
      author: { name: say(locale, 'profile.author', { title: titleName(title) }), ...(avatar ? { icon_url: avatar } : {}) },
      ...(emblem ? { thumbnail: { url: emblem } } : {}),
      title: handle,
      description: describe(
        meta,
        locale,
        // Rank first where the answer has one, then the last matches, then the career.
        rank ? `### ${rank.heading}` : headline ? `### ${headline}` : null,
        rank?.peak ?? null,
        ...(form ?? []),
        rank && headline ? `**${headline}**` : null,
        placeLine,
        played,
        sums,
        character,
        lastPlayed,
        more.length > 0 ? `${above ? '\n' : ''}${more.join('\n')}` : null,
        empty ? say(locale, 'profile.noStats') : null,
        since && since.length > 0 ? `\n${since.join('\n')}` : null,
      ),
      footer: footerOf(title, profile.platformInfo.platformSlug),
      timestamp: dataTime(meta),
    },
    [],
    false,
    meta.source,
  );
}
