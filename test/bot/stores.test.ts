// The bot's stores: in Redis, what one bot process stores another reads; in an SQLite file, what
// one run stores the next reads.
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { createClient } from '@keyv/redis';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

import Database from 'better-sqlite3';

import { StoreUnavailableError } from '../../commands/index.js';
import { MAX_MEMBERS_PER_SERVER, MAX_VERIFY_STATES, createBotStores } from '../../src/bot/stores.js';

/** Takes a test's keys out of the shared Redis. */
async function dropNamespace(namespace: string): Promise<void> {
  const client = createClient({ url: 'redis://127.0.0.1:6379' });
  await client.connect();
  for (const k of await client.keys(`${namespace}-*`)) await client.del(k);
  client.destroy();
}

describe('bot stores on Redis', () => {
  it('share links and views between processes', async () => {
    const namespace = `stores-${randomUUID()}`;
    const options = { redisUrl: 'redis://127.0.0.1:6379', namespace, linksPath: ':memory:' };
    const a = await createBotStores(options);
    const b = await createBotStores(options);
    try {
      await a.links.set('u1', 'title_c', { platform: 'pc_store_c', identifier: 'Nova#2231', handle: 'Nova#2231' });
      expect(await b.links.get('u1', 'title_c')).toEqual({ platform: 'pc_store_c', identifier: 'Nova#2231', handle: 'Nova#2231' });
      expect(await b.links.get('u1', 'title_a')).toBeUndefined();
      const id = await a.views.save({ kind: 'search', title: 'title_c', platform: 'pc_store_c', query: 'nov', ownerId: 'u1' });
      expect(await b.views.load(id)).toEqual({ kind: 'search', title: 'title_c', platform: 'pc_store_c', query: 'nov', ownerId: 'u1' });
      expect(await b.views.load('no-such-view')).toBeUndefined();
      expect(await b.links.delete('u1', 'title_c')).toBe(true);
      expect(await a.links.get('u1', 'title_c')).toBeUndefined();
      // Snapshots of a look and who is in a server are shared too.
      await a.snapshots.set('u1', 'title_c', { at: '2026-11-20T10:00:00.000Z', platform: 'pc_store_c', identifier: 'Nova#2231', matches: 46, kd: 1.48 });
      expect(await b.snapshots.get('u1', 'title_c')).toEqual({
        at: '2026-11-20T10:00:00.000Z',
        platform: 'pc_store_c',
        identifier: 'Nova#2231',
        matches: 46,
        kd: 1.48,
      });
      await a.members.add('g1', 'u1');
      await b.members.add('g1', 'u2');
      await a.members.add('g1', 'u1');
      expect(await b.members.list('g1')).toEqual(['u2', 'u1']);
      expect(await a.members.list('g2')).toEqual([]);
      // A player's history too, by identifier whatever its case, a day each; with a time to live in Redis.
      await a.history.record('title_c', 'pc_store_c', 'Nova#2231', { day: '2026-11-19', matches: 40, kd: 1.4 });
      await b.history.record('title_c', 'pc_store_c', 'nova#2231', { day: '2026-11-20', matches: 44, kd: 1.45, tier: 'Gold 2' });
      await a.history.record('title_c', 'pc_store_c', 'NOVA#2231', { day: '2026-11-20', matches: 46, kd: 1.48, tier: 'Gold 1' });
      expect(await b.history.days('title_c', 'pc_store_c', 'Nova#2231')).toEqual([
        { day: '2026-11-19', matches: 40, kd: 1.4 },
        { day: '2026-11-20', matches: 46, kd: 1.48, tier: 'Gold 1' },
      ]);
      expect(await a.history.days('title_c', 'console_a', 'Nova#2231')).toEqual([]);
      const client = createClient({ url: 'redis://127.0.0.1:6379' });
      await client.connect();
      const [key] = await client.keys(`${namespace}-history*`);
      expect(await client.pTTL(key!)).toBeGreaterThan(90 * 86_400_000);
      client.destroy();
      // An interaction taken by one process is taken for the other: it runs once, whichever worker a copy reaches.
      expect(await a.interactions.take('1180000000000000901')).toBe(true);
      expect(await b.interactions.take('1180000000000000901')).toBe(false);
      expect(await a.interactions.take('1180000000000000901')).toBe(false);
    } finally {
      await a.close();
      await b.close();
      await dropNamespace(namespace);
    }
  });
});

