// The session feed's store, in an SQLite file and in Redis: opt-ins as rows or set members (no
// read-modify-write), a session claimed once across stores, one poller lock holder at a time, and
// the move from the links file to Redis taking the feed along.
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { createClient } from '@keyv/redis';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

import type { FeedStore } from '../../commands/index.js';
import { PLAYER_STATE_TTL_MS, redisFeedStore, sqliteFeedStore } from '../../src/bot/feed-store.js';
import { createBotStores } from '../../src/bot/stores.js';

const namespaces: string[] = [];
afterAll(async () => {
  const redis = createClient({ url: 'redis://127.0.0.1:6379' });
  await redis.connect();
  for (const ns of namespaces) for (const k of await redis.keys(`${ns}-*`)) await redis.del(k);
  redis.destroy();
});

/** Two handles on one store, as two bot processes have. */
async function pair(kind: 'sqlite' | 'redis'): Promise<{ a: FeedStore; b: FeedStore; close: () => Promise<void> }> {
  if (kind === 'sqlite') {
    const path = join(mkdtempSync(join(tmpdir(), 'feed-store-')), 'links.sqlite');
    const a = sqliteFeedStore(path, 1_000);
    const b = sqliteFeedStore(path, 1_000);
    return {
      a,
      b,
      close: () => {
        a.close();
        b.close();
        return Promise.resolve();
      },
    };
  }
  const ns = `feed-store-${randomUUID()}`;
  namespaces.push(ns);
  const a = await redisFeedStore('redis://127.0.0.1:6379', ns, 1_000);
  const b = await redisFeedStore('redis://127.0.0.1:6379', ns, 1_000);
  await Promise.all([a.ready, b.ready]);
  return { a, b, close: async () => (await a.close(), await b.close()) };
}

describe.each(['sqlite', 'redis'] as const)('the feed store in %s', (kind) => {
  it('keeps opt-ins per server and member, each once, and joins from two processes at once all count', async () => {
    const { a, b, close } = await pair(kind);
    try {
      expect(await a.join({ guildId: 'g1', userId: 'u1', title: 'title_b' })).toBe('joined');
      expect(await b.join({ guildId: 'g1', userId: 'u1', title: 'title_b' })).toBe('already');
      await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).join({ guildId: 'g1', userId: `m${i}`, title: 'title_c' })));
      expect(await a.count('g1')).toBe(21);
      expect(await b.following('g1', 'u1')).toEqual(['title_b']);
      await a.join({ guildId: 'g2', userId: 'u1', title: 'title_c' });
      expect((await b.all()).filter((s) => s.userId === 'u1')).toEqual(
        expect.arrayContaining([
          { guildId: 'g1', userId: 'u1', title: 'title_b' },
          { guildId: 'g2', userId: 'u1', title: 'title_c' },
        ]),
      );
      expect(await b.leave('g1', 'u1')).toBe(1);
      expect(await a.following('g1', 'u1')).toEqual([]);
      expect(await a.following('g2', 'u1')).toEqual(['title_c']);
      await a.setGuild('g1', { channelId: '1180000000000000777', on: false, off: { code: 50013, at: '2026-11-20T20:00:00.000Z' } });
      expect(await b.guild('g1')).toEqual({ channelId: '1180000000000000777', on: false, off: { code: 50013, at: '2026-11-20T20:00:00.000Z' } });
      expect(await b.guild('g3')).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('keeps the language a server’s feed posts in, and reads a setting with a language it cannot read as English', async () => {
    const { a, b, close } = await pair(kind);
    try {
      await a.setGuild('g1', { channelId: '1180000000000000777', on: true, locale: 'pt-BR' });
      expect(await b.guild('g1')).toEqual({ channelId: '1180000000000000777', on: true, locale: 'pt-BR' });
      await a.setGuild('g2', { channelId: '1180000000000000778', on: true, locale: 'x'.repeat(500) });
      expect(await b.guild('g2')).toEqual({ channelId: '1180000000000000778', on: true });
    } finally {
      await close();
    }
  });

  it('claims a session once across processes, and a claim taken back can be made again', async () => {
    const { a, b, close } = await pair(kind);
    try {
      const claims = await Promise.all([a.claim('g1|u1|s:1'), b.claim('g1|u1|s:1'), a.claim('g1|u1|s:1'), b.claim('g1|u1|s:1')]);
      expect(claims.sort()).toEqual(['mine', 'posting', 'posting', 'posting']);
      await b.unclaim('g1|u1|s:1');
      expect(await a.claim('g1|u1|s:1')).toBe('mine');
      await a.posted('g1|u1|s:1');
      expect(await b.claim('g1|u1|s:1')).toBe('posted');
    } finally {
      await close();
    }
  });

  it('lets a claim whose post was never made lapse, and keeps a posted one', async () => {
    const { a, b, close } = await pair(kind);
    // What POST_LEASE_MS does to a claim, done at once: the store's clock is the real one.
    const lapse = async (key: string) => {
      if (kind === 'sqlite') (a as FeedStore & { db: Database.Database }).db.prepare('UPDATE feed_posted SET until = 0 WHERE key = ? AND posting = 1').run(key);
      else {
        const redis = createClient({ url: 'redis://127.0.0.1:6379' });
        await redis.connect();
        for (const k of await redis.keys(`*-feed:posted:${key}`)) if ((await redis.get(k)) === 'posting') await redis.pExpire(k, 1);
        redis.destroy();
        await sleep(20);
      }
    };
    try {
      expect(await a.claim('g1|u1|s:2')).toBe('mine');
      await lapse('g1|u1|s:2');
      expect(await b.claim('g1|u1|s:2')).toBe('mine');
      await b.posted('g1|u1|s:2');
      await lapse('g1|u1|s:2');
      expect(await a.claim('g1|u1|s:2')).toBe('posted');
    } finally {
      await close();
    }
  });

  it('lets one owner hold the poller lock, renewing it, until it lapses or is let go', async () => {
    const { a, b, close } = await pair(kind);
    try {
      expect(await a.lock('one', 300)).toBe(true);
      expect(await b.lock('two', 300)).toBe(false);
      expect(await a.lock('one', 300)).toBe(true);
      await sleep(450);
      expect(await b.lock('two', 300)).toBe(true);
      expect(await a.lock('one', 300)).toBe(false);
      await b.unlock('two');
      expect(await a.lock('one', 300)).toBe(true);
    } finally {
      await close();
    }
  });
});

