// The feed's poller with one player it cannot look at (a state row that no longer reads): the
// others due after that player are still looked at, and the operator hears which one failed.
import { setTimeout as sleep } from 'node:timers/promises';

import { pino, type Logger } from 'pino';
import { describe, expect, it } from 'vitest';

import type { ChannelPoster, Deps, FeedStore, LinkedAccount } from '../../commands/index.js';
import { FeedPoller, type FeedPollerOptions } from '../../src/bot/feed.js';
import { sqliteFeedStore } from '../../src/bot/feed-store.js';
import { lookupError } from '../../src/lookup/errors.js';
import { createLookupCache } from '../../src/lookup/cache.js';
import { LookupClient } from '../../src/lookup/client.js';
import type { Reply } from '../../src/embeds/index.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startService } from '../helpers/service.js';

const GUILD = '1180000000000000100';
const BAD = '1180000000000000401';
const GOOD = '1180000000000000402';

/**
 * A poller over `store` whose stats service knows no title_b player: each look is recorded in
 * `looked` by the identifier `identifierOf` gives the member's linked account.
 */
function pollerOfUnknownPlayers(store: FeedStore, identifierOf: (userId: string) => string | undefined, logger: Logger = pino({ level: 'silent' })) {
  const looked: string[] = [];
  const lookup = {
    sessions: (_title: string, _platform: string, identifier: string) => {
      looked.push(identifier);
      return Promise.resolve({ errors: [lookupError('not_found', 'No such player.')], meta: { source: 'network', fetchedAt: Date.now(), ageMs: 0 } });
    },
  };
  const poller = new FeedPoller({
    store,
    links: {
      get: (userId: string): Promise<LinkedAccount> => Promise.resolve({ platform: 'pc_store_b', identifier: identifierOf(userId) ?? '', handle: 'x' }),
    } as unknown as Deps['links'],
    lookup: lookup as unknown as Deps['lookup'],
    poster: {} as Deps['poster'] & object,
    logger,
    requestsPerMinute: 120,
    now: () => Date.now(),
    tickMs: 20,
  });
  return { poller, looked };
}

describe('the session feed’s poller', () => {
  it('goes on to the players after one whose look fails, and says which one failed', async () => {
    const store = sqliteFeedStore(':memory:', 1_000);
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    await store.join({ guildId: GUILD, userId: BAD, title: 'title_b' });
    await store.join({ guildId: GUILD, userId: GOOD, title: 'title_b' });
    // The first player due has a state that does not read any more.
    store.db.prepare('INSERT INTO feed_players (key, value, until) VALUES (?, ?, ?)').run(`${BAD}|title_b`, '{not json', Date.now() + 60_000);
    const { poller, looked } = pollerOfUnknownPlayers(store, (userId) => (userId === BAD ? 'Bad' : 'Good'), logger);
    try {
      poller.start();
      for (let i = 0; i < 100 && looked.length === 0; i++) await sleep(20);
      expect(looked).toEqual(['Good']);
      expect(lines.find((l) => l.msg === 'session feed: looking at a player failed; they wait 5 minutes')).toMatchObject({ user: BAD, title: 'title_b' });
    } finally {
      await poller.stop();
      store.close();
    }
  });
});

describe('the session feed’s poller and servers whose feed is off', () => {
  it('looks only at members of a server whose feed is on, not at those of one switched off or never set', async () => {
    const store = sqliteFeedStore(':memory:', 1_000);
    const [ON, OFF, UNSET] = ['1180000000000000101', '1180000000000000102', '1180000000000000103'];
    await store.setGuild(ON, { channelId: '1180000000000000777', on: true });
    // Switched off (by /track off, or by Discord refusing its channel: the bot removed).
    await store.setGuild(OFF, { channelId: '1180000000000000778', on: false });
    // A member of each server, by user id: their account's identifier.
    const members = new Map([
      ['1180000000000000411', 'InOn'],
      ['1180000000000000412', 'InOff'],
      ['1180000000000000413', 'InUnset'],
    ]);
    const guildOf = [ON, OFF, UNSET];
    for (const [i, userId] of [...members.keys()].entries()) await store.join({ guildId: guildOf[i]!, userId, title: 'title_b' });
    const { poller, looked } = pollerOfUnknownPlayers(store, (userId) => members.get(userId));
    try {
      poller.start();
      for (let i = 0; i < 100 && looked.length === 0; i++) await sleep(20);
      // A few rounds more: the others would have been due at once too.
      await sleep(200);
      expect(looked).toEqual(['InOn']);
    } finally {
      await poller.stop();
      store.close();
    }
  });
});

