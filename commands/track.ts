// /track: the server's session feed. Members with Manage Server pick its channel (`channel`, the bot
// checks it may post there) or stop it (`off`); members opt in themselves with a linked account
// (`join`, `leave`); `status` says how it stands. The poller (src/bot/feed.ts) does the posting.
import { ChannelType } from 'discord.js';

import { findEndpoint, type TitleSlug } from '../src/catalog/index.js';
import { code, feedCheckReply, notice, safeText, titleName, type Reply } from '../src/embeds/index.js';
import { commandLine, languageChoices, languageName, say, sayCount, type TextKey } from '../src/locales/index.js';
import { installableCommand } from './installs.js';
import { recordMember } from './link.js';
import { stringOption, titleChoices, titleOf } from './resolve.js';
import type { Command, CommandInput, Deps, FeedStore, GuildFeed } from './types.js';

/** What Discord's refusals mean for whoever picks the channel. */
export const CHANNEL_REFUSALS: Readonly<Record<number, TextKey>> = {
  10003: 'track.gone',
  50001: 'track.noAccess',
  50013: 'track.noPermission',
};

function refusal(locale: string | undefined, posted: { code: number | null; message: string; late?: true }): string {
  if (posted.late) return say(locale, 'track.late');
  const key = posted.code !== null ? CHANNEL_REFUSALS[posted.code] : undefined;
  return key ? say(locale, key) : say(locale, 'track.refused', { message: posted.message });
}

/** `/track join title:…` as the reader's picker writes it, in a code span. */
const line = (locale: string | undefined, text: string) => code(commandLine(locale, text));
const follows = (locale: string | undefined, n: number) => sayCount(locale, 'track.follows', n);

/** Whether the feed can follow an account on this platform: title_b's sessions, or any title's profile changes. */
export function followable(title: TitleSlug, platform: string): boolean {
  return [findEndpoint(title, 'sessions'), findEndpoint(title, 'profile')].some((e) => e?.platforms.includes(platform as never));
}

/** Told to every admin who runs /track while Discord has switched the feed off. */
function switchedOff(feed: GuildFeed | undefined, locale: string | undefined): string | null {
  if (!feed?.off) return null;
  const at = Math.floor(Date.parse(feed.off.at) / 1000);
  return say(locale, 'track.switchedOff', {
    when: `<t:${at}:R>`,
    channel: `<#${feed.channelId}>`,
    reason: refusal(locale, { code: feed.off.code, message: `code ${feed.off.code}` }),
    command: line(locale, '/track channel'),
  });
}

const admin = (input: CommandInput, feed: GuildFeed | undefined, text: string): Reply =>
  notice([input.canManageServer ? switchedOff(feed, input.locale) : null, text].filter(Boolean).join('\n\n'));

async function setChannel(input: CommandInput, guildId: string, store: FeedStore, deps: Deps, feed: GuildFeed | undefined): Promise<Reply> {
  const channelId = stringOption(input, 'channel');
  if (!channelId || !/^\d{17,20}$/.test(channelId)) return notice(say(input.locale, 'track.pickChannel'));
  // The posts are for everyone in the channel: in the language picked, else the server's (a server
  // that is not a Community server always says en-US), kept with the feed.
  const chosen = stringOption(input, 'language');
  const locale = chosen ?? input.guildLocale;
  if (deps.poster) {
    const posted = await deps.poster.post(channelId, feedCheckReply(deps.cards !== undefined, locale));
    if (!posted.ok) return admin(input, feed, say(input.locale, 'track.cannotPost', { channel: `<#${channelId}>`, reason: refusal(input.locale, posted) }));
  }
  await store.setGuild(guildId, { channelId, on: true, ...(locale ? { locale } : {}) });
  const members = await store.count(guildId);
  return notice(
    [
      say(input.locale, 'track.on', {
        channel: `<#${channelId}>`,
        follows: follows(input.locale, members),
        join: line(input.locale, '/track join title:…'),
        link: line(input.locale, '/link'),
      }),
      say(input.locale, chosen ? 'track.languageChosen' : 'track.language', { language: languageName(locale, input.locale) }),
    ].join('\n'),
  );
}

async function join(input: CommandInput, guildId: string, store: FeedStore, deps: Deps, feed: GuildFeed | undefined): Promise<Reply> {
  const title = titleOf(input);
  if (typeof title !== 'string') return title;
  const account = await deps.links.get(input.userId, title);
  if (!account)
    return notice(
      say(input.locale, 'track.linkFirst', {
        title: titleName(title),
        link: line(input.locale, `/link title:${title}`),
        join: line(input.locale, `/track join title:${title}`),
      }),
    );
  if (!followable(title, account.platform)) return notice(say(input.locale, 'track.notFollowable', { title: titleName(title) }));
  // A server whose feed posts verified accounts only says so now, not by never posting.
  if (!account.verified && (await deps.servers?.get(guildId))?.feedVerifiedOnly)
    return notice(say(input.locale, 'track.verifiedOnly', { link: line(input.locale, `/link title:${title}`) }));
  const joined = await store.join({ guildId, userId: input.userId, title });
  if (joined === 'full') return notice(say(input.locale, 'track.full', { leave: line(input.locale, '/track leave') }));
  await recordMember(guildId, input.userId, deps);
  const where = feed?.on
    ? say(input.locale, 'track.goesTo', { channel: `<#${feed.channelId}>` })
    : say(input.locale, 'track.offHere', { command: line(input.locale, '/track channel') });
  return notice(
    say(input.locale, joined === 'already' ? 'track.alreadyFollowing' : 'track.following', {
      title: titleName(title),
      handle: safeText(account.handle),
      where,
      leave: line(input.locale, '/track leave'),
    }),
  );
}

