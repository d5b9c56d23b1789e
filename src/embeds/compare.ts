// Two players side by side: a line a figure, left then right, the better of each pair bold and pointed at.
import { FIGURE_INFO, PROFILE_FIGURES, type Figure, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import { languageOf, say, sayCount } from '../locales/index.js';
import { overviewOf, type StatsProfile } from '../lookup/schemas.js';
import { figure, ratingTier } from './figures.js';
import { TITLE_COLORS, dataTime, describe, figureLabel, footerOf, platformName, statValue, titleName, unbroken } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

/** What the table compares: the headline, then the title's own figures, then the counts (not marked). */
const LEAD: readonly Figure[] = ['kd', 'winRate'];
/** The figures a verdict names, rank first: what decides who is the better player. */
const KEY: readonly Figure[] = ['rating', 'kd', 'winRate'];
const KEY_LABELS = (locale: string | undefined) => KEY.map((f) => figureLabel(f, locale));
const COUNTS: readonly Figure[] = ['matchesPlayed', 'timePlayed'];
export interface CompareSide {
  profile: StatsProfile;
  meta: LookupMeta;
}

/** Which of a pair is better: null where better means nothing (counts) or a side has no figure. */
export type Better = 'left' | 'right' | 'even' | null;

function better(f: Figure, left: number | null | undefined, right: number | null | undefined): Better {
  if (FIGURE_INFO[f].higherIsBetter !== true || typeof left !== 'number' || typeof right !== 'number') return null;
  return left > right ? 'left' : right > left ? 'right' : 'even';
}

/** One compared figure: its label, each side's value as written (`–` for a side without it), and which is better. */
export interface CompareRow {
  label: string;
  left: string;
  right: string;
  better: Better;
}

/** The figures either player has, in the order a reader wants them, each side written for `locale`. */
export function compareRows(title: TitleSlug, a: StatsProfile, b: StatsProfile, locale?: string): CompareRow[] {
  const statsA = overviewOf(a.segments)?.stats ?? {};
  const statsB = overviewOf(b.segments)?.stats ?? {};
  return comparedFigures(title).flatMap((f) => {
    const sa = figure(statsA, title, f);
    const sb = figure(statsB, title, f);
    if (!sa && !sb) return [];
    // A rating is told by its tier where the answer names one (`Diamond 1`), compared by its value.
    const written = (stat: typeof sa) => (!stat ? '–' : ((f === 'rating' ? ratingTier(stat)?.name : undefined) ?? statValue(stat, locale, f, true)));
    return [{ label: figureLabel(f, locale), left: written(sa), right: written(sb), better: better(f, sa?.value, sb?.value) }];
  });
}

/** How many figures each side is better on. */
export function tallyOf(rows: readonly CompareRow[]): { left: number; right: number } {
  return { left: rows.filter((r) => r.better === 'left').length, right: rows.filter((r) => r.better === 'right').length };
}

const ARROW = { left: '◂', right: '▸', even: '=' } as const;

/** The figures either player has, each once, in the order a reader wants them. */
function comparedFigures(title: TitleSlug): Figure[] {
  // Rank first, as on a profile.
  return [...new Set(['rating' as const, ...LEAD, ...PROFILE_FIGURES[title].filter((f) => f !== 'matchesPlayed' && f !== 'timePlayed'), ...COUNTS])];
}

/**
 * `/compare`: the two careers a figure a line (`K/D · **1.48** ◂ 1.44`), short enough for a phone
 * (a three-column code block wraps there), the better of each pair bold with an arrow pointing at it
 * where more is better (K/D, win rate, per-match figures), none for counts. Figures only one player
 * has show `–` for the other.
 */
export function compareReply(title: TitleSlug, left: CompareSide, right: CompareSide, locale?: string): Reply {
  const [a, b] = [left.profile, right.profile];
  const nameA = a.platformInfo.platformUserHandle;
  const nameB = b.platformInfo.platformUserHandle;
  const rows = compareRows(title, a, b, locale);
  // Each pair held together, the arrow with it: a phone broke `8h 57m` between its hours and minutes,
  // and `Platinum 5 ◂ Gold 4` at its arrow. A line too long for it moves the pair whole under its label.
  const lines = rows.map((r) => {
    const [left, right] = [unbroken(r.left), unbroken(r.right)];
    return `${r.label} · ${r.better === 'left' ? `**${left}**` : left}\u00a0${r.better ? ARROW[r.better] : unbroken(say(locale, 'compare.vs'))}\u00a0${r.better === 'right' ? `**${right}**` : right}`;
  });
  const { left: ahead, right: behind } = tallyOf(rows);
  // Who leads on what matters (rank first, then K/D and win rate), by name: a count of figures
  // weighed kills a match as much as K/D, and read "ahead on 3 of 5" beside a worse K/D.
  const list = (labels: string[]) => new Intl.ListFormat(languageOf(locale), { type: 'conjunction' }).format(labels);
  const leadsOn = (side: 'left' | 'right') => rows.filter((r) => KEY_LABELS(locale).includes(r.label) && r.better === side).map((r) => r.label);
  const [leftLeads, rightLeads] = [leadsOn('left'), leadsOn('right')];
  const verdict = [
    leftLeads.length > 0 ? say(locale, 'compare.leads', { name: safeText(nameA), list: list(leftLeads) }) : null,
    rightLeads.length > 0 ? say(locale, leftLeads.length > 0 ? 'compare.alsoLeads' : 'compare.leads', { name: safeText(nameB), list: list(rightLeads) }) : null,
  ]
    .filter(Boolean)
    .join(' · ');
  const platforms =
    a.platformInfo.platformSlug === b.platformInfo.platformSlug
      ? null
      : `${platformName(a.platformInfo.platformSlug)} · ${platformName(b.platformInfo.platformSlug)}`;
  const tally = verdict
    ? `${verdict}.`
    : ahead + behind === 0
      ? null
      : ahead === behind
        ? sayCount(locale, 'compare.even', ahead)
        : sayCount(locale, 'compare.ahead', Math.max(ahead, behind), { name: safeText(ahead > behind ? nameA : nameB), total: ahead + behind });
  // The older of the two answers dates the comparison; either side stale warns.
  const meta =
    left.meta.source === 'stale'
      ? left.meta
      : right.meta.source === 'stale'
        ? right.meta
        : left.meta.fetchedAt <= right.meta.fetchedAt
          ? left.meta
          : right.meta;
  return embedReply(
    {
      color: TITLE_COLORS[title],
      author: { name: say(locale, 'compare.author', { title: titleName(title) }) },
      title: `${safeText(nameA)} ${say(locale, 'compare.vs')} ${safeText(nameB)}`,
      description: describe(
        meta,
        locale,
        `◂ **${safeText(nameA)}** · **${safeText(nameB)}** ▸`,
        tally,
        lines.length > 0 ? `\n${lines.join('\n')}` : say(locale, 'compare.none'),
      ),
      footer: footerOf(title, platforms === null ? a.platformInfo.platformSlug : null, platforms),
      timestamp: dataTime(meta),
    },
    [],
    false,
    meta.source,
  );
}