describe('verification’s states and grants, and servers’ settings', () => {
  it('take a state once across processes on Redis, and keep grants and settings where links are, in Redis or the file', async () => {
    const namespace = `stores-${randomUUID()}`;
    const options = { redisUrl: 'redis://127.0.0.1:6379', namespace, linksPath: ':memory:' };
    const [a, b] = [await createBotStores(options), await createBotStores(options)];
    const path = join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite');
    try {
      await a.verify.putState('s1', { browser: 'hash' });
      // Two workers take the same state at once (a replay racing the first): one of them has it.
      const taken = await Promise.all([a.verify.takeState('s1'), b.verify.takeState('s1')]);
      expect(taken.filter((t) => t !== undefined)).toEqual([{ browser: 'hash' }]);
      expect(await a.verify.takeState('s1')).toBeUndefined();
      await a.verify.setGrant('u1', { sealed: 'v1.x.y.z' });
      expect(await b.verify.grant('u1')).toEqual({ sealed: 'v1.x.y.z' });
      await a.servers.set('g1', { boardVerifiedOnly: true });
      expect(await b.servers.get('g1')).toEqual({ boardVerifiedOnly: true });
      // In the file: the same, kept across a restart, and moved to Redis with the links.
      const file = await createBotStores({ namespace, linksPath: path });
      await file.verify.setGrant('u2', { sealed: 'v1.f.i.le' });
      await file.servers.set('g2', { boardMinMatches: 3 });
      await file.close();
      const moved = await createBotStores({ ...options, linksPath: path });
      expect(await moved.verify.grant('u2')).toEqual({ sealed: 'v1.f.i.le' });
      expect(await moved.servers.get('g2')).toEqual({ boardMinMatches: 3 });
      await moved.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
      await dropNamespace(namespace);
    }
  });
});

describe('verifications under way in the SQLite file', () => {
  it('are swept once past their time, and bounded: anyone can open /verify', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'links-')), 'links.sqlite');
    const namespace = 'bounded';
    const stores = await createBotStores({ namespace, linksPath: path });
    const db = new Database(path);
    const row = db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?)');
    try {
      // A verification started an hour ago and left: its row goes at the next start.
      row.run(`${namespace}-verify-states:left`, JSON.stringify({ value: { browser: 'x' }, expires: Date.now() - 3_600_000 }));
      await stores.verify.putState('new', { browser: 'y' });
      const keys = () => db.prepare("SELECT key FROM keyv WHERE key LIKE '%verify-states:%'").pluck().all();
      expect(keys()).toEqual([`${namespace}-verify-states:new`]);
      // As many under way as it keeps: the next is refused, nothing written.
      db.transaction(() => {
        for (let i = 0; i < MAX_VERIFY_STATES; i++)
          row.run(`${namespace}-verify-states:s${i}`, JSON.stringify({ value: { browser: 'z' }, expires: Date.now() + 600_000 }));
      })();
      await expect(stores.verify.putState('one-more', { browser: 'w' })).rejects.toThrow(StoreUnavailableError);
      expect(keys()).not.toContain(`${namespace}-verify-states:one-more`);
    } finally {
      db.close();
      await stores.close();
    }
  });
});

describe('bot stores in an SQLite file', () => {
  it('keep snapshots, histories and server members across a restart, members bounded per server, a history to its last 90 days', async () => {
    const linksPath = join(mkdtempSync(join(tmpdir(), 'stores-')), 'links.sqlite');
    const a = await createBotStores({ namespace: 't', linksPath });
    await a.snapshots.set('u1', 'title_b', { at: '2026-11-20T10:00:00.000Z', platform: 'pc_store_b', identifier: 'Rift', matches: 3 });
    const day = (i: number) => new Date(Date.parse('2026-06-01T00:00:00Z') + i * 86_400_000).toISOString().slice(0, 10);
    for (let i = 0; i < 120; i++) await a.history.record('title_b', 'pc_store_b', 'Rift', { day: day(i), matches: i });
    for (let i = 0; i < MAX_MEMBERS_PER_SERVER + 5; i++) await a.members.add('g1', `m${i}`);
    await a.close();
    const b = await createBotStores({ namespace: 't', linksPath });
    try {
      expect(await b.snapshots.get('u1', 'title_b')).toMatchObject({ identifier: 'Rift', matches: 3 });
      const days = await b.history.days('title_b', 'pc_store_b', 'Rift');
      expect(days).toHaveLength(91);
      expect([days[0]?.day, days.at(-1)?.day]).toEqual([day(29), day(119)]);
      const members = await b.members.list('g1');
      expect(members).toHaveLength(MAX_MEMBERS_PER_SERVER);
      expect(members.at(0)).toBe('m5');
      expect(members.at(-1)).toBe(`m${MAX_MEMBERS_PER_SERVER + 4}`);
    } finally {
      await b.close();
    }
  });
});

