// Where the session feed keeps its state: servers' feed settings, members' opt-ins, the poller's
// last look at each player, the sessions already posted and the one-poller lock. Redis when
// CACHE_URL is set (sets for opt-ins, SET NX for posts and the lock, so that several bot processes
// never race), else tables in the links' SQLite file. Every call has a deadline; a failure throws
// StoreUnavailableError.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import Database from 'better-sqlite3';
import { z } from 'zod';

import type { FeedStore, FeedSubscription, GuildFeed } from '../../commands/index.js';
import { TITLE_SLUGS, isTitle } from '../catalog/index.js';
import { storeGuard } from './store-guard.js';
import type { TextKey } from '../locales/index.js';

/** Members a server's feed follows at most (per title counted apart). */
export const MAX_FEED_PER_SERVER = 1_000;
/** Opt-ins the whole bot follows at most: what the poller's schedule holds in memory. */
export const MAX_FEED_SUBSCRIPTIONS = 20_000;
/** How long a posted session is remembered: far longer than a session can be seen as new. */
export const POSTED_TTL_MS = 30 * 24 * 3_600_000;
/**
 * How long a claim to post a session holds before it is posted: past the longest post (four tries
 * of 10 s at Discord, a second, four more) so that a slow post is not claimed again under it, and
 * short enough that a session whose process died mid-post is posted by the next look after it.
 */
export const POST_LEASE_MS = 2 * 60_000;
/**
 * How long the poller's last look at a player is kept after it was written: the poller writes it at
 * every look (hourly at least), so only a player nobody follows any more is forgotten.
 */
export const PLAYER_STATE_TTL_MS = 30 * 24 * 3_600_000;

const GuildFeedSchema = z.object({
  channelId: z.string().min(1),
  on: z.boolean(),
  off: z.object({ code: z.number(), at: z.string() }).optional(),
  // A language it cannot read leaves the posts in English rather than the feed unreadable.
  locale: z.string().max(20).optional().catch(undefined),
});

const subOf = (guildId: string, member: string): FeedSubscription | undefined => {
  const [userId, title] = member.split('|');
  return userId && title && isTitle(title) ? { guildId, userId, title } : undefined;
};

const TOLD = { read: 'store.feedUnreadable', write: 'store.feedNotSaved', late: 'store.saveLate', poller: 'store.feedUnreadable' } as const satisfies Record<
  string,
  TextKey
>;

