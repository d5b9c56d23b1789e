import { parseTimeSpan, type Figure, type TitleSlug } from '../catalog/index.js';
import { say, sayCount } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Session, Stat, Stats } from '../lookup/schemas.js';
import { goButtons, pageControls, rows } from './controls.js';
import { figure } from './figures.js';
import { FORM_LETTERS, signed } from './form.js';
import {
  TITLE_COLORS,
  answerTime,
  bulleted,
  dataTime,
  dateWorthShowing,
  describe,
  duration,
  figureLabel,
  footerOf,
  statValue,
  titleName,
  unbroken,
} from './format.js';
import type { Onward } from './profile.js';
import { embedReply, safeText, type Reply } from './reply.js';
import { outcomeOf } from './results.js';

/** Earlier sessions listed a page, under the latest. */
export const SESSIONS_PER_PAGE = 8;

export interface SessionsContext {
  title: TitleSlug;
  platform: string;
  player: string;
  meta: LookupMeta;
  page: number;
  stateId: string;
  /** The player's career overview, to read a session against; none when it could not be had. */
  career?: Stats | undefined;
  locale?: string | undefined;
  onward?: Onward | undefined;
}

/** How long a session lasted, from its TimeSpan (`00:45:06.6886760`), else from its dates. */
function sessionLength(s: Session, locale: string | undefined): string | null {
  const { duration: span, startDate, endDate } = s.metadata;
  let seconds = span ? parseTimeSpan(span.value) : null;
  const [start, end] = [dateWorthShowing(startDate?.value), dateWorthShowing(endDate?.value)];
  if (seconds === null && start !== null && end !== null) seconds = (end - start) / 1000;
  return seconds === null || !Number.isFinite(seconds) || seconds < 0 ? null : duration(seconds, locale);
}

/**
 * The wins of a session and the matches they are out of, from one source: the session's stats when
 * they give both (a long session lists only its newest matches), else the listed matches; "5 of 3
 * won" from mixing the two would be no answer. `stats`: the session's sums with a match count, so
 * that per-match figures derive from them (the stats' own, else the listed matches').
 */
export function sessionTally(s: Session): { wins: number; count: number; stats: Stats } {
  const [played, won] = [s.stats.matchesPlayed?.value, s.stats.wins?.value];
  const fromStats = typeof played === 'number' && typeof won === 'number';
  const count = fromStats ? played : s.matches.length;
  const wins = fromStats ? won : s.matches.filter((m) => outcomeOf(m.metadata.result?.value) === 'win').length;
  return { wins, count, stats: withCount(s.stats, typeof played === 'number' ? played : s.matches.length) };
}

/** Matches a session's strip shows at most: its newest. */
const STRIP_MATCHES = 20;

/**
 * `WWLW` in a code span, oldest match first, as the profile's form writes them (letters, not colour
 * alone; S and N in German; `·` for a result that is none of the three); a longer session's newest,
 * "…" standing for the older. And the session's tally.
 */
function form(s: Session, locale: string | undefined): { strip: string; wins: number; count: number } {
  const results = [...s.matches].reverse().map((m) => outcomeOf(m.metadata.result?.value));
  if (results.every((o) => o === null)) return { strip: '', ...sessionTally(s) };
  const shown = results
    .slice(-STRIP_MATCHES)
    .map((o) => (o ? say(locale, FORM_LETTERS[o]) : '·'))
    .join('');
  const strip = `\`${results.length > STRIP_MATCHES ? '…' : ''}${shown}\``;
  const { wins, count } = sessionTally(s);
  return { strip, wins, count };
}

/** The session's sums with its match count, so that per-match figures derive from them. */
function withCount(stats: Stats, count: number): Stats {
  if (stats.matchesPlayed || count === 0) return stats;
  const matches: Stat = {
    rank: null,
    percentile: null,
    displayName: 'Matches',
    displayCategory: null,
    category: null,
    metadata: {},
    value: count,
    displayValue: String(count),
    displayType: 'Number',
  };
  return { ...stats, matchesPlayed: matches };
}

/** "+23" / "−8": the rating a session won or lost, when the answer says, in the reader's format. */
function ratingChange(s: Session, ctx: Pick<SessionsContext, 'title' | 'locale'>): string | null {
  const change = figure(s.stats, ctx.title, 'ratingChange');
  if (!change) return null;
  return typeof change.value === 'number' && Number.isFinite(change.value) ? signed(change.value, ctx.locale) : change.displayValue;
}

const RATES: readonly Figure[] = ['kd', 'killsPerMatch', 'damagePerMatch'];
/**
 * "K/D **1.80** (career 1.20)": the session's rates, each beside the career's where known, a line
 * each: side by side they ran to 87 characters (94 in German), and a phone broke a figure from its
 * label. The career's figure is held to its word (no-break spaces), so that a line too long for a
 * phone (`Schaden/Spiel 12.261 (Karriere 10.432)`) moves it whole to the next line.
 */
