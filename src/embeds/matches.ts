import { DECIDING_FIGURE, type Figure, type TitleSlug } from '../catalog/index.js';
import { en, inSentence, say, type TextKey } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { MatchChild, MatchSummary, StatisticalObject, Stats } from '../lookup/schemas.js';
import { goButtons, openSelect, pageControls, rows } from './controls.js';
import { figure } from './figures.js';
import { FORM_LETTERS, signed } from './form.js';
import {
  TITLE_COLORS,
  answerTime,
  bulleted,
  capitalised,
  dataTime,
  describe,
  duration,
  figureLabel,
  footerOf,
  queueName,
  statValue,
  titleName,
  unbroken,
} from './format.js';
import type { Onward } from './profile.js';
import { namedStat } from './named.js';
import { embedReply, safeText, type Reply } from './reply.js';
import { clip } from './text.js';
import { OUTCOME_WORDS, outcomeMark, outcomeOf } from './results.js';

export const MATCHES_PER_PAGE = 10;
/** Characters of a player's name a match report shows: a line a player, their figures after it. */
const REPORT_NAME_SHOWN = 32;

export interface MatchesContext {
  title: TitleSlug;
  platform: string;
  player: string;
  meta: LookupMeta;
  page: number;
  /** Whether another page exists after this one (the service pages with a cursor). */
  hasMore: boolean;
  stateId: string;
  locale?: string | undefined;
  onward?: Onward | undefined;
}

const word = (r: string | null, locale: string | undefined) => {
  if (!r) return null;
  const o = outcomeOf(r);
  return o ? say(locale, OUTCOME_WORDS[o]) : r;
};

const num = (stats: Stats, key: string) => {
  const v = stats[key]?.value;
  return typeof v === 'number' ? v : null;
};

/** "17/4/6" kills, deaths, assists where the answer has them; "#3" for a placement. */
function score(stats: Stats): string | null {
  const [k, d, a] = [num(stats, 'kills'), num(stats, 'deaths'), num(stats, 'assists')];
  const placement = num(stats, 'placement');
  if (k !== null && d !== null) return `${k}/${d}${a !== null ? `/${a}` : ''}`;
  return placement !== null ? `#${placement}` : null;
}

/** A match's own figures: its overview segment's (an answer may list a player's or a round's first), else the first's. */
const matchStats = (m: MatchSummary): Stats => (m.segments.find((s) => s.type.toLowerCase() === 'overview') ?? m.segments[0])?.stats ?? {};

/** How one match reads in a menu or a list of choices: where, and how it went (menus cannot show live times). */
export function matchLabel(m: MatchSummary, title?: TitleSlug, locale?: string, { withScore = true } = {}): { label: string; description: string } {
  const stats = matchStats(m);
  const kd = title ? figure(stats, title, 'kd') : undefined;
  return {
    label: [m.metadata.mapName, m.metadata.modeName].filter(Boolean).join(' · ') || m.attributes.id,
    description:
      [word(m.metadata.result, locale), withScore && score(stats) ? `K/D/A ${score(stats)}` : null, kd ? `K/D ${statValue(kd, locale, 'kd')}` : null]
        .filter(Boolean)
        .join(' · ') || m.attributes.id,
  };
}