/** The feed's tables in the links' SQLite file (a connection of its own). */
export function sqliteFeedStore(path: string, timeoutMs: number): FeedStore & { close(): void; db: Database.Database } {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 250 });
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 250');
  db.exec(`
    CREATE TABLE IF NOT EXISTS feed_guilds (guild_id TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS feed_subs (guild_id TEXT NOT NULL, user_id TEXT NOT NULL, title TEXT NOT NULL, PRIMARY KEY (guild_id, user_id, title)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS feed_players (key TEXT PRIMARY KEY, value TEXT NOT NULL, until INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS feed_posted (key TEXT PRIMARY KEY, until INTEGER NOT NULL, posting INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS feed_lock (name TEXT PRIMARY KEY, owner TEXT NOT NULL, until INTEGER NOT NULL) WITHOUT ROWID;
  `);
  // A file from before states expired: its states count as written now.
  if (!db.prepare("SELECT 1 FROM pragma_table_info('feed_players') WHERE name = 'until'").get()) {
    db.exec('ALTER TABLE feed_players ADD COLUMN until INTEGER NOT NULL DEFAULT 0');
    db.prepare('UPDATE feed_players SET until = ?').run(Date.now() + PLAYER_STATE_TTL_MS);
  }
  // A file from before claims were leases: its claims were all posts made.
  if (!db.prepare("SELECT 1 FROM pragma_table_info('feed_posted') WHERE name = 'posting'").get())
    db.exec('ALTER TABLE feed_posted ADD COLUMN posting INTEGER NOT NULL DEFAULT 0');
  let playerWrites = 0;
  const s = {
    guild: db.prepare('SELECT value FROM feed_guilds WHERE guild_id = ?').pluck(),
    setGuild: db.prepare('INSERT INTO feed_guilds (guild_id, value) VALUES (?, ?) ON CONFLICT (guild_id) DO UPDATE SET value = excluded.value'),
    countGuild: db.prepare('SELECT count(*) FROM feed_subs WHERE guild_id = ?').pluck(),
    countAll: db.prepare('SELECT count(*) FROM feed_subs').pluck(),
    join: db.prepare('INSERT OR IGNORE INTO feed_subs (guild_id, user_id, title) VALUES (?, ?, ?)'),
    leaveOne: db.prepare('DELETE FROM feed_subs WHERE guild_id = ? AND user_id = ? AND title = ?'),
    leaveAll: db.prepare('DELETE FROM feed_subs WHERE guild_id = ? AND user_id = ?'),
    following: db.prepare('SELECT title FROM feed_subs WHERE guild_id = ? AND user_id = ? ORDER BY title').pluck(),
    all: db.prepare('SELECT guild_id, user_id, title FROM feed_subs LIMIT ?').raw(),
    player: db.prepare('SELECT value FROM feed_players WHERE key = ?').pluck(),
    setPlayer: db.prepare(
      'INSERT INTO feed_players (key, value, until) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value, until = excluded.until',
    ),
    sweepPlayers: db.prepare('DELETE FROM feed_players WHERE until < ?'),
    claim: db.prepare(
      'INSERT INTO feed_posted (key, until, posting) VALUES (?, ?, 1) ON CONFLICT (key) DO UPDATE SET until = excluded.until, posting = 1 WHERE feed_posted.until < ?',
    ),
    claimed: db.prepare('SELECT posting FROM feed_posted WHERE key = ?').pluck(),
    posted: db.prepare('UPDATE feed_posted SET until = ?, posting = 0 WHERE key = ?'),
    unclaim: db.prepare('DELETE FROM feed_posted WHERE key = ?'),
    sweep: db.prepare('DELETE FROM feed_posted WHERE until < ?'),
    lock: db.prepare(
      "INSERT INTO feed_lock (name, owner, until) VALUES ('poller', ?, ?) ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, until = excluded.until WHERE feed_lock.owner = excluded.owner OR feed_lock.until < ?",
    ),
    unlock: db.prepare("DELETE FROM feed_lock WHERE name = 'poller' AND owner = ?"),
  };
  const run = storeGuard(timeoutMs, 'the feed store');
  const join = db.transaction((sub: FeedSubscription): 'joined' | 'already' | 'full' => {
    if ((s.following.all(sub.guildId, sub.userId) as string[]).includes(sub.title)) return 'already';
    if ((s.countGuild.get(sub.guildId) as number) >= MAX_FEED_PER_SERVER || (s.countAll.get() as number) >= MAX_FEED_SUBSCRIPTIONS) return 'full';
    s.join.run(sub.guildId, sub.userId, sub.title);
    return 'joined';
  });
  return {
    db,
    guild: (guildId) =>
      run(() => {
        const text = s.guild.get(guildId) as string | undefined;
        const parsed = text === undefined ? undefined : GuildFeedSchema.safeParse(JSON.parse(text));
        return parsed?.success ? parsed.data : undefined;
      }, TOLD.read),
    setGuild: (guildId, feed) => run(() => void s.setGuild.run(guildId, JSON.stringify(feed)), TOLD.write, TOLD.late),
    join: (sub) => run(() => join(sub), TOLD.write, TOLD.late),
    leave: (guildId, userId, title) =>
      run(() => (title ? s.leaveOne.run(guildId, userId, title) : s.leaveAll.run(guildId, userId)).changes, TOLD.write, TOLD.late),
    following: (guildId, userId) => run(() => (s.following.all(guildId, userId) as string[]).filter(isTitle), TOLD.read),
    count: (guildId) => run(() => s.countGuild.get(guildId) as number, TOLD.read),
    all: () =>
      run(
        () =>
          (s.all.all(MAX_FEED_SUBSCRIPTIONS) as [string, string, string][]).flatMap(([guildId, userId, title]) =>
            isTitle(title) ? [{ guildId, userId, title }] : [],
          ),
        TOLD.poller,
      ),
    player: (key) =>
      run(() => {
        const text = s.player.get(key) as string | undefined;
        return text === undefined ? undefined : (JSON.parse(text) as unknown);
      }, TOLD.poller),
    setPlayer: (key, state) =>
      run(() => {
        const now = Date.now();
        // The first write of a process and every hundredth after it take out what has lapsed.
        if (playerWrites++ % 100 === 0) s.sweepPlayers.run(now);
        s.setPlayer.run(key, JSON.stringify(state), now + PLAYER_STATE_TTL_MS);
      }, TOLD.poller),
    claim: (key) =>
      run(() => {
        const now = Date.now();
        if (Math.random() < 0.01) s.sweep.run(now);
        if (s.claim.run(key, now + POST_LEASE_MS, now).changes > 0) return 'mine' as const;
        return s.claimed.get(key) === 1 ? ('posting' as const) : ('posted' as const);
      }, TOLD.poller),
    posted: (key) => run(() => void s.posted.run(Date.now() + POSTED_TTL_MS, key), TOLD.poller),
    unclaim: (key) => run(() => void s.unclaim.run(key), TOLD.poller),
    lock: (owner, ttlMs) =>
      run(() => {
        const now = Date.now();
        return s.lock.run(owner, now + ttlMs, now).changes > 0;
      }, TOLD.poller),
    unlock: (owner) => run(() => void s.unlock.run(owner), TOLD.poller),
    close: () => db.close(),
  };
}

