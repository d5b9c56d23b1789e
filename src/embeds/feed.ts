// The session feed's post: one finished play session of a member, read against their career, as
// the server's feed channel shows it, in the server's language (the feed's `locale`).
import type { TitleSlug } from '../catalog/index.js';
import { commandLine, say } from '../locales/index.js';
import type { Session, Stats } from '../lookup/schemas.js';
import { TITLE_COLORS, code, footerOf, titleName } from './format.js';
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
  /** The server's language (`guild_locale` when the channel was picked); English without one. */
  locale?: string | undefined;
}

/** One finished session: who, when, how long, its results and rates against the career. */
export function feedPostReply(session: Session, ctx: FeedPostContext): Reply {
  const end = session.metadata.endDate?.value;
  const { locale } = ctx;
  return embedReply({
    color: TITLE_COLORS[ctx.title],
    author: { name: say(locale, 'feed.author', { title: titleName(ctx.title) }) },
    title: safeText(ctx.player),
    description: [
      latest(session, ctx, say(locale, 'feed.over')),
      say(locale, 'feed.whose', { member: `<@${ctx.userId}>`, leave: code(commandLine(locale, '/track leave')) }),
    ].join('\n'),
    footer: footerOf(ctx.title, ctx.platform, ctx.fromProfile ? say(locale, 'feed.fromProfile') : null, say(locale, 'sessions.rule')),
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
export function feedCheckReply(withFile: boolean, locale?: string): Reply {
  const reply = embedReply({
    author: { name: say(locale, 'feed.checkAuthor') },
    description: say(locale, 'feed.check', { join: code(commandLine(locale, '/track join')) }),
  });
  const [embed] = reply.embeds;
  // Set after the clamp, which keeps web URLs only (as the card is attached).
  return withFile && embed
    ? { ...reply, embeds: [{ ...embed, thumbnail: { url: 'attachment://feed.png' } }], files: [{ name: 'feed.png', data: PIXEL }] }
    : reply;
}
