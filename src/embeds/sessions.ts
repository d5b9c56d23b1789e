import { formatDuration, parseTimeSpan, type TitleSlug } from '../catalog/index.js';
import type { LookupMeta } from '../lookup/client.js';
import type { Session } from '../lookup/schemas.js';
import { pageControls, rows } from './controls.js';
import { TITLE_COLORS, compactStats, freshness, platformName, relativeTime, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';

export const SESSIONS_PER_PAGE = 5;

export interface SessionsContext {
  title: TitleSlug;
  platform: string;
  player: string;
  meta: LookupMeta;
  page: number;
  stateId: string;
}

/** How long a session lasted, from its TimeSpan (`00:45:06.6886760`), else from its dates. */
function sessionLength(s: Session): string | null {
  const { duration, startDate, endDate } = s.metadata;
  let seconds = duration ? parseTimeSpan(duration.value) : null;
  if (seconds === null && startDate && endDate) seconds = (Date.parse(endDate.value) - Date.parse(startDate.value)) / 1000;
  if (seconds === null || !Number.isFinite(seconds) || seconds < 0) return null;
  // Whole minutes: a session's seconds say nothing.
  return formatDuration(seconds < 60 ? seconds : Math.round(seconds / 60) * 60).replace(/ 0s$/, '');
}

/** "+23" / "-8": the rating a session won or lost, when the answer says. */
function ratingChange(s: Session): string | null {
  const change = s.stats.rankScoreChange;
  if (!change) return null;
  return change.value !== null && change.value > 0 ? `+${change.displayValue.replace(/^\+/, '')}` : change.displayValue;
}

/** Play sessions, newest first: matches played close together, with what they added up to. */
export function sessionsReply(sessions: Session[], ctx: SessionsContext): Reply {
  const pageCount = Math.max(1, Math.ceil(sessions.length / SESSIONS_PER_PAGE));
  const page = Math.min(Math.max(0, ctx.page), pageCount - 1);
  const shown = sessions.slice(page * SESSIONS_PER_PAGE, (page + 1) * SESSIONS_PER_PAGE);
  return embedReply(
    {
      color: TITLE_COLORS[ctx.title],
      author: { name: `${titleName(ctx.title)} · Sessions` },
      title: safeText(ctx.player),
      description: `${platformName(ctx.platform)}${sessions.length === 0 ? '\nNo sessions on record.' : ''}`,
      fields: shown.map((s) => {
        const characters = [...new Set(s.matches.map((m) => m.metadata.character?.displayValue ?? m.metadata.character?.value).filter((c): c is string => !!c))];
        const count = s.matches.length > 0 ? s.matches.length : (s.stats.matchesPlayed?.value ?? 0);
        const length = sessionLength(s);
        const change = ratingChange(s);
        const started = s.metadata.startDate?.value ?? s.metadata.endDate?.value;
        return {
          name: [`${s.metadata.isActive?.value === true ? '🟢 Playing now · ' : ''}${count} match${count === 1 ? '' : 'es'}`, length].filter(Boolean).join(' · '),
          value:
            [
              started ? relativeTime(started) : null,
              compactStats(s.stats, ['wins', 'kills', 'damage', 'kd']),
              change ? `Rating **${change}**` : null,
              characters.length > 0 ? `Played: ${characters.map(safeText).join(', ')}` : null,
            ]
              .filter(Boolean)
              .join('\n') || '—',
        };
      }),
      footer: { text: `${freshness(ctx.meta)} · a session ends after 45 minutes without a match` },
    },
    rows(pageControls(ctx.stateId, page, pageCount)),
    false,
    ctx.meta.source,
  );
}