/** What a claim's key holds in Redis while its post is under way. */
const POSTING = 'posting';

// Renews the lock only while this owner holds it.
const RENEW = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end";
const RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

/** The feed in Redis, shared by every bot process: opt-ins in sets, posts and the lock by SET NX. */
export async function redisFeedStore(
  url: string,
  namespace: string,
  timeoutMs: number,
): Promise<FeedStore & { close(): Promise<void>; ready: Promise<unknown> }> {
  const { redisClient } = await import('../lookup/redis.js');
  const { client, ready } = redisClient(url);
  const run = storeGuard(timeoutMs, 'the feed store');
  const k = {
    guild: (g: string) => `${namespace}-feed:guild:${g}`,
    subs: `${namespace}-feed:subs`,
    guildSubs: (g: string) => `${namespace}-feed:subs:${g}`,
    player: (key: string) => `${namespace}-feed:player:${key}`,
    posted: (key: string) => `${namespace}-feed:posted:${key}`,
    lock: `${namespace}-feed:lock`,
  };
  const store: FeedStore = {
    guild: (guildId) =>
      run(async () => {
        const text = await client.get(k.guild(guildId));
        const parsed = text === null ? undefined : GuildFeedSchema.safeParse(JSON.parse(text));
        return parsed?.success ? parsed.data : undefined;
      }, TOLD.read),
    setGuild: (guildId, feed: GuildFeed) => run(async () => void (await client.set(k.guild(guildId), JSON.stringify(feed))), TOLD.write, TOLD.late),
    join: (sub) =>
      run(
        async () => {
          const member = `${sub.userId}|${sub.title}`;
          if (await client.sIsMember(k.guildSubs(sub.guildId), member)) return 'already' as const;
          // A bound, not an exact count: two joins at once may both pass it.
          if ((await client.sCard(k.guildSubs(sub.guildId))) >= MAX_FEED_PER_SERVER || (await client.sCard(k.subs)) >= MAX_FEED_SUBSCRIPTIONS)
            return 'full' as const;
          await client.multi().sAdd(k.guildSubs(sub.guildId), member).sAdd(k.subs, `${sub.guildId}|${member}`).exec();
          return 'joined' as const;
        },
        TOLD.write,
        TOLD.late,
      ),
    leave: (guildId, userId, title) =>
      run(
        async () => {
          const titles = title ? [title] : [...TITLE_SLUGS];
          const members = titles.map((t) => `${userId}|${t}`);
          const [removed] = await client
            .multi()
            .sRem(k.guildSubs(guildId), members)
            .sRem(
              k.subs,
              members.map((m) => `${guildId}|${m}`),
            )
            .exec();
          return Number(removed);
        },
        TOLD.write,
        TOLD.late,
      ),
    following: (guildId, userId) =>
      run(async () => {
        const flags = await client.smIsMember(
          k.guildSubs(guildId),
          TITLE_SLUGS.map((t) => `${userId}|${t}`),
        );
        return TITLE_SLUGS.filter((_, i) => Number(flags[i]) === 1);
      }, TOLD.read),
    count: (guildId) => run(() => client.sCard(k.guildSubs(guildId)), TOLD.read),
    all: () =>
      run(async () => {
        const out: FeedSubscription[] = [];
        for await (const batch of client.sScanIterator(k.subs, { COUNT: 500 })) {
          for (const entry of batch) {
            const cut = entry.indexOf('|');
            const sub = subOf(entry.slice(0, cut), entry.slice(cut + 1));
            if (sub) out.push(sub);
          }
          if (out.length >= MAX_FEED_SUBSCRIPTIONS) break;
        }
        return out.slice(0, MAX_FEED_SUBSCRIPTIONS);
      }, TOLD.poller),
    player: (key) =>
      run(async () => {
        const text = await client.get(k.player(key));
        return text === null ? undefined : (JSON.parse(text) as unknown);
      }, TOLD.poller),
    setPlayer: (key, state) => run(async () => void (await client.set(k.player(key), JSON.stringify(state), { PX: PLAYER_STATE_TTL_MS })), TOLD.poller),
    // A claim holds "posting" for its lease, then "posted" (a key from before leases holds a time: posted too).
    claim: (key) =>
      run(async () => {
        if ((await client.set(k.posted(key), POSTING, { NX: true, PX: POST_LEASE_MS })) === 'OK') return 'mine' as const;
        const value = await client.get(k.posted(key));
        // Lapsed between the two calls: claimed again at the next look.
        return value === POSTING || value === null ? ('posting' as const) : ('posted' as const);
      }, TOLD.poller),
    posted: (key) => run(async () => void (await client.set(k.posted(key), String(Date.now()), { PX: POSTED_TTL_MS })), TOLD.poller),
    unclaim: (key) => run(async () => void (await client.del(k.posted(key))), TOLD.poller),
    lock: (owner, ttlMs) =>
      run(async () => {
        if ((await client.set(k.lock, owner, { NX: true, PX: ttlMs })) === 'OK') return true;
        return Number(await client.eval(RENEW, { keys: [k.lock], arguments: [owner, String(ttlMs)] })) === 1;
      }, TOLD.poller),
    unlock: (owner) => run(async () => void (await client.eval(RELEASE, { keys: [k.lock], arguments: [owner] })), TOLD.poller),
  };
  return {
    ...store,
    ready,
    close: () => {
      if (client.isOpen) client.destroy();
      return Promise.resolve();
    },
  };
}