function rates(s: Session, ctx: Pick<SessionsContext, 'title' | 'career' | 'locale'>): string {
  const { stats } = sessionTally(s);
  return RATES.flatMap((f) => {
    const now = figure(stats, ctx.title, f);
    if (!now) return [];
    const then = ctx.career ? figure(ctx.career, ctx.title, f) : undefined;
    return [
      `${figureLabel(f, ctx.locale)} **${statValue(now, ctx.locale, f, true)}**${then ? ` (${unbroken(say(ctx.locale, 'sessions.career', { value: statValue(then, ctx.locale, f, true) }))})` : ''}`,
    ];
  }).join('\n');
}

const characters = (s: Session) => [
  ...new Set(s.matches.map((m) => m.metadata.character?.displayValue ?? m.metadata.character?.value).filter((c): c is string => !!c)),
];
/** When a session began, as a live time: its start, else its end; none for the "none known" date. */
const startOf = (s: Session) => answerTime(s.metadata.startDate?.value) ?? answerTime(s.metadata.endDate?.value);

/** The latest session, in full: when, how long, its form, its rates against the career. */
export function latest(s: Session, ctx: Pick<SessionsContext, 'title' | 'career' | 'locale'>, heading?: string): string {
  const { strip, wins, count } = form(s, ctx.locale);
  const start = startOf(s);
  const live = s.metadata.isActive?.value === true;
  const length = sessionLength(s, ctx.locale);
  const played = characters(s);
  const change = ratingChange(s, ctx);
  return [
    `### ${heading ?? say(ctx.locale, live ? 'sessions.playingNow' : 'sessions.latest')}`,
    bulleted([
      start && live ? say(ctx.locale, 'sessions.started', { when: start }) : start,
      length,
      count > 0 ? sayCount(ctx.locale, 'sessions.matches', count) : null,
    ]),
    // A session that lists no match and counts none (a compatible service's bare session) says nothing of them.
    count > 0 ? `${strip ? `${strip} ` : ''}**${unbroken(say(ctx.locale, 'sessions.won', { wins, count }))}**` : null,
    rates(s, ctx),
    bulleted([
      played.length > 0 ? say(ctx.locale, 'sessions.played', { list: played.map(safeText).join(', ') }) : null,
      change ? unbroken(say(ctx.locale, 'sessions.rating', { change: `**${change}**` })) : null,
    ]),
  ]
    .filter(Boolean)
    .join('\n');
}

/**
 * An earlier session on one line: when, how many won of how many (`🏆 2/6`), K/D. Each part is held
 * together (`K/D 3,00`), so that a phone never breaks inside one. The count as words ("2 of 6 won",
 * the latest session's wording) took two lines on a phone (400 px) in every language but English,
 * and in English for "a month ago"; the trophy and the fraction read the same in every language
 * and leave room for a longer relative time ("vor einem Monat").
 */
function earlier(s: Session, ctx: SessionsContext): string {
  const { wins, count } = sessionTally(s);
  const start = startOf(s);
  const kd = figure(s.stats, ctx.title, 'kd');
  const change = ratingChange(s, ctx);
  return bulleted([
    start ?? '—',
    count > 0 ? unbroken(say(ctx.locale, 'sessions.wonShort', { wins, count })) : null,
    kd ? unbroken(`K/D ${statValue(kd, ctx.locale, 'kd')}`) : null,
    change ? unbroken(say(ctx.locale, 'sessions.rating', { change })) : null,
  ]);
}

/** Play sessions: the latest leads, read against the career; earlier ones a line each. */
export function sessionsReply(sessions: Session[], ctx: SessionsContext): Reply {
  const [first, ...rest] = sessions;
  const pageCount = Math.max(1, Math.ceil(rest.length / SESSIONS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = rest.slice(page * SESSIONS_PER_PAGE, (page + 1) * SESSIONS_PER_PAGE);
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: say(ctx.locale, 'sessions.author', { title: titleName(ctx.title) }) },
      title: safeText(ctx.player),
      description: describe(ctx.meta, ctx.locale, first ? latest(first, ctx) : say(ctx.locale, 'sessions.none')),
      fields:
        shown.length > 0
          ? [
              {
                name: page === 0 ? say(ctx.locale, 'sessions.earlier') : say(ctx.locale, 'sessions.earlierPage', { page: page + 1, pages: pageCount }),
                value: shown.map((s) => earlier(s, ctx)).join('\n'),
              },
            ]
          : [],
      footer: footerOf(ctx.title, ctx.platform, say(ctx.locale, 'sessions.rule')),
      timestamp: dataTime(ctx.meta),
    },
    rows(pageControls(ctx.stateId, page, pageCount, ctx.locale), ctx.onward ? goButtons(ctx.onward.stateId, ctx.onward.targets) : null),
    false,
    ctx.meta.source,
  );
}