async function status(input: CommandInput, guildId: string, store: FeedStore, deps: Deps, feed: GuildFeed | undefined): Promise<Reply> {
  const [members, mine] = await Promise.all([store.count(guildId), store.following(guildId, input.userId)]);
  const { locale } = input;
  const state = feed?.on
    ? say(locale, 'track.stateOn', { channel: `<#${feed.channelId}>` })
    : say(locale, feed?.off ? 'track.stateSwitchedOff' : 'track.stateOff');
  const yours =
    mine.length > 0
      ? say(locale, 'track.youFollow', { list: mine.map(titleName).join(', ') })
      : say(locale, 'track.youFollowNone', { join: line(locale, '/track join title:…') });
  // An opt-in outlives its link (/unlink, a Redis that forgot it): the poller then skips it without a word.
  const unlinked = (await Promise.all(mine.map(async (t) => ((await deps.links.get(input.userId, t)) ? [] : [t])))).flat();
  const noLink = unlinked.length > 0 ? say(locale, 'track.noLinkFor', { titles: unlinked.map(titleName).join(', '), link: line(locale, '/link') }) : null;
  return admin(input, feed, [say(locale, 'track.status', { state, follows: follows(locale, members), yours }), noLink].filter(Boolean).join('\n'));
}

export const track = {
  data: installableCommand()
    .setName('track')
    .setDescription('This server’s session feed: a summary of each play session when it ends')
    .addSubcommand((s) =>
      s
        .setName('channel')
        .setDescription('Post the feed in this channel (Manage Server)')
        .addChannelOption((o) =>
          o
            .setName('channel')
            .setDescription('Where session summaries go')
            .setRequired(true)
            .addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement),
        )
        .addStringOption((o) =>
          o
            .setName('language')
            .setDescription('The language of the summaries (default: the server’s)')
            .addChoices(...languageChoices()),
        ),
    )
    .addSubcommand((s) => s.setName('off').setDescription('Stop the feed (Manage Server)'))
    .addSubcommand((s) =>
      s
        .setName('join')
        .setDescription('Have your sessions of a title posted (your linked account)')
        .addStringOption((o) =>
          o
            .setName('title')
            .setDescription('The title')
            .setRequired(true)
            .addChoices(...titleChoices),
        ),
    )
    .addSubcommand((s) =>
      s
        .setName('leave')
        .setDescription('Stop posting your sessions')
        .addStringOption((o) =>
          o
            .setName('title')
            .setDescription('One title (default: all)')
            .addChoices(...titleChoices),
        ),
    )
    .addSubcommand((s) => s.setName('status').setDescription('How the feed stands, and what you follow'))
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const guildId = input.guildId;
    if (!guildId) return notice(say(input.locale, 'track.serverOnly', { command: line(input.locale, '/track') }));
    const store = deps.feed;
    if (!store) return notice(say(input.locale, 'track.unavailable'));
    const feed = await store.guild(guildId);
    switch (input.subcommand) {
      case 'channel':
        if (!input.canManageServer) return notice(say(input.locale, 'track.channelAdminOnly'));
        return setChannel(input, guildId, store, deps, feed);
      case 'off':
        if (!input.canManageServer) return notice(say(input.locale, 'track.offAdminOnly'));
        if (!feed?.on) return admin(input, feed, say(input.locale, 'track.alreadyOff'));
        await store.setGuild(guildId, { ...feed, on: false });
        return notice(say(input.locale, 'track.off', { command: line(input.locale, '/track channel') }));
      case 'join':
        return join(input, guildId, store, deps, feed);
      case 'leave': {
        const one = stringOption(input, 'title');
        const title = one ? titleOf(input) : undefined;
        if (title !== undefined && typeof title !== 'string') return title;
        const removed = await store.leave(guildId, input.userId, title);
        return notice(
          removed > 0
            ? title
              ? say(input.locale, 'track.leftTitle', { title: titleName(title) })
              : say(input.locale, 'track.left')
            : say(input.locale, 'track.notFollowing'),
        );
      }
      case 'status':
        return status(input, guildId, store, deps, feed);
      case null:
      default:
        return notice(
          say(input.locale, 'track.usage', { commands: ['/track channel', 'off', 'join', 'leave', 'status'].map((c) => line(input.locale, c)).join(', ') }),
        );
    }
  },
} satisfies Command;
