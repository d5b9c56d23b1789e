// The session feed end to end: the real bot process against the Discord double and a stats service
// of the test's own (behind a counting proxy), with the feed's clock in a file the test moves
// (FEED_CLOCK_FILE), so that 45 minutes pass at once. What is pinned: who may run which /track
// subcommand, a finished session posted exactly once (title_b from its sessions, title_c from the
// change of its career), no repost across a restart or between two processes sharing Redis, the
// budget of requests a minute, and a channel Discord refuses switching the feed off.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { createClient } from '@keyv/redis';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { chatInput, startDiscordDouble, type ChannelMessage, type DiscordDouble } from '../discord-double/index.js';
import { startBot, tempLinksDb, type BotProcess } from '../helpers/bot.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { settled } from '../helpers/interactions.js';
import { startService, type TestService } from '../helpers/service.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.feed-token-abcdefghijklmnopqrstuvwx';
const FEED_CHANNEL = '1180000000000000777';
const MANAGE_GUILD = String(1 << 5);
const T0 = Date.parse('2026-11-20T20:00:00.000Z');
const at = (minutes: number) => new Date(T0 + minutes * 60_000).toISOString();
const EPHEMERAL = 64;

const player = (title: string, platform: string, id: string) =>
  JSON.stringify({ type: 'player', title, platform, id, handle: id, avatarUrl: null, vanity: null });
let matchNo = 0;
function matchB(id: string, startMinutes: number, result: 'win' | 'loss', kills: number): string {
  return JSON.stringify({
    type: 'match',
    title: 'title_b',
    platform: 'pc_store_b',
    id: `fb-${++matchNo}`,
    startedAt: at(startMinutes),
    durationSeconds: 600,
    players: [{ id, platform: 'pc_store_b', team: 'alpha', result, legend: 'Wraith', stats: { kills, damage: kills * 250 } }],
  });
}
function matchC(id: string, startMinutes: number, result: 'win' | 'loss', kills: number, deaths: number): string {
  return JSON.stringify({
    type: 'match',
    title: 'title_c',
    platform: 'pc_store_c',
    id: `fc-${++matchNo}`,
    startedAt: at(startMinutes),
    durationSeconds: 600,
    map: 'Ilios',
    mode: 'Push',
    players: [{ id, platform: 'pc_store_c', team: 'red', result, hero: 'Tracer', stats: { kills, deaths, damage: kills * 400 } }],
  });
}

const BULK = Array.from({ length: 10 }, (_, i) => `Bulk${i}`);
const DATASET = [
  player('title_b', 'pc_store_b', 'Runner'),
  player('title_b', 'pc_store_b', 'Second'),
  player('title_c', 'pc_store_c', 'Ember#0001'),
  ...BULK.map((b) => player('title_b', 'pc_store_b', b)),
  // Runner: an old session, then one whose last match ends at T0-10m (so it ends at T0+35m).
  matchB('Runner', -24 * 60, 'win', 9),
  matchB('Runner', -40, 'win', 7),
  matchB('Runner', -20, 'loss', 3),
  // Second: one session from T0+120m to T0+130m (ends at T0+175m).
  matchB('Second', 120, 'win', 5),
  // Ember: one match two days before.
  matchC('Ember#0001', -2 * 24 * 60, 'win', 10, 5),
  ...BULK.map((b) => matchB(b, -3 * 24 * 60, 'win', 4)),
];

interface Callback {
  type: number;
  data?: { content?: string; flags?: number };
}

const users = {
  admin: { id: '1180000000000000601', username: 'admin' },
  runner: { id: '1180000000000000602', username: 'runner' },
  ember: { id: '1180000000000000603', username: 'ember' },
  second: { id: '1180000000000000604', username: 'second' },
};

