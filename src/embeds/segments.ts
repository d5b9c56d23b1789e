import { TITLES, segmentType, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Segment } from '../lookup/schemas.js';
import { pageControls, rows } from './controls.js';
import { TITLE_COLORS, compactStats, freshness, platformName, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

export const SEGMENTS_PER_PAGE = 8;

export interface SegmentsContext {
  title: TitleSlug;
  platform: string;
  player: string;
  type: string;
  filter: { queue?: string | undefined; season?: number | undefined };
  meta: LookupMeta;
  page: number;
  stateId: string;
}

const SEGMENT_STATS = ['matchesPlayed', 'winRate', 'kills', 'kd', 'damagePerMatch', 'accuracy', 'timePlayed'];

/** One segment type's list (maps, weapons, heroes ...), a page at a time. */
export function segmentsReply(segments: Segment[], ctx: SegmentsContext): Reply {
  const pageCount = Math.max(1, Math.ceil(segments.length / SEGMENTS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = segments.slice(page * SEGMENTS_PER_PAGE, (page + 1) * SEGMENTS_PER_PAGE);
  const typeName = segmentType(ctx.title, ctx.type)?.name ?? ctx.type;
  const filters = [ctx.filter.season !== undefined ? `Season ${ctx.filter.season}` : null, ctx.filter.queue ?? null].filter(Boolean).join(' · ');
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: `${titleName(ctx.title)} · ${typeName}` },
      title: safeText(ctx.player),
      description:
        [platformName(ctx.platform), filters || (TITLES[ctx.title].lifetimeOnlySegmentTypes.includes(ctx.type) ? 'Lifetime' : null)].filter(Boolean).join(' · ') +
        (segments.length === 0 ? `\nNo ${typeName.toLowerCase()} data for this player${filters ? ' with these filters' : ''}.` : ''),
      // Legends and heroes: the one in use is marked.
      fields: shown.map((s) => ({ name: `${safeText(s.metadata.name)}${s.metadata.isActive === true ? ' · in use' : ''}`, value: compactStats(s.stats, SEGMENT_STATS) || '—' })),
      footer: { text: `${freshness(ctx.meta)} · ${segments.length} in all` },
    },
    rows(pageControls(ctx.stateId, page, pageCount)),
    false,
    ctx.meta.source,
  );
}
