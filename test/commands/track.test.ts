// /track channel against the Discord double over real HTTP: the check that the bot may post in the
// channel is refused where a session summary would be (no Embed Links; no Attach Files with cards on).
// /track status says which followed titles have no link any more.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { REST } from 'discord.js';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { findCommand, type Deps } from '../../commands/index.js';
import { createBotStores } from '../../src/bot/stores.js';
import { restOptions } from '../../src/bot/client.js';
import { restPoster } from '../../src/bot/feed.js';
import { sqliteFeedStore } from '../../src/bot/feed-store.js';
import type { CardRenderer } from '../../src/cards/index.js';
import { startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.track-token-abcdefghijklmnopqrstuvw';
const GUILD = '1180000000000000100';
const CHANNEL = '1180000000000000778';

let double: DiscordDouble;
let deps: Deps;
const feed = sqliteFeedStore(':memory:', 1_000);
const track = findCommand('track')!;
const pick = (d: Deps) =>
  track.execute(
    { name: 'track', group: null, subcommand: 'channel', options: { channel: CHANNEL }, userId: 'admin', guildId: GUILD, canManageServer: true },
    d,
  );

beforeAll(async () => {
  double = await startDiscordDouble({ token: TOKEN });
  const poster = restPoster(new REST({ api: double.apiUrl, retries: 0 }).setToken(TOKEN));
  deps = { feed, poster, logger: pino({ level: 'silent' }) } as unknown as Deps;
});
afterAll(async () => {
  feed.close();
  await double.close();
});

describe('/track channel', () => {
  it('refuses a channel where the bot may send text but not embed links, and changes nothing', async () => {
    double.setChannelPermissions(CHANNEL, { embedLinks: false, attachFiles: true });
    const r = await pick(deps);
    expect(r.content).toContain('Nothing changed');
    expect(await feed.guild(GUILD)).toBeUndefined();
    expect(double.channelMessages(CHANNEL)).toHaveLength(0);
  });

  it('refuses a channel where it may not attach files when summaries carry a card, and takes it when they do not', async () => {
    double.setChannelPermissions(CHANNEL, { embedLinks: true, attachFiles: false });
    const withCards = await pick({ ...deps, cards: {} as CardRenderer });
    expect(withCards.content).toContain('Nothing changed');
    expect(await feed.guild(GUILD)).toBeUndefined();
    const textOnly = await pick(deps);
    expect(textOnly.content).toContain(`<#${CHANNEL}>`);
    expect(await feed.guild(GUILD)).toMatchObject({ channelId: CHANNEL, on: true });
  });

  it('writes the feed in the language picked, else in the server’s, and says which', async () => {
    double.setChannelPermissions(CHANNEL, null);
    const run = (options: Record<string, string>, guildLocale?: string) =>
      track.execute(
        {
          name: 'track',
          group: null,
          subcommand: 'channel',
          options: { channel: CHANNEL, ...options },
          userId: 'admin',
          guildId: GUILD,
          canManageServer: true,
          locale: 'en-US',
          guildLocale,
        },
        deps,
      );
    const picked = await run({ language: 'fr' }, 'de');
    expect(picked.content).toContain('Summaries are posted in French.');
    expect(await feed.guild(GUILD)).toMatchObject({ channelId: CHANNEL, on: true, locale: 'fr' });
    expect(JSON.stringify(double.channelMessages(CHANNEL).at(-1)!.message.embeds)).toContain('Fil des sessions');
    const server = await run({}, 'de');
    expect(server.content).toContain('Summaries are posted in German: the server’s language.');
    expect(await feed.guild(GUILD)).toMatchObject({ locale: 'de' });
  });

  it('says Discord is holding posts back in a channel in slowmode, at once, and changes nothing', async () => {
    double.setChannelPermissions(CHANNEL, null);
    const guild = '1180000000000000101';
    const channel = '1180000000000000779';
    double.setChannelSlowmode(channel, 21_600);
    try {
      // The bot's REST options: a 6-hour wait is refused at once, not slept through.
      const poster = restPoster(new REST({ ...restOptions(double.apiUrl), retries: 0 }).setToken(TOKEN));
      const started = performance.now();
      const r = await track.execute(
        { name: 'track', group: null, subcommand: 'channel', options: { channel }, userId: 'admin', guildId: guild, canManageServer: true },
        { ...deps, poster },
      );
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(r.content).toBe(
        `Nothing changed: I cannot post in <#${channel}>: Discord is holding posts there back (slowmode, or a rate limit); try again in a few minutes.`,
      );
      expect(await feed.guild(guild)).toBeUndefined();
    } finally {
      double.setChannelSlowmode(channel, null);
    }
  });

  it('posts its notice as a summary is posted, an embed with a file when cards are on', async () => {
    double.setChannelPermissions(CHANNEL, null);
    await pick({ ...deps, cards: {} as CardRenderer });
    const notice = double.channelMessages(CHANNEL).at(-1)!;
    expect(notice.files).toHaveLength(1);
    expect(JSON.stringify(notice.message.embeds)).toContain('Session feed');
    expect(JSON.stringify(notice.message.embeds)).toContain(notice.files[0]!.filename);
  });
});

describe('/track status', () => {
  it('tells a member who follows a title they have no link for any more that nothing of theirs is posted', async () => {
    const stores = await createBotStores({ namespace: 'test', linksPath: join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite') });
    const d = { links: stores.links, members: stores.members, feed: stores.feed, logger: pino({ level: 'silent' }) } as unknown as Deps;
    const run = (subcommand: string, options: Record<string, string> = {}) =>
      track.execute({ name: 'track', group: null, subcommand, options, userId: 'u1', guildId: GUILD }, d);
    try {
      await stores.links.set('u1', 'title_c', { platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' });
      await stores.links.set('u1', 'title_b', { platform: 'pc_store_b', identifier: 'Rift', handle: 'Rift' });
      await run('join', { title: 'title_c' });
      await run('join', { title: 'title_b' });
      expect((await run('status')).content).not.toContain('No account linked');
      await findCommand('unlink')!.execute({ name: 'unlink', group: null, subcommand: null, options: { title: 'title_c' }, userId: 'u1' }, d);
      const status = (await run('status')).content!;
      expect(status).toContain('You follow: Title B, Title C.');
      expect(status).toContain('No account linked for Title C: nothing of yours is posted for it until you `/link` again.');
    } finally {
      await stores.close();
    }
  });
});