async function waitFor<T>(probe: () => T | undefined | false, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The first answer's text, or the final one after a deferral. */
async function ask(double: DiscordDouble, payload: Parameters<typeof chatInput>[0]): Promise<{ text: string; ephemeral: boolean }> {
  const calls = await settled(double.dispatchInteraction(chatInput(payload)), 20_000, null);
  const body = calls[0]!.body as Callback;
  if (body.type !== 5) return { text: body.data?.content ?? '', ephemeral: ((body.data?.flags ?? 0) & EPHEMERAL) !== 0 };
  const last = calls.at(-1)!.body as { content?: string; flags?: number };
  return { text: last.content ?? '', ephemeral: ((last.flags ?? 0) & EPHEMERAL) !== 0 };
}

/** The poller's record of a player, read from the links file as the bot left it. */
function playerState(linksDb: string, userId: string, title: string): { start?: unknown; nextAt?: number } | undefined {
  const db = new Database(linksDb, { readonly: true, fileMustExist: true });
  try {
    const text = db.prepare('SELECT value FROM feed_players WHERE key = ?').pluck().get(`${userId}|${title}`) as string | undefined;
    return text === undefined ? undefined : (JSON.parse(text) as { start?: unknown; nextAt?: number });
  } finally {
    db.close();
  }
}

const embedOf = (m: ChannelMessage) => (m.message.embeds as { author?: { name: string }; title?: string; description?: string; image?: { url: string } }[])[0];

describe('the session feed, one bot process on SQLite', () => {
  let double: DiscordDouble;
  let service: TestService;
  let proxy: FaultProxy;
  let bot: BotProcess;
  const dir = mkdtempSync(join(tmpdir(), 'feed-'));
  const clockFile = join(dir, 'clock');
  const linksDb = tempLinksDb();
  const setClock = (minutes: number) => writeFileSync(clockFile, at(minutes));
  const state = (userId: string, title: string) => playerState(linksDb, userId, title);
  /**
   * Resolves once the poller has looked at the player at feed time `minutes` (or later) and posted
   * what that look found: its record, written after the posts, then says when it is due next, past it.
   */
  const lookedAt = (userId: string, title: string, minutes: number) =>
    waitFor(() => (state(userId, title)?.nextAt ?? 0) > T0 + minutes * 60_000, 20_000, `a look at ${title} of ${userId} at ${minutes} minutes`);
  const env = () => ({
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: double.apiUrl,
    LOOKUP_BASE_URL: proxy.url,
    LINKS_DB: linksDb,
    FEED_CLOCK_FILE: clockFile,
    FEED_REQUESTS_PER_MINUTE: '120',
  });
  const posts = () => double.channelMessages(FEED_CHANNEL);
  const seen = (fragment: string) => proxy.requests.filter((r) => r.includes(fragment)).length;

  beforeAll(async () => {
    setClock(0);
    let clock = T0;
    service = await startService(DATASET, {
      now: () => {
        const read = Date.parse(readFileSync(clockFile, 'utf8'));
        if (!Number.isNaN(read)) clock = read;
        return clock;
      },
    });
    proxy = await startFaultProxy(service.url);
    double = await startDiscordDouble({ token: TOKEN });
    bot = startBot(env());
    await double.waitForReady(30_000);
  }, 60_000);

  afterAll(async () => {
    if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
    await double.close();
    await proxy.close();
    await service.close();
  });

  it('says /track needs a server, a link to join, and Manage Server to pick the channel', async () => {
    const dm = await ask(double, { command: 'track', subcommand: 'status', user: users.runner, guildId: null });
    expect(dm.ephemeral).toBe(true);
    expect(dm.text).toContain('server');
    const unlinked = await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: users.runner });
    expect(unlinked.ephemeral).toBe(true);
    expect(unlinked.text).toContain('/link title:title_b');
    const member = await ask(double, { command: 'track', subcommand: 'channel', options: { channel: FEED_CHANNEL }, user: users.runner });
    expect(member.text).toContain('Manage Server');
    const off = await ask(double, { command: 'track', subcommand: 'off', user: users.runner });
    expect(off.text).toContain('Manage Server');
    expect(posts()).toHaveLength(0);
  });

  it('refuses a channel the bot may not post in, and takes one it may', async () => {
    double.setChannelError(FEED_CHANNEL, 50001);
    const refused = await ask(double, {
      command: 'track',
      subcommand: 'channel',
      options: { channel: FEED_CHANNEL },
      user: users.admin,
      permissions: MANAGE_GUILD,
    });
    expect(refused.text).toContain('Nothing changed');
    expect(refused.text).toContain('Missing Access');
    double.setChannelError(FEED_CHANNEL, null);
    const taken = await ask(double, {
      command: 'track',
      subcommand: 'channel',
      options: { channel: FEED_CHANNEL },
      user: users.admin,
      permissions: MANAGE_GUILD,
    });
    expect(taken.text).toContain(`on** in <#${FEED_CHANNEL}>`);
    expect(posts()).toHaveLength(1);
    expect(embedOf(posts()[0]!)?.author?.name).toBe('Session feed');
  });

  it('posts a title_b session once, 45 minutes after its last match', async () => {
    await ask(double, { command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: 'Runner' }, user: users.runner });
    const joined = await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: users.runner });
    expect(joined.text).toContain('Following your Title B sessions');
    await waitFor(() => seen('/Runner/sessions') > 0, 15_000, 'the first look at Runner');
    // Half an hour on the session goes on (its last match ended 10 minutes before the start): a look, no post.
    setClock(30);
    await lookedAt(users.runner.id, 'title_b', 30);
    expect(posts()).toHaveLength(1);
    setClock(40);
    const [, post] = await double.waitForChannelMessages(FEED_CHANNEL, 2, 20_000);
    const embed = embedOf(post!);
    expect(embed?.author?.name).toBe('Title B · Session feed');
    expect(embed?.title).toBe('Runner');
    expect(embed?.description).toContain(`<@${users.runner.id}>’s session`);
    expect(embed?.description).toContain('**1\u00a0of\u00a02\u00a0won**');
    expect(embed?.description).toContain('(career');
    expect(post!.files.map((f) => f.filename)).toEqual(['card.png']);
    expect(embed?.image?.url).toContain('card.png');
    expect(post!.message.mentions).toEqual([]);
    // Posted with a nonce of its own (25 characters), which the double, as Discord, enforces.
    expect(post!.message.nonce).toMatch(/^[\w-]{25}$/);
    // The look that posted it is recorded (the player next due after it): posted once.
    await lookedAt(users.runner.id, 'title_b', 40);
    expect(posts()).toHaveLength(2);
  }, 60_000);

  it('posts a title_c session read from the change of the career, once', async () => {
    await ask(double, { command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'Ember#0001' }, user: users.ember });
    await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_c' }, user: users.ember });
    await ask(double, { command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: 'Second' }, user: users.second });
    await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: users.second });
    await waitFor(
      () => state(users.ember.id, 'title_c') !== undefined && state(users.second.id, 'title_b') !== undefined,
      20_000,
      'the first looks at Ember and Second',
    );
    await importLines(service.store, [matchC('Ember#0001', 41, 'win', 12, 3), matchC('Ember#0001', 50, 'loss', 6, 6)]);
    // The feed shares the lookup cache: the career the link cached stays 5 s (its expiry lies in the
    // past of this machine's clock). Ember was idle: looked at again an hour later, when the growth is seen.
    await sleep(6_000);
    setClock(101);
    await waitFor(() => state(users.ember.id, 'title_c')?.start !== undefined, 20_000, 'Ember seen playing');
    expect(posts()).toHaveLength(2);
    setClock(140);
    const all = await double.waitForChannelMessages(FEED_CHANNEL, 3, 20_000);
    const embed = embedOf(all[2]!);
    expect(embed?.author?.name).toBe('Title C · Session feed');
    expect(embed?.description).toContain('**1\u00a0of\u00a02\u00a0won**');
    expect(embed?.description).toMatch(/K\/D \*\*2(\.00)?\*\*/);
    await lookedAt(users.ember.id, 'title_c', 140);
    expect(posts()).toHaveLength(3);
  }, 90_000);

  it('switches the feed off when Discord refuses the channel (50013), and tells the next admin', async () => {
    double.setChannelError(FEED_CHANNEL, 50013);
    setClock(180);
    await waitFor(() => bot.output().includes('switched off'), 20_000, 'the feed switched off');
    const member = await ask(double, { command: 'track', subcommand: 'status', user: users.runner });
    expect(member.text).not.toContain('⚠️');
    const admin = await ask(double, { command: 'track', subcommand: 'status', user: users.admin, permissions: MANAGE_GUILD });
    expect(admin.text).toContain('⚠️ The session feed was switched off');
    expect(admin.text).toContain('may not post there');
    expect(posts()).toHaveLength(3);
  }, 40_000);

  it('posts nothing again after a restart', async () => {
    bot.child.kill('SIGTERM');
    await new Promise((resolve) => bot.child.once('exit', resolve));
    double.setChannelError(FEED_CHANNEL, null);
    bot = startBot(env());
    await double.waitForReady(30_000);
    const again = await ask(double, {
      command: 'track',
      subcommand: 'channel',
      options: { channel: FEED_CHANNEL },
      user: users.admin,
      permissions: MANAGE_GUILD,
    });
    expect(again.text).toContain('✅');
    expect(posts()).toHaveLength(4);
    // Everyone due again: the sessions already posted (and the one refused) stay unposted.
    setClock(300);
    await waitFor(() => bot.output().includes('this process polls'), 20_000, 'the poller');
    await Promise.all([lookedAt(users.runner.id, 'title_b', 300), lookedAt(users.second.id, 'title_b', 300), lookedAt(users.ember.id, 'title_c', 300)]);
    expect(posts()).toHaveLength(4);
  }, 90_000);
});

