// The Redis-backed cache against real Redis: the machine's on 127.0.0.1:6379 (CI starts it), and a
// redis-server of this test's own that it stops and starts again mid-test.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { createClient } from '@keyv/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createLookupCache } from '../../src/lookup/cache.js';
import { REDIS_QUEUE_MAX, redisClient } from '../../src/lookup/redis.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { memoryLogger, testLookup } from '../helpers/lookup.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startService, type TestService } from '../helpers/service.js';

const SHARED_REDIS = 'redis://127.0.0.1:6379';
let service: TestService;

beforeAll(async () => {
  service = await startService(smallLines());
});
afterAll(async () => {
  await service.close();
});

/** Deletes what a test stored in the shared Redis. */
async function forget(namespace: string): Promise<void> {
  const redis = createClient({ url: SHARED_REDIS });
  await redis.connect();
  for (const k of await redis.keys(`${namespace}::*`)) await redis.del(k);
  redis.destroy();
}

describe('Redis cache', () => {
  it('is shared by several bot processes: a second client finds what the first fetched', async () => {
    const namespace = `test-${randomUUID()}`;
    const a = await testLookup(service.url, { cache: await createLookupCache({ url: SHARED_REDIS, namespace }) });
    const b = await testLookup(service.url, { cache: await createLookupCache({ url: SHARED_REDIS, namespace }) });
    try {
      expect(a.cache.healthy).toBe(true);
      const first = await a.client.profile('title_a', 'pc_store_a', 'ashplays');
      expect(first.meta.source).toBe('network');
      const second = await b.client.profile('title_a', 'pc_store_a', 'ashplays');
      expect(second.meta.source).toBe('cache');
      expect(second.data).toEqual(first.data);
      expect(b.client.stats.requests).toBe(0);
      // A missing player is shared too, briefly.
      await a.client.profile('title_a', 'pc_store_a', 'nobody');
      expect((await b.client.profile('title_a', 'pc_store_a', 'nobody')).meta.source).toBe('cache');
    } finally {
      await a.client.close();
      await b.client.close();
      await a.cache.close();
      await b.cache.close();
      await forget(namespace);
    }
  });

  it('stores entries under its namespace with a TTL, and no API key anywhere', async () => {
    const namespace = `test-${randomUUID()}`;
    const key = 'redis-secret-key-99';
    const keyed = await startService(smallLines(), { apiKeys: [key] });
    const t = await testLookup(keyed.url, { apiKey: key, cache: await createLookupCache({ url: SHARED_REDIS, namespace }) });
    const redis = createClient({ url: SHARED_REDIS });
    await redis.connect();
    try {
      await t.client.search('title_c', 'pc_store_c', 'ember');
      await t.client.profile('title_c', 'pc_store_c', 'Ember#4471');
      const keys = await redis.keys(`${namespace}::*`);
      expect(keys).toHaveLength(2);
      for (const k of keys) {
        expect(k).not.toContain(key);
        expect(await redis.get(k)).not.toContain(key);
        const ttl = await redis.pTTL(k);
        expect(ttl).toBeGreaterThan(0);
        // Fresh time plus the stale window, at most.
        expect(ttl).toBeLessThanOrEqual(5 * 60_000 + 3_600_000);
      }
    } finally {
      redis.destroy();
      await forget(namespace);
      await t.client.close();
      await t.cache.close();
      await keyed.close();
    }
  });

  it('keeps lookups working when Redis stops, logs that once, and caches again when Redis is back', async () => {
    const port = await freePort();
    let redis = await startRedis(port);
    const { logger, logs } = memoryLogger();
    const cache = await createLookupCache({ url: `redis://127.0.0.1:${port}`, logger, probeIntervalMs: 200 });
    const t = await testLookup(service.url, { cache, logger });
    try {
      await t.client.profile('title_a', 'pc_store_a', 'ashplays');
      expect((await t.client.profile('title_a', 'pc_store_a', 'ashplays')).meta.source).toBe('cache');

      await stopRedis(redis);
      const during: string[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const r = await t.client.search('title_c', 'pc_store_c', `emb${i % 3}`);
        expect(r.errors?.[0]?.kind ?? 'ok').not.toBe('unavailable');
        expect(performance.now() - started).toBeLessThan(1_000);
        during.push(r.meta.source);
      }
      // Uncached while Redis is away: every lookup reaches the service.
      expect(during.every((s) => s === 'network')).toBe(true);
      expect(cache.healthy).toBe(false);
      expect(logs().match(/cache unavailable/g)).toHaveLength(1);

      redis = await startRedis(port);
      let resumed = false;
      for (let i = 0; i < 50 && !resumed; i++) {
        await sleep(100);
        await t.client.search('title_d', 'pc_store_a', 'dusty');
        resumed = (await t.client.search('title_d', 'pc_store_a', 'dusty')).meta.source === 'cache';
      }
      expect(resumed).toBe(true);
      expect(cache.healthy).toBe(true);
      expect(logs().match(/cache reachable again/g)).toHaveLength(1);
      expect(logs().match(/cache unavailable/g)).toHaveLength(1);
    } finally {
      await t.client.close();
      await cache.close();
      redis.kill('SIGKILL');
    }
  });

  it('starts uncached when Redis is not there at all, and says so once', async () => {
    const port = await freePort();
    const { logger, logs } = memoryLogger();
    const started = performance.now();
    const cache = await createLookupCache({ url: `redis://127.0.0.1:${port}`, logger, connectTimeoutMs: 300 });
    expect(performance.now() - started).toBeLessThan(1_500);
    const t = await testLookup(service.url, { cache, logger });
    try {
      for (let i = 0; i < 5; i++) expect((await t.client.profile('title_c', 'pc_store_c', 'Ember#4471')).data).toBeDefined();
      expect(t.client.stats.requests).toBe(5);
      expect(logs().match(/cache unavailable/g)).toHaveLength(1);
      expect(logs()).not.toContain('redis://');
    } finally {
      await t.client.close();
      await cache.close();
    }
  });
});