describe('the session feed after the bot was down for a week', () => {
  it('takes the career as it finds it for a player whose look is that late, and still posts a session seen on time', async () => {
    // Ember#4471 (title_c, small dataset) has one match on record; both members last saw none.
    const { lookup, store, close } = await smallWorld();
    const LATE = '1180000000000000403';
    const ON_TIME = '1180000000000000404';
    let now = Date.parse('2026-11-20T12:00:00Z');
    const weekAgo = now - 7 * 86_400_000;
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    for (const userId of [LATE, ON_TIME]) await store.join({ guildId: GUILD, userId, title: 'title_c' });
    const none = { matches: 0, wins: 0, kills: 0, deaths: 0 };
    await store.setPlayer(`${LATE}|title_c`, {
      v: 1,
      platform: 'pc_store_c',
      identifier: 'Ember#4471',
      since: weekAgo,
      nextAt: weekAgo + 3_600_000,
      last: { at: weekAgo, ...none },
      pending: [],
    });
    await store.setPlayer(`${ON_TIME}|title_c`, {
      v: 1,
      platform: 'pc_store_c',
      identifier: 'Ember#4471',
      since: weekAgo,
      nextAt: now,
      last: { at: now - 3_600_000, ...none },
      pending: [],
    });
    const posts: { userId: string; reply: Reply }[] = [];
    const poller = emberPoller(
      store,
      lookup,
      (_channelId, reply) => (
        posts.push({ userId: /<@(\d+)>/.exec(reply.embeds[0]?.description ?? '')?.[1] ?? '', reply }),
        Promise.resolve({ ok: true as const })
      ),
      () => now,
    );
    try {
      poller.start();
      const seen = async (userId: string) => ((await store.player(`${userId}|title_c`)) as { last?: { matches: number } } | undefined)?.last?.matches === 1;
      for (let i = 0; i < 200 && !((await seen(LATE)) && (await seen(ON_TIME))); i++) await sleep(20);
      // 50 minutes on: the session seen growing on time has ended; nothing else has.
      now += 50 * 60_000;
      for (let i = 0; i < 300 && posts.length === 0; i++) await sleep(20);
      await sleep(300);
      expect(posts.map((p) => p.userId)).toEqual([ON_TIME]);
      expect(await store.player(`${LATE}|title_c`)).toMatchObject({ last: { matches: 1 } });
      expect(await store.player(`${LATE}|title_c`)).not.toHaveProperty('start');
    } finally {
      await poller.stop();
      await close();
    }
  }, 30_000);
});

/** The small dataset's stats service, a lookup client on it and a feed store in memory; `close` ends all three. */
async function smallWorld(): Promise<{ lookup: LookupClient; store: ReturnType<typeof sqliteFeedStore>; close: () => Promise<void> }> {
  const service = await startService(smallLines());
  const lookup = new LookupClient({ baseUrl: service.url, cache: await createLookupCache() });
  const store = sqliteFeedStore(':memory:', 1_000);
  return {
    lookup,
    store,
    close: async () => {
      store.close();
      await lookup.close();
      await service.close();
    },
  };
}

/**
 * A poller over `store` for members whose linked account is Ember#4471 (title_c), looking up with
 * `lookup` on the clock `now`, posting with `post`.
 */