describe('moving the SQLite file to Redis', () => {
  it('moves links, last looks and server members, whatever CACHE_NAMESPACE the file was written under; what Redis holds wins, members are merged', async () => {
    const linksPath = join(mkdtempSync(join(tmpdir(), 'stores-move-')), 'links.sqlite');
    const nova = { platform: 'pc_store_c', identifier: 'Nova#2231', handle: 'Nova#2231' } as const;
    const rift = { platform: 'pc_store_b', identifier: 'Rift', handle: 'Rift' } as const;
    const look = { at: '2026-11-20T10:00:00.000Z', platform: 'pc_store_c', identifier: 'Nova#2231', matches: 46 };
    // Written while the bot was called something else.
    const file = await createBotStores({ namespace: 'before-rename', linksPath });
    await file.links.set('u1', 'title_c', nova);
    await file.links.set('u2', 'title_c', nova);
    await file.snapshots.set('u1', 'title_c', look);
    await file.members.add('g1', 'u1');
    await file.members.add('g1', 'u2');
    await file.close();
    const namespace = `stores-move-${randomUUID()}`;
    const options = { redisUrl: 'redis://127.0.0.1:6379', namespace, linksPath: ':memory:' };
    const before = await createBotStores(options);
    await before.links.set('u2', 'title_c', rift);
    await before.members.add('g1', 'u3');
    await before.close();
    const redis = await createBotStores({ ...options, linksPath });
    try {
      expect(existsSync(linksPath)).toBe(false);
      expect(existsSync(`${linksPath}.moved-to-redis`)).toBe(true);
      expect(await redis.links.get('u1', 'title_c')).toEqual(nova);
      expect(await redis.links.get('u2', 'title_c')).toEqual(rift);
      expect(await redis.snapshots.get('u1', 'title_c')).toEqual(look);
      expect(await redis.members.list('g1')).toEqual(['u1', 'u2', 'u3']);
    } finally {
      await redis.close();
      await dropNamespace(namespace);
    }
  });
});

describe('going back from Redis to the SQLite file', () => {
  it('refuses to open a LINKS_DB that was moved to Redis, rather than start an empty one, and opens it renamed back', async () => {
    const linksPath = join(mkdtempSync(join(tmpdir(), 'stores-back-')), 'links.sqlite');
    const nova = { platform: 'pc_store_c', identifier: 'Nova#2231', handle: 'Nova#2231' } as const;
    const file = await createBotStores({ namespace: 't', linksPath });
    await file.links.set('u1', 'title_c', nova);
    await file.close();
    const namespace = `stores-back-${randomUUID()}`;
    const redis = await createBotStores({ redisUrl: 'redis://127.0.0.1:6379', namespace, linksPath });
    await redis.close();
    await dropNamespace(namespace);
    expect(existsSync(`${linksPath}.moved-to-redis`)).toBe(true);

    await expect(createBotStores({ namespace: 't', linksPath })).rejects.toThrow(
      `LINKS_DB (${linksPath}) was moved to Redis (${linksPath}.moved-to-redis): set CACHE_URL again, or rename that file back to ${linksPath} to use it without Redis (links made since in Redis are not in it)`,
    );
    expect(existsSync(linksPath)).toBe(false);

    renameSync(`${linksPath}.moved-to-redis`, linksPath);
    const back = await createBotStores({ namespace: 't', linksPath });
    try {
      expect(await back.links.get('u1', 'title_c')).toEqual(nova);
    } finally {
      await back.close();
    }

    // A file made anew beside the moved copy (by a start before this refusal existed) is used, with a warning at each start.
    copyFileSync(linksPath, `${linksPath}.moved-to-redis`);
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const beside = await createBotStores({ namespace: 't', linksPath, logger });
    await beside.close();
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual([
      'LINKS_DB is used without Redis, beside a copy moved to Redis before: the links in that copy are not read (rename it back in place of LINKS_DB to use them, or set CACHE_URL)',
    ]);
  });
});

describe('Redis that is not there at start', () => {
  it('is logged with why: the connection refused, or a password Redis does not take (never the password)', async () => {
    const reasons: string[] = [];
    for (const url of ['redis://127.0.0.1:1', 'redis://:not-the-password-1@127.0.0.1:6379']) {
      const lines: string[] = [];
      const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
      const stores = await createBotStores({ redisUrl: url, namespace: `absent-${randomUUID()}`, linksPath: ':memory:', logger, connectTimeoutMs: 1_500 });
      await stores.close();
      const warning = lines.map((l) => JSON.parse(l) as { msg: string; reason?: string }).find((l) => l.msg.startsWith('Redis unavailable'));
      reasons.push(warning?.reason ?? '');
      expect(lines.join('')).not.toContain('not-the-password-1');
    }
    expect(reasons[0]).toMatch(/^connecting to Redis took longer than 1500 ms \(connect ECONNREFUSED 127\.0\.0\.1:1\)$/);
    expect(reasons[1]).toMatch(/^connecting to Redis took longer than 1500 ms \((ERR AUTH|WRONGPASS)/);
  });
});

describe('the stores’ readiness check', () => {
  it('reads the links file itself, not its read cache: a file that can no longer be read is not ready', async () => {
    const stores = await createBotStores({ namespace: 'ready', linksPath: join(mkdtempSync(join(tmpdir(), 'ready-')), 'links.sqlite') });
    await stores.ping();
    // Asked twice: the read cache now knows the probe's key is absent, and would answer from memory.
    await stores.ping();
    await stores.close();
    await expect(stores.ping()).rejects.toThrow(/not open/);
  });
});
