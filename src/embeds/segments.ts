import {
  FIGURE_INFO,
  SEGMENT_FIGURES,
  SEGMENT_TOTALS,
  TITLES,
  TITLE_SLUGS,
  segmentType,
  type Figure,
  type SegmentTypeInfo,
  type TitleSlug,
} from '../catalog/index.js';
import { en, inSentence, say, type TextKey } from '../locales/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Segment } from '../lookup/schemas.js';
import { goButtons, pageControls, rows, switchSelect } from './controls.js';
import { figure } from './figures.js';
import { TITLE_COLORS, compactNumber, dataTime, describe, footerOf, formatValue, queueName, tenths, titleName, typedCode } from './format.js';
import { careerLines, type Onward } from './profile.js';
import { rankLines } from './form.js';
import { embedReply, safeText, type Reply } from './reply.js';
import { clip, withoutControls } from './text.js';

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
  /**
   * What the reply can switch to in place: the player's segment types (the title's all when their
   * profile did not say), and title_a's seasons and queues they played.
   */
  switchTo?: { types: readonly string[]; seasons: readonly number[]; queues: readonly string[] } | undefined;
}

/** Options a switch menu holds at most (Discord's 25). */
const SWITCH_OPTIONS = 25;

/**
 * The switch menu's options: the other segment types, then (title_a) lifetime and the other seasons,
 * newest first, for a type kept by season, then the other queues. Values: `t:<type>`, `s:<n>` (`s:`
 * the lifetime), `q:<queue>` (`q:` both).
 */
export function switchOptions(ctx: SegmentsContext): { label: string; value: string }[] {
  const to = ctx.switchTo;
  if (!to) return [];
  const { locale, filter } = ctx;
  const types = to.types.filter((t) => t !== ctx.type).map((t) => ({ label: segmentTypeName(t, locale) ?? t, value: `t:${t}` }));
  const bySeason = !TITLES[ctx.title].lifetimeOnlySegmentTypes.includes(ctx.type);
  const seasons = bySeason
    ? [
        ...(filter.season !== undefined ? [{ label: say(locale, 'segments.lifetime'), value: 's:' }] : []),
        ...[...to.seasons]
          .sort((a, b) => b - a)
          .filter((n) => n !== filter.season)
          .map((n) => ({ label: say(locale, 'report.season', { n }), value: `s:${n}` })),
      ]
    : [];
  const queues =
    to.queues.length > 0
      ? [
          ...(filter.queue !== undefined ? [{ label: say(locale, 'segments.allQueues'), value: 'q:' }] : []),
          ...to.queues.filter((q) => q !== filter.queue).map((q) => ({ label: queueName(q, locale), value: `q:${q}` })),
        ]
      : [];
  // Seasons give way first when there are too many: the types and queues stay whole.
  const room = Math.max(0, SWITCH_OPTIONS - types.length - queues.length);
  return [...types, ...seasons.slice(0, room), ...queues];
}

/** Column headings, short enough that a row fits a phone (TABLE_WIDTH: a name, then three columns, each with its space). */
const heading = (f: Figure, locale: string | undefined): string => {
  const key = `column.${f}`;
  return key in en ? say(locale, key as TextKey) : f;
};

/** A segment type's name in the reader's language (`map` -> Maps, Karten), and one of it (Map, Karte). */
export function segmentTypeName(type: string, locale: string | undefined, one = false): string | undefined {
  const key = one ? `segment.${type}.one` : `segment.${type}`;
  return key in en ? say(locale, key as TextKey) : undefined;
}

/**
 * The segment type a typed value means, among `types` (by default every title's), by its slug or its
 * name (the catalog's or the reader's) in any case; undefined for what is none.
 */
export function segmentTypeOf(
  typed: string,
  locale: string | undefined,
  types: readonly SegmentTypeInfo[] = TITLE_SLUGS.flatMap((t) => TITLES[t].segmentTypes),
): string | undefined {
  const wanted = typed.trim().toLowerCase();
  return types.find((s) => [s.type, s.name, segmentTypeName(s.type, locale) ?? s.name].some((n) => n.toLowerCase() === wanted))?.type;
}

/**
 * A typed segment type as a notice names it inside its sentence: a known one (another title's) by
 * its name in the reader's language (`weapons`, `Waffen`), anything else quoted back as typed.
 */
export function typedSegmentType(typed: string, locale: string | undefined): string {
  const known = segmentTypeOf(typed, locale);
  return known ? inSentence(locale, segmentTypeName(known, locale) ?? known) : typedCode(typed);
}
/**
 * Characters a table's line takes at most: at a phone's width (400 px, drawn as Discord draws it) a
 * code block in this reply shows 22 on a line, the rest of the embed's width going to its footer's
 * words and the data's time (with the count in the footer too, 19 in German); a 25th broke every
 * row in two (`Dunes  5  80` over `1.32`).
 */
export const TABLE_WIDTH = 22;
/** The fewest characters a name's column keeps when wide headings or figures take the room. */
const NAME_MIN = 6;

