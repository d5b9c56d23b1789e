import type { TitleSlug } from '../catalog/index.js';
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
      author: { name: `${titleName(ctx.title)} · Search on ${platformName(ctx.platform)}` },
      title: `“${safeText(ctx.query)}”`,
      description: describe(ctx.meta, lines.length > 0 ? lines.join('\n') : 'No players found. Check the spelling, or type the exact id.'),
      footer: footerOf(ctx.title, ctx.platform, `${results.length} found`),
      timestamp: dataTime(ctx.meta),
    },
    rows(
      openSelect(
        ctx.stateId,
        'Open a profile',
        shown.map((r) => ({ label: r.platformUserHandle, value: r.platformUserIdentifier, description: platformName(r.platformSlug) })),
      ),
      pageControls(ctx.stateId, page, pageCount),
    ),
    false,
    ctx.meta.source,
  );
}