/**
 * Moves the feed's settings, opt-ins, last looks and posted sessions from the links' SQLite file to
 * Redis, with the links (before the file is renamed): a server's setting already in Redis wins.
 */
export async function moveFeedToRedis(path: string, redis: FeedStore): Promise<{ servers: number; members: number }> {
  const file = sqliteFeedStore(path, 5_000);
  let servers = 0;
  let members = 0;
  try {
    for (const [guildId, text] of file.db.prepare('SELECT guild_id, value FROM feed_guilds').raw().all() as [string, string][]) {
      const parsed = GuildFeedSchema.safeParse(JSON.parse(text));
      if (!parsed.success || (await redis.guild(guildId))) continue;
      await redis.setGuild(guildId, parsed.data);
      servers++;
    }
    for (const sub of await file.all()) if ((await redis.join(sub)) === 'joined') members++;
    for (const [key, text] of file.db.prepare('SELECT key, value FROM feed_players').raw().all() as [string, string][])
      if ((await redis.player(key)) === undefined) await redis.setPlayer(key, JSON.parse(text) as unknown);
    for (const key of file.db.prepare('SELECT key FROM feed_posted WHERE until > ? AND posting = 0').pluck().all(Date.now()) as string[])
      if ((await redis.claim(key)) === 'mine') await redis.posted(key);
  } finally {
    file.close();
  }
  return { servers, members };
}