const fit = (text: string, width: number) => clip(text, width).padEnd(width);

/** How many decimals a column's figures get: one rule for the whole column, from its largest figure. */
type Decimals = 0 | 1 | 2;

/**
 * A column's decimals, so that its figures line up (`100` beside `66.7` did not): percentages with a
 * tenth unless one is 100 or more, or none has a tenth to show; ratios (K/D) with two decimals under
 * 10, one under 100, none past; counts whole. Read from every figure of the list, not the page's: a column keeps its form from page to page.
 */
function columnDecimals(values: readonly number[], figure: Figure): Decimals {
  const type = FIGURE_INFO[figure].displayType;
  // Compared as they would show: 99.96 shows as 100.0, 9.996 as 10.00.
  const largest = Math.max(0, ...values.map((v) => Math.abs(v)));
  if (type === 'NumberPercentage') {
    const tenthsShown = values.map((v) => Math.round(v * 10));
    return Math.round(largest * 10) / 10 >= 100 || tenthsShown.every((t) => t % 10 === 0) ? 0 : 1;
  }
  if (type === 'NumberPrecision2') {
    const shown = Math.round(largest * 100) / 100;
    return shown >= 100 ? 0 : shown >= 10 ? 1 : 2;
  }
  return 0;
}

/** A table cell, of four characters where it can: `27.7` (its heading says %), `1.42`, `10.3`, `172`, `1.2K`. */
function cell(value: number, figure: Figure, decimals: Decimals, locale: string | undefined): string {
  const type = FIGURE_INFO[figure].displayType;
  if (type === 'NumberPercentage' || type === 'NumberPrecision2') {
    if (decimals === 2) return formatValue(value, 'NumberPrecision2', locale);
    if (decimals === 1) return tenths(value, locale);
    return formatValue(Math.round(value), 'Number', locale);
  }
  return Math.abs(value) < 1_000 ? formatValue(Math.round(value), 'Number', locale) : compactNumber(value, locale);
}

/** "Lifetime", "Season 3 · Ranked", "Lifetime · Social": what the figures cover. */
export function scopeLabel(filter: SegmentsContext['filter'], locale?: string): string {
  const span = filter.season !== undefined ? say(locale, 'segments.season', { n: filter.season }) : say(locale, 'segments.lifetime');
  return filter.queue ? `${span} · ${queueName(filter.queue, locale)}` : span;
}

/**
 * A table's lines, the heading line first: names on the left, in what the columns leave of
 * TABLE_WIDTH, each column right-aligned with a space before it on every row. Columns are as narrow
 * as their figures and headings allow, the first heading standing over the names where its figures
 * are narrower (`Spiel` over `5`), so names get the room: German's `Citadel` and `Monolith` stay on
 * their row. A name longer than its column still has a line of its own (clipped only past
 * TABLE_WIDTH), its figures on the next line under the headings: `World's Edge` stays whole on a
 * phone, where a clipped `World'…` would not say which map it was. A heading or figure wider than
 * its neighbours (`1,2 mil` in Spanish) widens its column rather than running into the next
 * (`SpielSieg%`).
 */
function segmentTable(oneName: string, headings: readonly string[], rows: readonly { name: string; cells: readonly string[] }[]): string[] {
  // A column is as wide as its figures; any heading but the first as wide as itself, the first
  // standing over the names' column where its figures are narrower (`Spiel` over `5`).
  const widths = headings.map((h, k) => Math.max(k === 0 ? 1 : h.length, ...rows.map((r) => r.cells[k]?.length ?? 0)));
  const nameWidth = Math.max(NAME_MIN, TABLE_WIDTH - widths.reduce((sum, w) => sum + 1 + w, 0));
  const line = (name: string, cells: readonly string[]) => fit(name, nameWidth) + widths.map((w, k) => ` ${(cells[k] ?? '').padStart(w)}`).join('');
  const first = headings[0] ?? '';
  const firstEnd = nameWidth + 1 + (widths[0] ?? 0);
  // The type's name over the names where it fits whole, a space before the first heading; else
  // nothing (the author line names the type already, and a clipped `Playl…` read as a defect).
  const room = firstEnd - first.length - 1;
  const header =
    (oneName.length <= room ? oneName : '').padEnd(firstEnd - first.length) +
    first +
    widths
      .slice(1)
      .map((w, k) => headings[k + 1]!.padStart(w + 1))
      .join('');
  return [header, ...rows.flatMap((r) => (r.name.length > nameWidth ? [clip(r.name, TABLE_WIDTH), line('', r.cells)] : [line(r.name, r.cells)]))];
}

/**
 * One segment type's list (maps, weapons, heroes ...) as a table: labels once, values aligned in a
 * code block (which keeps its columns on a phone), weapons with weapon figures, numbers compact.
 */
