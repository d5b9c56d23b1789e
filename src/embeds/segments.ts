import { FIGURE_INFO, SEGMENT_FIGURES, TITLES, segmentType, type Figure, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Segment } from '../lookup/schemas.js';
import { goButtons, pageControls, rows } from './controls.js';
import { figure } from './figures.js';
import { TITLE_COLORS, compactNumber, dataTime, describe, footerOf, formatValue, titleName } from './format.js';
import type { Onward } from './profile.js';
import { embedReply, safeText, type Reply } from './reply.js';

export const SEGMENTS_PER_PAGE = 10;

export interface SegmentsContext {
  title: TitleSlug;
  platform: string;
  /** The player as a reader knows them: the handle, never a raw id when one is known. */
  player: string;
  type: string;
  filter: { queue?: string | undefined; season?: number | undefined };
  meta: LookupMeta;
  page: number;
  stateId: string;
  locale?: string | undefined;
  onward?: Onward | undefined;
}

/** Column headings, short enough that a row fits a phone (25 characters: a name of 10, three columns of 5). */
const HEADINGS: Partial<Record<Figure, string>> = { matchesPlayed: 'Games', winRate: 'Win%', kd: 'K/D', kills: 'Kills', accuracy: 'Acc%', headshotRate: 'HS%' };
const NAME_WIDTH = 10;
const COLUMN_WIDTH = 5;

const fit = (text: string, width: number) => (text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width));

/** A table cell of at most four characters: `27.7` (its heading says %), `1.42`, `172`, `1.2K`. */
function cell(value: number, figure: Figure, locale: string | undefined): string {
  const info = FIGURE_INFO[figure];
  if (info.displayType === 'NumberPercentage') return formatValue(value, 'NumberPercentage', locale).replace('%', '').replace(/[.,]0$/, '');
  if (info.displayType === 'NumberPrecision2') return value >= 10 ? formatValue(Math.round(value * 10) / 10, 'Number', locale) : formatValue(value, 'NumberPrecision2', locale);
  return Math.abs(value) < 1_000 ? formatValue(Math.round(value), 'Number', locale) : compactNumber(value, locale);
}

/** "Lifetime", "Season 3 · ranked", "Ranked": what the figures cover. */
export function scopeLabel(filter: SegmentsContext['filter']): string {
  const queue = filter.queue ? filter.queue.charAt(0).toUpperCase() + filter.queue.slice(1) : null;
  if (filter.season !== undefined) return [`Season ${filter.season}`, filter.queue ?? null].filter(Boolean).join(' · ');
  return queue ? `Lifetime · ${queue}` : 'Lifetime';
}

/**
 * One segment type's list (maps, weapons, heroes ...) as a table: labels once, values aligned in a
 * code block (which keeps its columns on a phone), weapons with weapon figures, numbers compact.
 */
export function segmentsReply(segments: Segment[], ctx: SegmentsContext): Reply {
  const pageCount = Math.max(1, Math.ceil(segments.length / SEGMENTS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = segments.slice(page * SEGMENTS_PER_PAGE, (page + 1) * SEGMENTS_PER_PAGE);
  const info = segmentType(ctx.title, ctx.type);
  const typeName = info?.name ?? ctx.type;
  const columns = SEGMENT_FIGURES[info?.groupBy === 'weapon' ? 'weapon' : 'other'];
  const header = fit(typeName.replace(/s$/, ''), NAME_WIDTH) + columns.map((f) => (HEADINGS[f] ?? f).padStart(COLUMN_WIDTH)).join('');
  const lines = shown.map((s) => {
    // Code blocks show text as it is: only backticks could break out of one.
    const name = s.metadata.name.replace(/`/g, "'");
    const cells = columns.map((f) => {
      const stat = figure(s.stats, ctx.title, f);
      return (stat?.value != null && Number.isFinite(stat.value) ? cell(stat.value, f, ctx.locale) : '–').padStart(COLUMN_WIDTH);
    });
    return fit(name, NAME_WIDTH) + cells.join('');
  });
  const active = segments.find((s) => s.metadata.isActive === true);
  const scope = TITLES[ctx.title].lifetimeOnlySegmentTypes.includes(ctx.type) && ctx.filter.season === undefined ? 'Lifetime' : scopeLabel(ctx.filter);
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: `${titleName(ctx.title)} · ${typeName}` },
      title: safeText(ctx.player),
      description: describe(
        ctx.meta,
        `**${scope}**${active ? ` · in use: **${safeText(active.metadata.name)}**` : ''}`,
        shown.length > 0 ? `\`\`\`\n${[header, ...lines].join('\n')}\n\`\`\`` : `No ${typeName.toLowerCase()} on record for this player${ctx.filter.season !== undefined || ctx.filter.queue ? ' with these filters' : ''}.`,
      ),
      footer: footerOf(ctx.title, ctx.platform, `${segments.length} in all`),
      timestamp: dataTime(ctx.meta),
    },
    rows(pageControls(ctx.stateId, page, pageCount), ctx.onward ? goButtons(ctx.onward.stateId, ctx.onward.targets) : null),
    false,
    ctx.meta.source,
  );
}