/** A page of recent matches, each with its result, score and K/D, and a menu that opens a report. */
export function matchesReply(matches: MatchSummary[], ctx: MatchesContext): Reply {
  const lines = matches.map((m) => {
    const stats = matchStats(m);
    const where = [m.metadata.mapName, m.metadata.modeName]
      .filter(Boolean)
      .map((s) => safeText(String(s)))
      .join(' · ');
    const kd = figure(stats, ctx.title, 'kd');
    // "K/D" held to its number, and each bullet to what it follows: a phone broke "K/D" from "0.87"
    // and began lines with "· K/D".
    const change = figure(stats, ctx.title, 'ratingChange');
    const parts = [
      score(stats),
      kd ? `K/D\u00a0${statValue(kd, ctx.locale, 'kd')}` : null,
      typeof change?.value === 'number' ? `**${signed(change.value, ctx.locale)}**` : null,
      answerTime(m.metadata.timestamp),
    ].filter(Boolean);
    // The result as a letter beside its colour: colour alone is lost on some readers.
    const outcome = outcomeOf(m.metadata.result);
    const letter = outcome ? `\u00a0${say(ctx.locale, FORM_LETTERS[outcome])}` : '';
    return `${outcomeMark(m.metadata.result)}${letter} **${where || say(ctx.locale, 'matches.match')}**${parts.length > 0 ? `\u00a0· ${bulleted(parts)}` : ''}`;
  });
  // Paged by cursor: how many pages follow is not known, only whether one does (`1 / 2+`, then `3 / 3`).
  const pageCount = ctx.page + (ctx.hasMore ? 2 : 1);
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: say(ctx.locale, 'matches.author', { title: titleName(ctx.title) }) },
      title: safeText(ctx.player),
      description: describe(ctx.meta, ctx.locale, lines.length > 0 ? lines.join('\n') : say(ctx.locale, 'matches.none')),
      footer: footerOf(ctx.title, ctx.platform, say(ctx.locale, 'matches.page', { n: ctx.page + 1 })),
      timestamp: dataTime(ctx.meta),
    },
    rows(
      openSelect(
        ctx.stateId,
        say(ctx.locale, 'matches.open'),
        matches.map((m) => ({ ...matchLabel(m, ctx.title, ctx.locale), value: m.attributes.id })),
      ),
      pageControls(ctx.stateId, ctx.page, pageCount, ctx.locale, false, ctx.hasMore),
      ctx.onward ? goButtons(ctx.onward.stateId, ctx.onward.targets) : null,
    ),
    false,
    ctx.meta.source,
  );
}

export interface ReportOptions {
  locale?: string | undefined;
  /** The player looked up, by any of their names (identifier, id, handle), marked in the report. */
  highlight?: readonly (string | null | undefined)[] | undefined;
  onward?: Onward | undefined;
  /** The state id of a kept match view: the report offers a menu that opens each player's profile. */
  playersStateId?: string | undefined;
  /** The platform the report was asked on: a player's, where the answer does not name theirs. */
  platform?: string | undefined;
}

/** The value a report's player menu sends for a player: `<platform>:<identifier>` (see playerPicked). */
const playerValue = (p: MatchChild, platform: string): string | undefined => {
  const id = [p.attributes.platformUserIdentifier, p.attributes.platformUserId].find((v): v is string => typeof v === 'string' && v !== '');
  const on = typeof p.attributes.platformSlug === 'string' && p.attributes.platformSlug ? p.attributes.platformSlug : platform;
  return id ? `${on}:${id}` : undefined;
};

/** What a report's player menu picked: the platform and the player, or undefined for a value it did not make. */
export function playerPicked(value: string): { platform: string; identifier: string } | undefined {
  const cut = value.indexOf(':');
  return cut > 0 && cut < value.length - 1 ? { platform: value.slice(0, cut), identifier: value.slice(cut + 1) } : undefined;
}

/**
 * What orders a report's players: the title's deciding figure (DECIDING_FIGURE) where any player has
 * it, else kills, one figure for them all; null for a player without it.
 */
function decidingOf(title: TitleSlug, players: readonly MatchChild[]): { figure: Figure; of: (p: MatchChild) => number | null } {
  const value = (p: MatchChild, f: Figure) => {
    const v = figure(p.stats, title, f)?.value;
    return typeof v === 'number' && Number.isFinite(v) ? v : null;
  };
  const deciding = players.some((p) => value(p, DECIDING_FIGURE[title]) !== null) ? DECIDING_FIGURE[title] : 'kills';
  return { figure: deciding, of: (p) => value(p, deciding) };
}

/** An id to compare by: a team's `1` and a player's `teamId: "1"` name one team. */
const idText = (id: unknown): string | null => (typeof id === 'string' || typeof id === 'number' ? String(id) : null);
const inTeam = (p: MatchChild, team: MatchChild) => idText(p.attributes.teamId) === idText(team.attributes.id);

/** Whether a team won: its `isWinner` (the schema reads "true" as true), else its result's word ("victory"). */
const won = (team: MatchChild): boolean => team.metadata.isWinner ?? outcomeOf(team.metadata.result) === 'win';

