// /track: the server's session feed. Members with Manage Server pick its channel (`channel`, the bot
// checks it may post there) or stop it (`off`); members opt in themselves with a linked account
// (`join`, `leave`); `status` says how it stands. The poller (src/bot/feed.ts) does the posting.
import { ChannelType } from 'discord.js';

import { findEndpoint, type TitleSlug } from '../src/catalog/index.js';
import { notice, safeText, titleName, type Reply } from '../src/embeds/index.js';
import { installableCommand } from './installs.js';
import { recordMember } from './link.js';
import { stringOption, titleChoices, titleOf } from './resolve.js';
import type { Command, CommandInput, Deps, FeedStore, GuildFeed } from './types.js';

/** What Discord's refusals mean for whoever picks the channel. */
export const CHANNEL_REFUSALS: Readonly<Record<number, string>> = {
  10003: 'the channel is gone',
  50001: 'the bot cannot see the channel (Missing Access)',
  50013: 'the bot may not post there (it needs View Channel, Send Messages, Embed Links and Attach Files)',
};

const refusal = (code: number | null, message: string) => (code !== null ? CHANNEL_REFUSALS[code] : undefined) ?? `Discord refused the post (${message})`;

/** Whether the feed can follow an account on this platform: title_b's sessions, or any title's profile changes. */
export function followable(title: TitleSlug, platform: string): boolean {
  return [findEndpoint(title, 'sessions'), findEndpoint(title, 'profile')].some((e) => e?.platforms.includes(platform as never));
}

/** Told to every admin who runs /track while Discord has switched the feed off. */
function switchedOff(feed: GuildFeed | undefined): string | null {
  if (!feed?.off) return null;
  const at = Math.floor(Date.parse(feed.off.at) / 1000);
  return `⚠️ The session feed was switched off <t:${at}:R>: posting in <#${feed.channelId}> failed, ${refusal(feed.off.code, `code ${feed.off.code}`)}. Pick a channel with \`/track channel\`.`;
}

const admin = (input: CommandInput, feed: GuildFeed | undefined, text: string): Reply => notice([input.canManageServer ? switchedOff(feed) : null, text].filter(Boolean).join('\n\n'));

async function setChannel(input: CommandInput, guildId: string, store: FeedStore, deps: Deps, feed: GuildFeed | undefined): Promise<Reply> {
  const channelId = stringOption(input, 'channel');
  if (!channelId || !/^\d{17,20}$/.test(channelId)) return notice('Pick a text channel of this server.');
  if (deps.poster) {
    const posted = await deps.poster.post(channelId, notice('📋 **Session feed**: when a member who opted in finishes a play session (45 minutes without a match), its summary is posted here. Opt in with `/track join`.'));
    if (!posted.ok) return admin(input, feed, `Nothing changed: I cannot post in <#${channelId}>: ${refusal(posted.code, posted.message)}.`);
  }
  await store.setGuild(guildId, { channelId, on: true });
  const members = await store.count(guildId);
  return notice(`✅ Session feed **on** in <#${channelId}>. ${members === 1 ? '1 member follows' : `${members} members follow`} it.\nMembers opt in with \`/track join title:…\` (their account linked with \`/link\`).`);
}

async function join(input: CommandInput, guildId: string, store: FeedStore, deps: Deps, feed: GuildFeed | undefined): Promise<Reply> {
  const title = titleOf(input);
  if (typeof title !== 'string') return title;
  const account = await deps.links.get(input.userId, title);
  if (!account) return notice(`Link your ${titleName(title)} account first: \`/link title:${title}\`, then \`/track join title:${title}\`.`);
  if (!followable(title, account.platform)) return notice(`Your ${titleName(title)} account is on a platform the feed cannot follow. Link one where the title has profiles.`);
  const joined = await store.join({ guildId, userId: input.userId, title });
  if (joined === 'full') return notice('This feed follows as many members as it can. Ask someone to `/track leave`, or try again later.');
  await recordMember(guildId, input.userId, deps);
  const where = feed?.on ? `Its summary goes to <#${feed.channelId}>` : 'The feed is **off** in this server: it starts when someone with Manage Server runs `/track channel`';
  const already = joined === 'already' ? 'You already follow' : '✅ Following';
  return notice(`${already} your ${titleName(title)} sessions (**${safeText(account.handle)}**) here. A session ends 45 minutes after your last match. ${where}.\n\`/track leave\` stops it.`);
}

