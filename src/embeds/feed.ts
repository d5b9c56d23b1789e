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

/** A 1×1 transparent PNG: the smallest picture that proves the bot may attach one. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/**
 * What `/track channel` posts in the channel first: shaped as a summary is (an embed, and a picture
 * attached when summaries carry a card), so that Discord refuses it where it would refuse them. A
 * text notice passed in a channel without Embed Links or Attach Files, and the first summary there
 * then switched the feed off.
 */
export function feedCheckReply(withFile: boolean): Reply {
  const reply = embedReply({
    author: { name: 'Session feed' },
    description: 'When a member who opted in finishes a play session (45 minutes without a match), its summary is posted here. Opt in with `/track join`.',
  });
  const [embed] = reply.embeds;
  // Set after the clamp, which keeps web URLs only (as the card is attached).
  return withFile && embed ? { ...reply, embeds: [{ ...embed, thumbnail: { url: 'attachment://feed.png' } }], files: [{ name: 'feed.png', data: PIXEL }] } : reply;
}
