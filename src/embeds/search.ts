import type { TitleSlug } from '../catalog/index.js';
import { say } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { SearchResult } from '../lookup/schemas.js';
import { openSelect, pageControls, rows } from './controls.js';
import { TITLE_COLORS, code, dataTime, describe, footerOf, platformName, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

export const RESULTS_PER_PAGE = 10;

export interface SearchContext {
  title: TitleSlug;
  platform: string;
  query: string;
  meta: LookupMeta;
  page: number;
  stateId: string;
  locale?: string | undefined;
}

/** Search results, with a menu that opens a player's profile. */
export function searchReply(results: SearchResult[], ctx: SearchContext): Reply {
  const pageCount = Math.max(1, Math.ceil(results.length / RESULTS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = results.slice(page * RESULTS_PER_PAGE, (page + 1) * RESULTS_PER_PAGE);
  const lines = shown.map((r, i) => `${page * RESULTS_PER_PAGE + i + 1}. **${safeText(r.platformUserHandle)}**${r.platformUserHandle !== r.platformUserIdentifier ? ` · ${code(r.platformUserIdentifier)}` : ''}`);
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: say(ctx.locale, 'search.author', { title: titleName(ctx.title), platform: platformName(ctx.platform) }) },
      title: `“${safeText(ctx.query)}”`,
      description: describe(ctx.meta, ctx.locale, lines.length > 0 ? lines.join('\n') : say(ctx.locale, 'search.none')),
      footer: footerOf(ctx.title, ctx.platform, say(ctx.locale, 'search.found', { n: results.length })),
      timestamp: dataTime(ctx.meta),
    },
    rows(
      openSelect(
        ctx.stateId,
        say(ctx.locale, 'search.open'),
        shown.map((r) => ({ label: r.platformUserHandle, value: r.platformUserIdentifier, description: platformName(r.platformSlug) })),
      ),
      pageControls(ctx.stateId, page, pageCount, ctx.locale),
    ),
    false,
    ctx.meta.source,
  );
}
