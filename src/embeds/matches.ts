import { formatDuration, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { MatchChild, MatchSummary, StatisticalObject } from '../lookup/schemas.js';
import { openSelect, pageControls, rows } from './controls.js';
import { TITLE_COLORS, freshness, platformName, relativeTime, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

export const MATCHES_PER_PAGE = 10;

export interface MatchesContext {
  title: TitleSlug;
  platform: string;
  player: string;
  meta: LookupMeta;
  page: number;
  /** Whether another page exists after this one (the service pages with a cursor). */
  hasMore: boolean;
  stateId: string;
}

const RESULT_MARK: Record<string, string> = { win: '🟩 Win', loss: '🟥 Loss', draw: '⬜ Draw' };
const result = (r: string | null) => (r ? (RESULT_MARK[r] ?? r) : '—');
const kda = (stats: Record<string, { value: number | null }>) =>
  ['kills', 'deaths', 'assists'].every((k) => stats[k]) ? ['kills', 'deaths', 'assists'].map((k) => stats[k]?.value ?? 0).join('/') : null;
const dateLabel = (iso: string | null) => (iso === null ? null : new Date(iso).toISOString().slice(0, 16).replace('T', ' ') + ' UTC');

/** How one match reads in a menu or a list of choices: where, and when with its result. */
export function matchLabel(m: MatchSummary): { label: string; description: string } {
  return {
    label: [m.metadata.mapName, m.metadata.modeName].filter(Boolean).join(' · ') || m.attributes.id,
    description: [result(m.metadata.result), dateLabel(m.metadata.timestamp)].filter(Boolean).join(' · '),
  };
}

/** A page of recent matches, with a menu that opens a match's report. */
export function matchesReply(matches: MatchSummary[], ctx: MatchesContext): Reply {
  const lines = matches.map((m) => {
    const stats = m.segments[0]?.stats ?? {};
    const where = [m.metadata.mapName, m.metadata.modeName].filter(Boolean).map((s) => safeText(String(s))).join(' · ');
    const score = kda(stats);
    const when = m.metadata.timestamp === null ? '' : ` · ${relativeTime(m.metadata.timestamp)}`;
    return `${result(m.metadata.result)} **${where || 'Match'}**${score ? ` · K/D/A ${score}` : ''}${when}`;
  });
  const pageCount = ctx.page + (ctx.hasMore ? 2 : 1);
  return embedReply(
    {
        color: TITLE_COLORS[ctx.title],
        author: { name: `${titleName(ctx.title)} · Recent matches` },
        title: safeText(ctx.player),
        description: `${platformName(ctx.platform)}\n\n${lines.length > 0 ? lines.join('\n') : 'No matches on record.'}`,
        footer: { text: `${freshness(ctx.meta)} · page ${ctx.page + 1}` },
    },
    rows(
      openSelect(
        ctx.stateId,
        'Open a match report',
        matches.map((m) => ({ ...matchLabel(m), value: m.attributes.id })),
      ),
      pageControls(ctx.stateId, ctx.page, pageCount),
    ),
    false,
    ctx.meta.source,
  );
}

function playerLine(p: MatchChild): string {
  const score = kda(p.stats);
  const damage = p.stats.damage ? ` · ${p.stats.damage.displayValue} dmg` : '';
  const character = [p.metadata.hero, p.metadata.legend].find((c) => typeof c === 'string');
  return `${safeText(p.metadata.name)}${typeof character === 'string' ? ` (${safeText(character)})` : ''}${score ? ` — ${score}` : ''}${damage}`;
}

/** Both teams and every player of one match. */
export function matchReportReply(report: StatisticalObject, title: TitleSlug, meta: LookupMeta): Reply {
  const teams = report.children.filter((c) => c.type === 'team');
  const players = report.children.filter((c) => c.type === 'player');
  const m = report.metadata;
  const fields = teams.map((team) => ({
    name: `${team.metadata.isWinner ? '🏆 ' : ''}${safeText(team.metadata.name)}${team.metadata.result ? ` · ${result(team.metadata.result)}` : ''}`,
    value:
      players
        .filter((p) => p.attributes.teamId === team.attributes.id)
        .map(playerLine)
        .join('\n') || '—',
    inline: false,
  }));
  const teamless = players.filter((p) => !teams.some((t) => t.attributes.id === p.attributes.teamId));
  if (teamless.length > 0) fields.push({ name: 'Players', value: teamless.map(playerLine).join('\n'), inline: false });
  return embedReply(
    {
      color: TITLE_COLORS[title],
      author: { name: `${titleName(title)} · Match report` },
      title: [m.map.displayValue, m.mode.displayValue].filter(Boolean).map((s) => safeText(String(s))).join(' · ') || `Match ${report.attributes.id}`,
      description: [
        [m.playlist.displayValue, m.queue, m.season !== null ? `Season ${m.season}` : null].filter(Boolean).map((s) => safeText(String(s))).join(' · '),
        [m.timestamp === null ? null : relativeTime(m.timestamp), m.duration === null ? null : formatDuration(m.duration)].filter(Boolean).join(' · '),
      ]
        .filter(Boolean)
        .join('\n'),
      fields,
      footer: { text: `Match ${report.attributes.id} · ${freshness(meta)}` },
    },
    [],
    false,
    meta.source,
  );
}