describe('a Redis that accepts connections and stops answering (SIGSTOP)', () => {
  it('holds at most REDIS_QUEUE_MAX commands, fails the rest at once, and drops the silent connection, failing what it held', async () => {
    const port = await freePort();
    const redis = await startRedis(port);
    const { client, ready } = redisClient(`redis://127.0.0.1:${port}`, { pingIntervalMs: 200, socketTimeoutMs: 1_500 });
    const errors: string[] = [];
    client.on('error', (e: Error) => errors.push(e.message));
    try {
      await ready;
      await client.set('k', 'v');
      redis.kill('SIGSTOP');
      // Each settles with what became of it: held ones later, the rest at once.
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => 'answered',
          (e: Error) => e.message,
        );
      let heldSettled = 0;
      const held = Array.from({ length: REDIS_QUEUE_MAX }, () => outcome(client.get('k')).finally(() => (heldSettled += 1)));
      const started = performance.now();
      const past = await outcome(client.get('k'));
      // Refused at once: before any held command has settled (they wait for the socket timeout).
      expect(past).toBe('The queue is full');
      expect(heldSettled).toBe(0);
      // Silent past the socket timeout: the connection is dropped and every held command fails.
      const settled = await Promise.all(held);
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(settled.every((o) => o !== 'answered')).toBe(true);
      expect(errors.join('\n')).toMatch(/timeout/i);
      redis.kill('SIGCONT');
      // Reconnected by itself once Redis answers again.
      for (let i = 0; i < 50 && !client.isReady; i++) await sleep(100);
      expect(await client.get('k')).toBe('v');
    } finally {
      redis.kill('SIGCONT');
      client.destroy();
      await stopRedis(redis);
    }
  }, 20_000);
});