describe('the session feed, two bot processes sharing Redis', () => {
  let double: DiscordDouble;
  let service: TestService;
  let proxy: FaultProxy;
  const bots: BotProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'feed-redis-'));
  const clockFile = join(dir, 'clock');
  const namespace = `feed-test-${randomBytes(4).toString('hex')}`;
  const posts = () => double.channelMessages(FEED_CHANNEL);
  const seen = (fragment: string) => proxy.requests.filter((r) => r.includes(fragment)).length;

  beforeAll(async () => {
    writeFileSync(clockFile, at(0));
    service = await startService(DATASET, { now: () => T0 });
    proxy = await startFaultProxy(service.url);
    double = await startDiscordDouble({ token: TOKEN });
    const env = {
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      LOOKUP_BASE_URL: proxy.url,
      CACHE_URL: 'redis://127.0.0.1:6379',
      CACHE_NAMESPACE: namespace,
      FEED_CLOCK_FILE: clockFile,
      FEED_REQUESTS_PER_MINUTE: '12',
      CARDS: 'off',
    };
    bots.push(startBot(env));
    await double.waitForReady(30_000);
    bots.push(startBot(env));
    // The double keeps one gateway session: the second bot's identify takes it over.
    await waitFor(() => double.stats().identifies >= 2, 30_000, 'the second bot');
    await double.waitForReady(30_000);
  }, 90_000);

  afterAll(async () => {
    for (const b of bots) if (b.child.exitCode === null) b.child.kill('SIGKILL');
    await double.close();
    await proxy.close();
    await service.close();
    const redis = createClient({ url: 'redis://127.0.0.1:6379' });
    await redis.connect();
    for (const k of await redis.keys(`${namespace}*`)) await redis.del(k);
    redis.destroy();
  });

  it('posts a finished session once, whichever process polls', async () => {
    await ask(double, { command: 'track', subcommand: 'channel', options: { channel: FEED_CHANNEL }, user: users.admin, permissions: MANAGE_GUILD });
    await ask(double, { command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: 'Runner' }, user: users.runner });
    await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: users.runner });
    await waitFor(() => seen('/Runner/sessions') > 0, 20_000, 'the first look at Runner');
    writeFileSync(clockFile, at(40));
    await double.waitForChannelMessages(FEED_CHANNEL, 2, 20_000);
    // The look that posted it is recorded in Redis (the player next due after it), whichever process made it: posted once.
    const redis = createClient({ url: 'redis://127.0.0.1:6379' });
    await redis.connect();
    try {
      const nextAt = async () =>
        (JSON.parse((await redis.get(`${namespace}-feed:player:${users.runner.id}|title_b`)) ?? '{}') as { nextAt?: number }).nextAt ?? 0;
      for (let i = 0; i < 200 && (await nextAt()) <= T0 + 40 * 60_000; i++) await sleep(100);
      expect(await nextAt()).toBeGreaterThan(T0 + 40 * 60_000);
    } finally {
      redis.destroy();
    }
    expect(posts()).toHaveLength(2);
    const polling = bots.filter((b) => b.output().includes('session feed: this process polls'));
    expect(polling).toHaveLength(1);
  }, 60_000);

  it('keeps to its budget of requests a minute (12: at most 2 at once, then one each 5 s)', async () => {
    const looks = () => proxy.requests.filter((r) => /\/Bulk\d\/sessions/.test(r)).length;
    const started = Date.now();
    for (const [i, name] of BULK.entries()) {
      const user = { id: `11800000000000007${String(i).padStart(2, '0')}`, username: name };
      await ask(double, { command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: name }, user });
      await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user });
    }
    // Three looks need the bucket's 2 and one refill: a limiter that let more through would show it here.
    await waitFor(() => looks() >= 3, 60_000, 'three looks at the bulk players');
    const spent = looks();
    const seconds = (Date.now() - started) / 1000;
    // The bucket holds 2 and refills at 12 a minute, whichever process polls; Runner's looks take from it too.
    expect(spent).toBeLessThanOrEqual(2 + Math.floor((12 * seconds) / 60));
  }, 120_000);
});