function isHighlighted(p: MatchChild, highlight: ReportOptions['highlight']): boolean {
  const names = new Set((highlight ?? []).filter((h): h is string => !!h).map((h) => h.toLowerCase()));
  const ids = [p.attributes.platformUserIdentifier, p.attributes.platformUserId, p.metadata.name].filter((v): v is string => typeof v === 'string');
  return ids.some((id) => names.has(id.toLowerCase()));
}

/** Up to two of a player's figures that have a value, as the answer names them ("Deaths 3"). */
function otherFigures(stats: Stats, locale: string | undefined): string[] {
  return Object.values(stats)
    .filter((stat) => typeof stat.value === 'number' && Number.isFinite(stat.value) && stat.displayName.trim() !== '')
    .slice(0, 2)
    .map((stat) => namedStat(stat, locale));
}

/**
 * A team's name: its own, else its id when that is a word (`red` -> Red, Rot in German: the colours
 * games name teams by, in the reader's language), else "Team" and its number.
 */
function teamName(team: MatchChild, locale: string | undefined): string {
  const named = team.metadata.name ?? idText(team.attributes.id);
  const colour = `report.team.${(named ?? '').toLowerCase()}`;
  if (named && colour in en) return say(locale, colour as TextKey);
  if (team.metadata.name) return capitalised(team.metadata.name);
  const id = idText(team.attributes.id);
  if (id && !/^\d+$/.test(id)) return capitalised(id);
  return id ? `${say(locale, 'report.team')} ${id}` : say(locale, 'report.team');
}

const wordsOf = (label: string): string[] => label.toLowerCase().split(/\s+/).filter(Boolean);
/** Whether `label` says nothing `before` does not, compared by words in any case. */
const says = (before: string | null, label: string): boolean => !!before && wordsOf(label).every((w) => wordsOf(before).includes(w));
/**
 * Labels without one that an earlier one already says: the ranked queue after a playlist "Ranked"
 * or "Ranked Arena" ("Ranked Arena · Ranked" said it twice).
 */
const distinct = (labels: readonly (string | null)[]): string[] =>
  labels.filter((l, i): l is string => !!l && !labels.slice(0, i).some((before) => says(before, l)));

/**
 * Whether a playlist's name already says the queue, as the service names it (`ranked`) or in English
 * (`Ranked`): playlist names are not translated, so "Ranked Arena · Gewertet" said it twice in German.
 */
const playlistSays = (playlist: string | null, queue: string): boolean => [queue, queueName(queue)].some((q) => says(playlist, q));

function playerLine(p: MatchChild, options: ReportOptions & { title: TitleSlug; mvp: MatchChild | undefined }): string {
  const s = score(p.stats);
  const kd = figure(p.stats, options.title, 'kd');
  const kdText = kd && typeof kd.value === 'number' ? `K/D\u00a0${statValue(kd, options.locale, 'kd')}` : null;
  // Held together ("3.360 Schaden" broke between the number and its word on a phone), the bullet kept with what it follows.
  // The figure that decides the title's matches where it is not kills (title_a's score), else damage.
  const decidingStat = DECIDING_FIGURE[options.title] === 'score' ? figure(p.stats, options.title, 'score') : undefined;
  const damage = decidingStat
    ? unbroken(`${figureLabel('score', options.locale)} ${statValue(decidingStat, options.locale, 'score', true)}`)
    : p.stats.damage
      ? unbroken(say(options.locale, 'report.damage', { value: statValue(p.stats.damage, options.locale, undefined, true) }))
      : null;
  const change = figure(p.stats, options.title, 'ratingChange');
  // Held to the figure before it: on a phone a bare `−30` on a line of its own read as nobody's.
  const rating = typeof change?.value === 'number' ? `\u00a0·\u00a0**${signed(change.value, options.locale)}**` : '';
  const character = [p.metadata.hero, p.metadata.legend].find((c) => typeof c === 'string');
  const name = safeText(clip(p.metadata.name || '?', REPORT_NAME_SHOWN));
  const star = p === options.mvp ? '⭐ ' : '';
  const who = isHighlighted(p, options.highlight) ? `▶ ${star}**${name}**` : `${star}${name}`;
  // Without kills and deaths (or a placement) nor damage, the first two figures the player has;
  // a player with none (one who keeps their stats private) says so rather than standing bare.
  const others = s || p.stats.damage ? [] : otherFigures(p.stats, options.locale);
  const figures =
    s || p.stats.damage
      ? ` — ${[s, kdText, damage].filter(Boolean).join('\u00a0· ')}`
      : others.length > 0
        ? ` — ${others.join(' · ')}`
        : ` — ${say(options.locale, 'report.noStats')}`;
  return `${who}${typeof character === 'string' ? ` (${safeText(character)})` : ''}${figures}${rating}`;
}