describe('moving the links file to Redis', () => {
  it('moves the feed’s settings, opt-ins, last looks and posted sessions with the links', async () => {
    const linksPath = join(mkdtempSync(join(tmpdir(), 'feed-move-')), 'links.sqlite');
    const file = await createBotStores({ namespace: 't', linksPath });
    await file.feed.setGuild('g1', { channelId: '1180000000000000777', on: true });
    await file.feed.join({ guildId: 'g1', userId: 'u1', title: 'title_b' });
    await file.feed.setPlayer('u1|title_b', { v: 1, since: 1 });
    expect(await file.feed.claim('g1|u1|s:1')).toBe('mine');
    await file.feed.posted('g1|u1|s:1');
    // A claim whose post was not made (yet) stays behind: it would lapse anyway.
    expect(await file.feed.claim('g1|u1|s:2')).toBe('mine');
    await file.close();
    const namespace = `feed-move-${randomUUID()}`;
    namespaces.push(namespace);
    const redis = await createBotStores({ namespace, linksPath, redisUrl: 'redis://127.0.0.1:6379' });
    try {
      expect(existsSync(`${linksPath}.moved-to-redis`)).toBe(true);
      expect(await redis.feed.guild('g1')).toEqual({ channelId: '1180000000000000777', on: true });
      expect(await redis.feed.following('g1', 'u1')).toEqual(['title_b']);
      expect(await redis.feed.player('u1|title_b')).toEqual({ v: 1, since: 1 });
      expect(await redis.feed.claim('g1|u1|s:1')).toBe('posted');
      expect(await redis.feed.claim('g1|u1|s:2')).toBe('mine');
    } finally {
      await redis.close();
    }
  });
});

describe('a links file from before claims were leases', () => {
  it('takes its claims as posts made', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'feed-old-')), 'links.sqlite');
    const old = new Database(path);
    old.exec('CREATE TABLE feed_posted (key TEXT PRIMARY KEY, until INTEGER NOT NULL) WITHOUT ROWID');
    old.prepare('INSERT INTO feed_posted (key, until) VALUES (?, ?)').run('g1|u1|s:1', Date.now() + 86_400_000);
    old.close();
    const store = sqliteFeedStore(path, 1_000);
    try {
      expect(await store.claim('g1|u1|s:1')).toBe('posted');
      expect(await store.claim('g1|u1|s:2')).toBe('mine');
    } finally {
      store.close();
    }
  });
});

describe('the poller’s last look at a player', () => {
  it('lapses in Redis 30 days after it was last written', async () => {
    const { a, close } = await pair('redis');
    try {
      await a.setPlayer('1180000000000000401|title_b', { v: 1, nextAt: 0 });
      const redis = createClient({ url: 'redis://127.0.0.1:6379' });
      await redis.connect();
      const ns = namespaces.at(-1)!;
      const ttl = await redis.pTTL(`${ns}-feed:player:1180000000000000401|title_b`);
      redis.destroy();
      expect(ttl).toBeGreaterThan(PLAYER_STATE_TTL_MS - 60_000);
      expect(ttl).toBeLessThanOrEqual(PLAYER_STATE_TTL_MS);
    } finally {
      await close();
    }
  });

  it('lapses in SQLite too, and a file from before lapses keeps its states for 30 days', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'feed-store-')), 'links.sqlite');
    // A file as the feed made it before states lapsed.
    const old = new Database(path);
    old.exec('CREATE TABLE feed_players (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    old.prepare('INSERT INTO feed_players (key, value) VALUES (?, ?)').run('kept|title_b', '{"v":1}');
    old.close();
    const store = sqliteFeedStore(path, 1_000);
    try {
      const until = () => Object.fromEntries(store.db.prepare('SELECT key, until FROM feed_players').raw().all() as [string, number][]);
      expect(until()['kept|title_b']).toBeGreaterThan(Date.now() + PLAYER_STATE_TTL_MS - 60_000);
      expect(await store.player('kept|title_b')).toEqual({ v: 1 });
      // One nobody looked at for longer than that is taken out at the next write.
      store.db.prepare('UPDATE feed_players SET until = ? WHERE key = ?').run(Date.now() - 1, 'kept|title_b');
      await store.setPlayer('new|title_b', { v: 1, nextAt: 0 });
      expect(Object.keys(until())).toEqual(['new|title_b']);
      expect(until()['new|title_b']).toBeGreaterThan(Date.now() + PLAYER_STATE_TTL_MS - 60_000);
    } finally {
      store.close();
    }
  });
});