describe('the session feed on the demo data', () => {
  let double: DiscordDouble;
  let bot: BotProcess;
  const clockFile = join(mkdtempSync(join(tmpdir(), 'feed-demo-')), 'clock');
  const linksDb = tempLinksDb();
  let end = 0;

  beforeAll(async () => {
    // Where Wraithling's latest session ends, as the demo service cuts it.
    const demo = await startService();
    const sessions = await demo.request('/v2/title_b/standard/profile/pc_store_b/Wraithling/sessions');
    await demo.close();
    end = Date.parse((sessions.body as { data: { items: { metadata: { endDate: { value: string } } }[] } }).data.items[0]!.metadata.endDate.value);
    writeFileSync(clockFile, new Date(end + 10 * 60_000).toISOString());
    double = await startDiscordDouble({ token: TOKEN });
    bot = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, FEED_CLOCK_FILE: clockFile, LINKS_DB: linksDb });
    await double.waitForReady(30_000);
    await bot.storeLoaded();
  }, 90_000);

  afterAll(async () => {
    if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
    await double.close();
  });

  it('posts the session of a member who joined while playing, once, when it ends', async () => {
    await ask(double, { command: 'track', subcommand: 'channel', options: { channel: FEED_CHANNEL }, user: users.admin, permissions: MANAGE_GUILD });
    await ask(double, { command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: 'Wraithling' }, user: users.runner });
    const joined = await ask(double, { command: 'track', subcommand: 'join', options: { title: 'title_b' }, user: users.runner });
    expect(joined.text).toContain(`summary goes to <#${FEED_CHANNEL}>`);
    // The poller takes the new opt-in within a few seconds and looks while the session is still on.
    await waitFor(() => playerState(linksDb, users.runner.id, 'title_b') !== undefined, 20_000, 'the first look at Wraithling');
    expect(double.channelMessages(FEED_CHANNEL)).toHaveLength(1);
    writeFileSync(clockFile, new Date(end + 50 * 60_000).toISOString());
    const [, post] = await double.waitForChannelMessages(FEED_CHANNEL, 2, 20_000);
    expect(embedOf(post!)?.title).toBe('Wraithling');
    expect(embedOf(post!)?.description).toMatch(/### Session over\n.*\n.* \*\*\d+\u00a0of\u00a0\d+\u00a0won\*\*/);
    // The look that posted it is recorded: posted once.
    await waitFor(() => (playerState(linksDb, users.runner.id, 'title_b')?.nextAt ?? 0) > end + 50 * 60_000, 20_000, 'the look that posted');
    expect(double.channelMessages(FEED_CHANNEL)).toHaveLength(2);
  }, 60_000);

  it('writes the feed of a server in its language, whatever the language of the admin who picks the channel', async () => {
    const GERMAN_SERVER = '1180000000000000190';
    const channel = '1180000000000000791';
    const picked = await ask(double, {
      command: 'track',
      subcommand: 'channel',
      options: { channel },
      user: users.admin,
      permissions: MANAGE_GUILD,
      guildId: GERMAN_SERVER,
      guildLocale: 'de',
      locale: 'en-US',
    });
    // The admin reads English; the channel's first post, as every summary after it, is German.
    expect(picked.text).toContain('Summaries are posted in German');
    const check = embedOf(double.channelMessages(channel)[0]!);
    expect(check?.author?.name).toBe('Sitzungs-Feed');
    expect(check?.description).toContain('Mitmachen mit');
    const db = new Database(linksDb, { readonly: true, fileMustExist: true });
    try {
      expect(JSON.parse(db.prepare('SELECT value FROM feed_guilds WHERE guild_id = ?').pluck().get(GERMAN_SERVER) as string)).toMatchObject({
        channelId: channel,
        on: true,
        locale: 'de',
      });
    } finally {
      db.close();
    }
  }, 30_000);
});