/**
 * Both teams and every player of one match: the winners first with their result and their total of
 * the title's deciding figure, the players best first by it (said under the report), the best of
 * the match starred, each with K/D, and the player looked up marked.
 */
export function matchReportReply(report: StatisticalObject, title: TitleSlug, meta: LookupMeta, options: ReportOptions = {}): Reply {
  const teams = report.children.filter((c) => c.type === 'team').sort((a, b) => Number(won(b)) - Number(won(a)));
  const listed = report.children.filter((c) => c.type === 'player');
  const deciding = decidingOf(title, listed);
  const players = listed.sort((a, b) => (deciding.of(b) ?? -Infinity) - (deciding.of(a) ?? -Infinity));
  const [best, second] = players;
  // One star, for a best that stands alone: none where nobody has the figure or two share it.
  const bestValue = best ? deciding.of(best) : null;
  const mvp = best && bestValue !== null && bestValue > 0 && (!second || deciding.of(second) !== bestValue) ? best : undefined;
  const line = (p: MatchChild) => playerLine(p, { ...options, title, mvp });
  const label = figureLabel(deciding.figure, options.locale);
  const m = report.metadata;
  const fields = teams.map((team) => {
    const total = figure(team.stats, title, deciding.figure);
    return {
      name: [
        `${won(team) ? '🏆 ' : ''}${safeText(teamName(team, options.locale))}`,
        word(team.metadata.result, options.locale),
        total && typeof total.value === 'number' ? `${label} ${statValue(total, options.locale, deciding.figure)}` : null,
      ]
        .filter(Boolean)
        .join(' · '),
      value:
        players
          .filter((p) => inTeam(p, team))
          .map(line)
          .join('\n') || '—',
      inline: false,
    };
  });
  const teamless = players.filter((p) => !teams.some((t) => inTeam(p, t)));
  if (teamless.length > 0) fields.push({ name: say(options.locale, 'report.players'), value: teamless.map(line).join('\n'), inline: false });
  // How the players are ordered, and what the star means, said once under them.
  if (mvp) fields.push({ name: '\u200b', value: `-# ${say(options.locale, 'report.order', { figure: inSentence(options.locale, label) })}`, inline: false });
  return embedReply(
    {
      color: TITLE_COLORS[title],
      author: { name: say(options.locale, 'report.author', { title: titleName(title) }) },
      title:
        [m.map.displayValue, m.mode.displayValue]
          .filter(Boolean)
          .map((s) => safeText(String(s)))
          .join(' · ') || say(options.locale, 'report.match', { id: report.attributes.id }),
      description: describe(
        meta,
        options.locale,
        distinct([
          m.playlist.displayValue,
          m.queue && !playlistSays(m.playlist.displayValue, m.queue) ? queueName(m.queue, options.locale) : null,
          m.season !== null ? say(options.locale, 'report.season', { n: m.season }) : null,
        ])
          .map((s) => safeText(s))
          .join(' · '),
        [answerTime(m.timestamp), m.duration === null ? null : duration(m.duration, options.locale)].filter(Boolean).join(' · '),
      ),
      fields,
      footer: footerOf(title, null, say(options.locale, 'report.match', { id: report.attributes.id })),
      timestamp: dataTime(meta),
    },
    rows(
      options.playersStateId
        ? openSelect(
            options.playersStateId,
            say(options.locale, 'report.openPlayer'),
            players.flatMap((p) => {
              const value = playerValue(p, options.platform ?? '');
              // Discord takes a value of 100 characters at most.
              return value && value.length <= 100 ? [{ label: clip(p.metadata.name || '?', 100), value }] : [];
            }),
          )
        : null,
      options.onward ? goButtons(options.onward.stateId, options.onward.targets) : null,
    ),
    false,
    meta.source,
  );
}
