// A server's leaderboard: its linked members ranked by one figure, the top ten and the invoker's own
// place, honest about those who could not be ranked.
import type { Figure, TitleSlug } from '../catalog/index.js';
import { commandLine, say, sayCount, type TextKey } from '../locales/index.js';
import type { LookupErrorKind } from '../lookup/errors.js';
import type { Stat } from '../lookup/schemas.js';
import { TITLE_COLORS, code, figureLabel, formatValue, statValue, titleName, unbroken } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';
import { clip } from './text.js';

export const BOARD_SIZE = 10;
/**
 * A name's length on the board: eleven lines of names as long as a link takes (200, twice that once
 * markdown is escaped) passed the description's 4,096 and cut off the invoker's place and who is not ranked.
 */
const NAME_SHOWN = 64;
/** Beside a verified member's handle. */
export const VERIFIED_MARK = '✅';
/** A tier's name on the board (`Diamond 1`, `Grandmaster`): an answer's longer one is cut. */
const TIER_SHOWN = 24;

/** One linked member: their figure when their profile answered, else why not. */
/** Why a member has no place: a lookup's failure, no such figure in their profile, or a link on a platform the title has no profiles on. */
export type BoardMissing = LookupErrorKind | 'no_figure' | 'no_profile' | 'not_verified';
/** `has`: for a profile without the figure, the figures a board can rank by that it has. */
/** A ranked entry's `tier` (the rank its profile names) and `matches` (its career's) are shown beside its figure. */
/** `verified`: the member's account was linked through their Discord connection (`/verify`), marked ✅. */
export type BoardEntry = { userId: string; handle: string; verified?: boolean | undefined } & (
  { stat: Stat; tier?: string | undefined; matches?: number | undefined } | { stat?: undefined; missing: BoardMissing; has?: readonly Figure[] | undefined }
);

export interface BoardContext {
  title: TitleSlug;
  figure: Figure;
  invokerId: string;
  /** Linked members left out because the board looks up only so many at a time. */
  notLookedUp: number;
  /** Members whose link was not read in time (a slow store): counted with those not looked up, not as linked. */
  unread?: number | undefined;
  /** Matches a member needs to be ranked; one whose profile counts fewer is counted as not ranked. */
  minMatches?: number | undefined;
  /** When the oldest answer on the board was fetched (epoch ms). */
  oldestFetch?: number | undefined;
  locale?: string | undefined;
}

const MEDALS = ['🥇', '🥈', '🥉'];

const REASONS: Partial<Record<BoardMissing, TextKey>> = {
  private: 'board.why.private',
  not_found: 'board.why.not_found',
  no_figure: 'board.why.no_figure',
  no_profile: 'board.why.no_profile',
  timeout: 'board.why.timeout',
  rate_limited: 'board.why.rate_limited',
  unavailable: 'board.why.unavailable',
  not_verified: 'board.why.notVerified',
};

/** Entries with the figure, best first (ties by name, so that the order is the same each time; they share a place). */
export function rank(entries: readonly BoardEntry[]): (BoardEntry & { stat: Stat })[] {
  return entries
    .filter((e): e is BoardEntry & { stat: Stat } => e.stat !== undefined && typeof e.stat.value === 'number')
    .sort((a, b) => (b.stat.value ?? 0) - (a.stat.value ?? 0) || a.handle.localeCompare(b.handle));
}

/**
 * `/leaderboard`: a line a member (medals for the first three, the invoker marked ▶), the invoker's
 * own place under the top ten when they are lower, and a line counting who is not ranked and why.
 */
