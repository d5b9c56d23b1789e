// Two players side by side: a line a figure, left then right, the better of each pair bold and pointed at.
import { FIGURE_INFO, PROFILE_FIGURES, type Figure, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import { say } from '../locales/index.js';
import { overviewOf, type StatsProfile } from '../lookup/schemas.js';
import { figure } from './figures.js';
import { TITLE_COLORS, dataTime, describe, figureLabel, footerOf, platformName, statValue, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

/** What the table compares: the headline, then the title's own figures, then the counts (not marked). */
const LEAD: readonly Figure[] = ['kd', 'winRate'];
const COUNTS: readonly Figure[] = ['matchesPlayed', 'timePlayed'];
export interface CompareSide {
  profile: StatsProfile;
  meta: LookupMeta;
}

/** `◂` when the left is better, `▸` when the right is, `=` when even; blank where better means nothing. */
function mark(f: Figure, left: number | null | undefined, right: number | null | undefined): string {
  if (FIGURE_INFO[f].higherIsBetter !== true || typeof left !== 'number' || typeof right !== 'number') return ' ';
  return left > right ? '◂' : right > left ? '▸' : '=';
}

/** The figures either player has, each once, in the order a reader wants them. */
function comparedFigures(title: TitleSlug): Figure[] {
  return [...new Set([...LEAD, ...PROFILE_FIGURES[title].filter((f) => f !== 'matchesPlayed' && f !== 'timePlayed'), ...COUNTS])];
}

/**
 * `/compare`: the two careers a figure a line (`K/D · **1.48** ◂ 1.44`), short enough for a phone
 * (a three-column code block wraps there), the better of each pair bold with an arrow pointing at it
 * where more is better (K/D, win rate, per-match figures), none for counts. Figures only one player
 * has show `–` for the other.
 */
export function compareReply(title: TitleSlug, left: CompareSide, right: CompareSide, locale?: string): Reply {
  const [a, b] = [left.profile, right.profile];
  const statsA = overviewOf(a.segments)?.stats ?? {};
  const statsB = overviewOf(b.segments)?.stats ?? {};
  const nameA = a.platformInfo.platformUserHandle;
  const nameB = b.platformInfo.platformUserHandle;
  const lines: string[] = [];
  let ahead = 0;
  let behind = 0;
  for (const f of comparedFigures(title)) {
    const sa = figure(statsA, title, f);
    const sb = figure(statsB, title, f);
    if (!sa && !sb) continue;
    const m = mark(f, sa?.value, sb?.value);
    if (m === '◂') ahead++;
    if (m === '▸') behind++;
    const va = sa ? statValue(sa, locale, f, true) : '–';
    const vb = sb ? statValue(sb, locale, f, true) : '–';
    lines.push(`${figureLabel(f, locale)} · ${m === '◂' ? `**${va}**` : va} ${m === ' ' ? say(locale, 'compare.vs') : m} ${m === '▸' ? `**${vb}**` : vb}`);
  }
  const platforms = a.platformInfo.platformSlug === b.platformInfo.platformSlug ? null : `${platformName(a.platformInfo.platformSlug)} · ${platformName(b.platformInfo.platformSlug)}`;
  const tally =
    ahead + behind === 0
      ? null
      : ahead === behind
        ? say(locale, 'compare.even', { n: ahead })
        : say(locale, 'compare.ahead', { name: safeText(ahead > behind ? nameA : nameB), n: Math.max(ahead, behind), total: ahead + behind });
  // The older of the two answers dates the comparison; either side stale warns.
  const meta = left.meta.source === 'stale' ? left.meta : right.meta.source === 'stale' ? right.meta : left.meta.fetchedAt <= right.meta.fetchedAt ? left.meta : right.meta;
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