function emberPoller(
  store: FeedStore,
  lookup: LookupClient,
  post: ChannelPoster['post'],
  now: () => number,
  options: Partial<FeedPollerOptions> = {},
): FeedPoller {
  return new FeedPoller({
    store,
    links: { get: () => Promise.resolve({ platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471' }) } as unknown as Deps['links'],
    lookup,
    poster: { post },
    logger: pino({ level: 'silent' }),
    requestsPerMinute: 600,
    now,
    tickMs: 20,
    ...options,
  });
}

/**
 * The poller's record of `member` following Ember#4471 (title_c, small dataset: one match on
 * record), last seen playing it two hours before `now`, from none: the first look finds that session over.
 */
function endedSession(store: FeedStore, member: string, now: number): Promise<void> {
  const none = { matches: 0, wins: 0, kills: 0, deaths: 0 };
  return store.setPlayer(`${member}|title_c`, {
    v: 1,
    platform: 'pc_store_c',
    identifier: 'Ember#4471',
    since: now - 86_400_000,
    nextAt: now,
    last: { at: now - 2 * 3_600_000, ...none, matches: 1 },
    start: { at: now - 3 * 3_600_000, ...none },
    growthAt: now - 2 * 3_600_000,
    pending: [],
  });
}

describe('the session feed when a process dies while it posts', () => {
  it('leaves the session to the next look once the claim lapses, which posts it with the same nonce', async () => {
    // Ember#4471 (title_c, small dataset) has one match on record; the member was last seen playing
    // it two hours ago, from none: the first look finds that session over.
    const { lookup, store, close } = await smallWorld();
    const MEMBER = '1180000000000000405';
    let now = Date.parse('2026-11-20T12:00:00Z');
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    await store.join({ guildId: GUILD, userId: MEMBER, title: 'title_c' });
    await endedSession(store, MEMBER, now);
    const poller = (post: ChannelPoster['post']) => emberPoller(store, lookup, post, () => now, { lockTtlMs: 500 });
    // The first process's post never comes back: it dies with it.
    const tried: (string | undefined)[] = [];
    const dying = poller((_channelId, _reply, options) => (tried.push(options?.nonce), new Promise(() => {})));
    const posted: (string | undefined)[] = [];
    const next = poller((_channelId, _reply, options) => (posted.push(options?.nonce), Promise.resolve({ ok: true as const })));
    const claim = () => store.db.prepare('SELECT posting FROM feed_posted').pluck().all();
    try {
      dying.start();
      for (let i = 0; i < 200 && tried.length === 0; i++) await sleep(20);
      expect(tried).toHaveLength(1);
      await dying.stop();
      // The next process looks while the dead one's claim still holds: it posts nothing yet, and keeps the session.
      next.start();
      for (let i = 0; i < 200 && next.counts.looks === 0; i++) await sleep(20);
      await sleep(200);
      expect(posted).toEqual([]);
      expect(claim()).toEqual([1]);
      expect(await store.player(`${MEMBER}|title_c`)).toMatchObject({ pending: [{ key: 'p:0-1' }] });
      // The claim lapses (POST_LEASE_MS), and the player's next look comes.
      store.db.prepare('UPDATE feed_posted SET until = 0').run();
      now += 3_600_000;
      for (let i = 0; i < 200 && posted.length === 0; i++) await sleep(20);
      await sleep(200);
      expect(posted).toEqual(tried);
      expect(claim()).toEqual([0]);
      expect(await store.player(`${MEMBER}|title_c`)).toMatchObject({ pending: [] });
    } finally {
      await Promise.all([dying.stop(), next.stop()]);
      await close();
    }
  }, 30_000);
});

describe('the session feed of servers in other languages', () => {
  it('posts one session in each server’s language: German where the channel was picked in a German server, English where none was given', async () => {
    // Ember#4471 (title_c, small dataset): one match on record, last seen playing it two hours ago.
    const { lookup, store, close } = await smallWorld();
    const MEMBER = '1180000000000000406';
    const GERMAN = '1180000000000000101';
    const now = Date.parse('2026-11-20T12:00:00Z');
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    await store.setGuild(GERMAN, { channelId: '1180000000000000778', on: true, locale: 'de' });
    for (const guildId of [GUILD, GERMAN]) await store.join({ guildId, userId: MEMBER, title: 'title_c' });
    await endedSession(store, MEMBER, now);
    const posts = new Map<string, Reply>();
    const poller = emberPoller(
      store,
      lookup,
      (channelId, reply) => (posts.set(channelId, reply), Promise.resolve({ ok: true as const })),
      () => now,
    );
    try {
      poller.start();
      for (let i = 0; i < 200 && posts.size < 2; i++) await sleep(20);
      const english = posts.get('1180000000000000777')?.embeds[0];
      const german = posts.get('1180000000000000778')?.embeds[0];
      expect(english?.author?.name).toBe('Title C · Session feed');
      expect(english?.description).toContain('### Session over');
      expect(german?.author?.name).toBe('Title C · Sitzungs-Feed');
      expect(german?.description).toContain('### Sitzung vorbei');
      expect(german?.description).toContain(`Sitzung von <@${MEMBER}>`);
      expect(german?.footer?.text).toContain('eine Sitzung endet nach 45 Minuten ohne Spiel');
      expect(german?.footer?.text).toContain('aus der Änderung der Karriere');
    } finally {
      await poller.stop();
      await close();
    }
  }, 30_000);
});

describe('the session feed when the store blips right after a post', () => {
  it('records the post once the store answers again and never posts the session a second time, even after its claim lapsed', async () => {
    // Ember#4471 (title_c, small dataset): one match on record, last seen playing it two hours ago.
    const { lookup, store, close } = await smallWorld();
    const MEMBER = '1180000000000000407';
    let now = Date.parse('2026-11-20T12:00:00Z');
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    await store.join({ guildId: GUILD, userId: MEMBER, title: 'title_c' });
    await endedSession(store, MEMBER, now);
    // Every call fails while `down`, as a Redis that stopped answering.
    let down = false;
    const blipping = Object.fromEntries(
      Object.entries(store).map(([name, value]) => [
        name,
        typeof value === 'function'
          ? (...args: unknown[]) =>
              down ? Promise.reject(new Error('the feed store did not answer')) : (value as (...a: unknown[]) => unknown).apply(store, args)
          : value,
      ]),
    ) as unknown as FeedStore;
    const posted: (string | undefined)[] = [];
    const poller = emberPoller(
      blipping,
      lookup,
      (_channelId, _reply, options) => {
        posted.push(options?.nonce);
        // The post went out; the store goes away before its record is written.
        down = true;
        return Promise.resolve({ ok: true as const });
      },
      () => now,
      { lockTtlMs: 500 },
    );
    const claim = () => store.db.prepare('SELECT posting FROM feed_posted').pluck().all();
    try {
      poller.start();
      for (let i = 0; i < 1_000 && posted.length === 0; i++) await sleep(20);
      expect(posted).toHaveLength(1);
      expect(claim()).toEqual([1]);
      // The blip outlasts the claim's lease (POST_LEASE_MS), and the player's next look comes due.
      store.db.prepare('UPDATE feed_posted SET until = 0').run();
      now += 3_600_000;
      down = false;
      for (let i = 0; i < 1_000 && claim()[0] !== 0; i++) await sleep(20);
      expect(claim()).toEqual([0]);
      // Looks go on, hours apart: the session is not posted again.
      const looks = poller.counts.looks;
      now += 3_600_000;
      for (let i = 0; i < 1_000 && poller.counts.looks === looks; i++) await sleep(20);
      await sleep(200);
      expect(poller.counts.looks).toBeGreaterThan(looks);
      expect(posted).toHaveLength(1);
    } finally {
      await poller.stop();
      await close();
    }
  }, 30_000);
});

describe('the session feed and the history', () => {
  it('keeps a followed player’s day from each career it reads, on the feed’s clock', async () => {
    const { lookup, store, close } = await smallWorld();
    const MEMBER = '1180000000000000406';
    const now = Date.parse('2026-11-20T12:00:00Z');
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    await store.join({ guildId: GUILD, userId: MEMBER, title: 'title_c' });
    let kept!: (day: unknown[]) => void;
    const recorded = new Promise<unknown[]>((resolve) => (kept = resolve));
    const history = { days: () => Promise.resolve([]), record: (...args: unknown[]) => (kept(args), Promise.resolve()) };
    const poller = emberPoller(
      store,
      lookup,
      () => Promise.resolve({ ok: true as const }),
      () => now,
      { history },
    );
    try {
      poller.start();
      const [title, platform, identifier, day] = await recorded;
      expect([title, platform, identifier]).toEqual(['title_c', 'pc_store_c', 'Ember#4471']);
      expect(day).toMatchObject({ day: '2026-11-20', matches: 1 });
    } finally {
      await poller.stop();
      await close();
    }
  }, 30_000);
});

describe('the session feed of a server that takes verified accounts only', () => {
  it('posts a verified member’s session there, and not one linked by hand', async () => {
    const { lookup, store, close } = await smallWorld();
    const [HAND, VERIFIED] = ['1180000000000000407', '1180000000000000408'];
    const now = Date.parse('2026-11-20T12:00:00Z');
    await store.setGuild(GUILD, { channelId: '1180000000000000777', on: true });
    for (const member of [HAND, VERIFIED]) {
      await store.join({ guildId: GUILD, userId: member, title: 'title_c' });
      await endedSession(store, member, now);
    }
    const posted: string[] = [];
    const poller = emberPoller(
      store,
      lookup,
      (_channelId, reply) => (posted.push(/<@(\d+)>/.exec(reply.embeds[0]?.description ?? '')?.[1] ?? ''), Promise.resolve({ ok: true as const })),
      () => now,
      {
        links: {
          get: (userId: string) => Promise.resolve({ platform: 'pc_store_c', identifier: 'Ember#4471', handle: 'Ember#4471', verified: userId === VERIFIED }),
        } as unknown as Deps['links'],
        servers: { get: () => Promise.resolve({ feedVerifiedOnly: true }), set: () => Promise.resolve() },
      },
    );
    try {
      poller.start();
      // Both members looked at, their sessions over: the verified one's posted, the other's not.
      const seen = async (userId: string) => ((await store.player(`${userId}|title_c`)) as { start?: unknown } | undefined)?.start === undefined;
      for (let i = 0; i < 300 && !(posted.length > 0 && (await seen(HAND)) && (await seen(VERIFIED))); i++) await sleep(20);
      expect(posted).toEqual([VERIFIED]);
    } finally {
      await poller.stop();
      await close();
    }
  }, 30_000);
});