export function leaderboardReply(entries: readonly BoardEntry[], ctx: BoardContext): Reply {
  const { figure: f, locale } = ctx;
  const min = ctx.minMatches ?? 0;
  // A figure of a handful of matches says little: below the minimum, a member is counted, not ranked.
  const few = (e: BoardEntry) => e.stat !== undefined && e.matches !== undefined && e.matches < min;
  const ranked = rank(entries.filter((e) => !few(e)));
  // Equal figures share a place (1, 1, 3): the order among them is only by name.
  const places: number[] = [];
  ranked.forEach((e, i) => places.push(i > 0 && e.stat.value === ranked[i - 1]!.stat.value ? places[i - 1]! : i + 1));
  const line = (e: BoardEntry & { stat: Stat }, i: number) => {
    const mine = e.userId === ctx.invokerId;
    const at = places[i]!;
    const place = MEDALS[at - 1] ?? `\`${String(at).padStart(2)}\``;
    // The value held to its bullet and name's end: a phone left "40,4%" alone on the next line.
    const tier = e.tier ? `\u00a0·\u00a0${unbroken(safeText(clip(e.tier, TIER_SHOWN)))}` : '';
    const matches =
      e.matches !== undefined ? `\u00a0·\u00a0${unbroken(sayCount(locale, 'board.matches', e.matches, {}, formatValue(e.matches, 'Number', locale)))}` : '';
    // The member as a mention (which never pings from an embed), beside the game handle: who is who in the server.
    const check = e.verified ? `\u00a0${VERIFIED_MARK}` : '';
    return `${place} ${mine ? '▶ ' : ''}<@${e.userId}> **${safeText(clip(e.handle, NAME_SHOWN))}**${check}\u00a0·\u00a0${statValue(e.stat, locale, f, true)}${tier}${matches}`;
  };
  const lines = ranked.slice(0, BOARD_SIZE).map(line);
  const mine = ranked.findIndex((e) => e.userId === ctx.invokerId);
  const legend =
    ranked.slice(0, BOARD_SIZE).some((e) => e.verified) || (mine >= BOARD_SIZE && ranked[mine]!.verified)
      ? `-# ${VERIFIED_MARK} ${say(locale, 'board.verified')}`
      : null;
  const own =
    mine >= BOARD_SIZE
      ? `\n${line(ranked[mine]!, mine)}\n${say(locale, 'board.yourPlace', { place: places[mine]!, n: ranked.length })}`
      : mine >= 0
        ? null
        : entries.some((e) => e.userId === ctx.invokerId)
          ? `\n${say(locale, 'board.notRanked')}`
          : `\n${say(locale, 'board.notOnBoard', { link: code(commandLine(locale, `/link title:${ctx.title}`)) })}`;
  const why = new Map<string, number>();
  for (const e of entries) {
    if (e.stat !== undefined && !few(e)) continue;
    const reason = e.stat !== undefined ? say(locale, 'board.why.fewMatches', { n: min }) : say(locale, REASONS[e.missing] ?? 'board.why.other');
    why.set(reason, (why.get(reason) ?? 0) + 1);
  }
  const notLookedUp = ctx.notLookedUp + (ctx.unread ?? 0);
  if (notLookedUp > 0) why.set(say(locale, 'board.why.notLookedUp'), notLookedUp);
  const unranked = why.size > 0 ? `-# ${say(locale, 'board.unranked', { list: [...why].map(([reason, n]) => `${n} ${reason}`).join(' · ') })}` : null;
  // Only a board nobody linked to is empty: linked members nobody could rank are counted below.
  const empty = entries.length === 0 && notLookedUp === 0 ? say(locale, 'board.empty', { link: code(commandLine(locale, '/link')) }) : null;
  // A figure none of the answers has (healing of a title without healers) says so, not "not ranked: see below".
  // Named with the figures those profiles have, the way to a board that ranks them: by the names the
  // stat option's choices show (slugs in code spans broke mid-word on a phone, and nobody types them).
  const without = entries.filter((e) => 'missing' in e && e.missing === 'no_figure');
  const theyHave = [...new Set(without.flatMap((e) => ('has' in e ? (e.has ?? []) : [])))].filter((g) => g !== f);
  const noneHave =
    ranked.length === 0 && without.length > 0
      ? theyHave.length > 0
        ? say(locale, 'board.noneHaveRankBy', {
            title: titleName(ctx.title),
            figure: figureLabel(f, locale),
            list: theyHave.map((g) => figureLabel(g, locale)).join(', '),
          })
        : say(locale, 'board.noneHave', { title: titleName(ctx.title), figure: figureLabel(f, locale) })
      : null;
  return embedReply({
    color: TITLE_COLORS[ctx.title],
    author: { name: say(locale, 'board.author', { title: titleName(ctx.title) }) },
    title: figureLabel(f, locale),
    description: [empty ?? noneHave ?? lines.join('\n'), noneHave || empty ? null : own, unranked, noneHave || empty ? null : legend]
      .filter((l): l is string => !!l)
      .join('\n')
      .replace(/^\n+/, ''),
    footer: { text: say(locale, 'board.footer', { title: titleName(ctx.title), ranked: ranked.length, linked: entries.length + ctx.notLookedUp }) },
    ...(ctx.oldestFetch !== undefined ? { timestamp: new Date(ctx.oldestFetch).toISOString() } : {}),
  });
}
