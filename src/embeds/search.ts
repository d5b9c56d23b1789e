import type { TitleSlug } from '../catalog/index.js';
import { say, sayCount } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { SearchResult } from '../lookup/schemas.js';
import { openSelect, pageControls, rows } from './controls.js';
import { TITLE_COLORS, code, dataTime, describe, footerOf, formatValue, platformName, titleName, unbroken } from './format.js';
import { LIMITS, embedReply, safeText, type Reply } from './reply.js';
import { clip } from './text.js';

export const RESULTS_PER_PAGE = 10;

export interface SearchContext {
  title: TitleSlug;
  platform: string;
  query: string;
  meta: LookupMeta;
  page: number;
  stateId: string;
  locale?: string | undefined;
  /** Matches each result (by identifier) has played in the title, where known: `no matches` is said in the list. */
  played?: ReadonlyMap<string, number> | undefined;
}

/**
 * What each result is opened by: its identifier; where results share one (a real answer without
 * identifiers reads as the handle) but name different players, their `platformUserId`.
 */
function idsOf(results: readonly SearchResult[]): string[] {
  const players = new Map<string, Set<string | null>>();
  for (const r of results) players.set(r.platformUserIdentifier, (players.get(r.platformUserIdentifier) ?? new Set()).add(r.platformUserId));
  return results.map((r) => ((players.get(r.platformUserIdentifier)?.size ?? 0) > 1 ? r.platformUserId : null) ?? r.platformUserIdentifier);
}

/** Search results, with a menu that opens a player's profile. */
export function searchReply(results: SearchResult[], ctx: SearchContext): Reply {
  const pageCount = Math.max(1, Math.ceil(results.length / RESULTS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = results.slice(page * RESULTS_PER_PAGE, (page + 1) * RESULTS_PER_PAGE);
  const ids = idsOf(shown);
  const playedText = (r: SearchResult): string | null => {
    const n = ctx.played?.get(r.platformUserIdentifier);
    if (n === undefined) return null;
    return n === 0 ? say(ctx.locale, 'search.noMatches') : sayCount(ctx.locale, 'board.matches', n, {}, formatValue(n, 'Number', ctx.locale));
  };
  const lines = shown.map((r, i) => {
    const id = ids[i] ?? r.platformUserIdentifier;
    // The count before the id, held together: at phone width the long id is what goes to the next line.
    const played = playedText(r);
    return `${page * RESULTS_PER_PAGE + i + 1}. **${safeText(r.platformUserHandle)}**${played ? ` · ${unbroken(played)}` : ''}${r.platformUserHandle !== id ? ` · ${code(id)}` : ''}`;
  });
  // One option a player: Discord refuses two options of one value (the whole message with them).
  const seen = new Set<string>();
  const options = shown.flatMap((r, i) => {
    const value = clip(ids[i] ?? r.platformUserIdentifier, LIMITS.choiceValue);
    if (seen.has(value)) return [];
    seen.add(value);
    // A result without a platform is one of the platform searched; its id said where it is not its
    // name (two players called Blaze were two identical options).
    const platform = platformName(r.platformSlug ?? ctx.platform);
    const where = r.platformUserHandle !== value ? `${platform} · ${value}` : platform;
    return [{ label: r.platformUserHandle, value, description: [where, playedText(r)].filter(Boolean).join(' · ') }];
  });
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: say(ctx.locale, 'search.author', { title: titleName(ctx.title), platform: platformName(ctx.platform) }) },
      title: `“${safeText(ctx.query)}”`,
      description: describe(ctx.meta, ctx.locale, lines.length > 0 ? lines.join('\n') : say(ctx.locale, 'search.none')),
      footer: footerOf(ctx.title, ctx.platform, sayCount(ctx.locale, 'search.found', results.length)),
      timestamp: dataTime(ctx.meta),
    },
    rows(openSelect(ctx.stateId, say(ctx.locale, 'search.open'), options), pageControls(ctx.stateId, page, pageCount, ctx.locale)),
    // A search that found no one is a miss like a player not found: told to the searcher alone.
    results.length === 0,
    ctx.meta.source,
  );
}