async function status(input: CommandInput, guildId: string, store: FeedStore, feed: GuildFeed | undefined): Promise<Reply> {
  const [members, mine] = await Promise.all([store.count(guildId), store.following(guildId, input.userId)]);
  const state = feed?.on ? `**On** in <#${feed.channelId}>` : feed?.off ? '**Off** (switched off by Discord, see above)' : '**Off**';
  const yours = mine.length > 0 ? `You follow: ${mine.map(titleName).join(', ')}.` : 'You follow none: `/track join title:…` (a linked account needed).';
  return admin(input, feed, `Session feed: ${state} · ${members === 1 ? '1 member follows' : `${members} members follow`} it.\n${yours}`);
}

export const track = {
  data: installableCommand()
    .setName('track')
    .setDescription('This server’s session feed: a summary of each play session when it ends')
    .addSubcommand((s) =>
      s
        .setName('channel')
        .setDescription('Post the feed in this channel (Manage Server)')
        .addChannelOption((o) => o.setName('channel').setDescription('Where session summaries go').setRequired(true).addChannelTypes(ChannelType.GuildText, ChannelType.GuildAnnouncement)),
    )
    .addSubcommand((s) => s.setName('off').setDescription('Stop the feed (Manage Server)'))
    .addSubcommand((s) =>
      s
        .setName('join')
        .setDescription('Have your sessions of a title posted (your linked account)')
        .addStringOption((o) => o.setName('title').setDescription('The title').setRequired(true).addChoices(...titleChoices)),
    )
    .addSubcommand((s) =>
      s
        .setName('leave')
        .setDescription('Stop posting your sessions')
        .addStringOption((o) => o.setName('title').setDescription('One title (default: all)').addChoices(...titleChoices)),
    )
    .addSubcommand((s) => s.setName('status').setDescription('How the feed stands, and what you follow'))
    .toJSON(),

  async execute(input: CommandInput, deps: Deps): Promise<Reply> {
    const guildId = input.guildId;
    if (!guildId) return notice('The session feed belongs to a server: use `/track` in one.');
    const store = deps.feed;
    if (!store) return notice('The session feed is not available in this bot.');
    const feed = await store.guild(guildId);
    switch (input.subcommand) {
      case 'channel':
        if (!input.canManageServer) return notice('Only members with **Manage Server** pick the feed’s channel.');
        return setChannel(input, guildId, store, deps, feed);
      case 'off':
        if (!input.canManageServer) return notice('Only members with **Manage Server** switch the feed off.');
        if (!feed?.on) return admin(input, feed, 'The session feed is already off.');
        await store.setGuild(guildId, { channelId: feed.channelId, on: false });
        return notice(`Session feed **off**. Members keep their opt-ins; \`/track channel\` starts it again.`);
      case 'join':
        return join(input, guildId, store, deps, feed);
      case 'leave': {
        const one = stringOption(input, 'title');
        const title = one ? titleOf(input) : undefined;
        if (title !== undefined && typeof title !== 'string') return title;
        const removed = await store.leave(guildId, input.userId, title);
        return notice(removed > 0 ? `Your sessions${title ? ` of ${titleName(title)}` : ''} are no longer posted here.` : 'You were not following the feed here.');
      }
      case 'status':
        return status(input, guildId, store, feed);
      case null:
      default:
        return notice('Use `/track channel`, `off`, `join`, `leave` or `status`.');
    }
  },
} satisfies Command;
