import type { TitleSlug } from '../catalog/index.js';
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

/** "02:41:31" -> "2h 41m". */
function readableClock(clock: string): string {
  const [h = 0, m = 0] = clock.split(':').map(Number);
  return h > 0 ? `${h}h ${m}m` : `${m}m`;
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
        const characters = [...new Set(s.matches.map((m) => m.metadata.character.displayValue).filter((c): c is string => !!c))];
        return {
          name: `${s.metadata.isActive ? '🟢 Playing now · ' : ''}${s.matches.length} match${s.matches.length === 1 ? '' : 'es'} · ${readableClock(s.metadata.duration.value)}`,
          value: [
            relativeTime(s.metadata.startDate.value),
            compactStats(s.stats, ['wins', 'kills', 'damage', 'kd']),
            characters.length > 0 ? `Played: ${characters.map(safeText).join(', ')}` : null,
          ]
            .filter(Boolean)
            .join('\n'),
        };
      }),
      footer: { text: `${freshness(ctx.meta)} · a session ends after 45 minutes without a match` },
    },
    rows(pageControls(ctx.stateId, page, pageCount)),
    false,
    ctx.meta.source,
  );
}