export function segmentsReply(answered: Segment[], ctx: SegmentsContext): Reply {
  // An answer may carry its overview or another type's segments beside those asked for: not rows of this list.
  const type = ctx.type.toLowerCase();
  const segments = answered.filter((s) => s.type.toLowerCase() === type);
  const pageCount = Math.max(1, Math.ceil(segments.length / SEGMENTS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = segments.slice(page * SEGMENTS_PER_PAGE, (page + 1) * SEGMENTS_PER_PAGE);
  const info = segmentType(ctx.title, ctx.type);
  const typeName = segmentTypeName(ctx.type, ctx.locale) ?? info?.name ?? ctx.type;
  const oneName = segmentTypeName(ctx.type, ctx.locale, true) ?? typeName.replace(/s$/, '');
  // What the figures cover, a queue included: weapons (lifetime only) of ranked matches are not the career's.
  const scope = scopeLabel(ctx.filter, ctx.locale);
  // The overview is one set of figures, not a list: read as a profile reads it, not as a table of
  // one row under its own clipped name (`Lifeti…`).
  const overview = info?.groupBy === 'overview' && segments.length === 1 ? segments[0] : undefined;
  // Rank first, as on the profile: a season's or a queue's tier and its peak.
  const rank = overview ? rankLines(overview.stats, ctx.title, ctx.locale) : null;
  const career = overview ? careerLines(overview.stats, ctx.title, ctx.locale, rank ? ['rating', 'peakRating'] : ['peakRating']) : undefined;
  const valueOf = (s: Segment, f: Figure): number | undefined => {
    const stat = figure(s.stats, ctx.title, f);
    return stat?.value != null && Number.isFinite(stat.value) ? stat.value : undefined;
  };
  // A column no segment of the list has a figure for (title_d's weapons carry no headshots) is left
  // out, not a column of dashes; one with a figure anywhere stays on every page.
  // With none of them anywhere, the totals the segments have (kills, damage) are shown instead.
  const possible = SEGMENT_FIGURES[info?.groupBy === 'weapon' ? 'weapon' : 'other'];
  const had = (figures: readonly Figure[]) => figures.filter((f) => segments.some((s) => valueOf(s, f) !== undefined));
  const columns = [had(possible), had(SEGMENT_TOTALS.filter((f) => !possible.includes(f)))].find((c) => c.length > 0) ?? possible;
  const decimals = columns.map((f) =>
    columnDecimals(
      segments.map((s) => valueOf(s, f)).filter((v) => v !== undefined),
      f,
    ),
  );
  const table = shown.map((s) => ({
    // Code blocks show text as it is: only backticks could break out of one (and a bidi control reverse its row).
    name: withoutControls(s.metadata.name).replace(/`/g, "'"),
    cells: columns.map((f, k) => {
      const value = valueOf(s, f);
      return value !== undefined ? cell(value, f, decimals[k] ?? 0, ctx.locale) : '–';
    }),
  }));
  const headings = columns.map((f) => heading(f, ctx.locale));
  const lines = segmentTable(oneName, headings, table);
  const active = segments.find((s) => s.metadata.isActive === true);
  const body = career
    ? [
        rank ? `### ${rank.heading}` : career.headline ? `### ${career.headline}` : null,
        rank?.peak ?? null,
        rank && career.headline ? `**${career.headline}**` : null,
        career.placeLine,
        career.played,
        career.totals,
        career.more.length > 0 ? `${career.headline || career.played || career.totals ? '\n' : ''}${career.more.join('\n')}` : null,
        rank || career.headline || career.played || career.totals || career.more.length > 0 ? null : say(ctx.locale, 'profile.noStats'),
      ]
    : [
        shown.length > 0
          ? `\`\`\`\n${lines.join('\n')}\n\`\`\``
          : say(ctx.locale, ctx.filter.season !== undefined || ctx.filter.queue ? 'segments.noneFiltered' : 'segments.none', {
              type: inSentence(ctx.locale, typeName),
            }),
      ];
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: say(ctx.locale, 'segments.author', { title: titleName(ctx.title), type: typeName }) },
      title: safeText(ctx.player),
      description: describe(
        ctx.meta,
        ctx.locale,
        // The count here, not in the footer: a footer's longest words narrow the table's room at a
        // phone's width. None is counted: the line below says there are none.
        [
          `**${scope}**`,
          segments.length > 0 && !career ? say(ctx.locale, 'segments.inAll', { n: segments.length }) : null,
          active ? say(ctx.locale, 'segments.inUse', { name: safeText(active.metadata.name) }) : null,
        ]
          .filter((part) => part !== null)
          .join(' · '),
        ...body,
      ),
      footer: footerOf(ctx.title, ctx.platform),
      timestamp: dataTime(ctx.meta),
    },
    rows(
      switchSelect(
        ctx.stateId,
        say(ctx.locale, ctx.switchTo && (ctx.switchTo.seasons.length > 0 || ctx.switchTo.queues.length > 0) ? 'segments.switch' : 'segments.switchType'),
        switchOptions(ctx),
      ),
      pageControls(ctx.stateId, page, pageCount, ctx.locale),
      ctx.onward ? goButtons(ctx.onward.stateId, ctx.onward.targets) : null,
    ),
    false,
    ctx.meta.source,
  );
}
