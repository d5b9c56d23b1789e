// The session feed's post: one finished play session of a member, read against their career, as
// the server's feed channel shows it.
import type { TitleSlug } from '../catalog/index.js';
import type { Session, Stats } from '../lookup/schemas.js';
import { TITLE_COLORS, footerOf, titleName } from './format.js';
import { embedReply, safeText, type Reply } from './reply.js';
import { latest } from './sessions.js';

export interface FeedPostContext {
  title: TitleSlug;
  platform: string;
  /** The player's name as linked. */
  player: string;
  /** The member whose session it is (mentioned by name, never pinged). */
  userId: string;
  career?: Stats | undefined;
  /** True when the session was read from the change of the career (no sessions endpoint). */
  fromProfile: boolean;
}

/** One finished session: who, when, how long, its results and rates against the career. */
export function feedPostReply(session: Session, ctx: FeedPostContext): Reply {
  const end = session.metadata.endDate?.value;
  return embedReply({
    color: TITLE_COLORS[ctx.title],
    author: { name: `${titleName(ctx.title)} · Session feed` },
    title: safeText(ctx.player),
    description: [latest(session, ctx, 'Session over'), `<@${ctx.userId}>’s session · \`/track leave\` stops these posts`].join('\n'),
    footer: footerOf(ctx.title, ctx.platform, ctx.fromProfile ? 'from the change of the career' : null, 'a session ends after 45 minutes without a match'),
    ...(end ? { timestamp: end } : {}),
  });
}
