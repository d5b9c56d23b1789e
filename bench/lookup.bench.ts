// `npm run bench`: what a lookup costs through the client, against the real service on loopback:
// from the memory cache, from Redis, and from the network (a cache that never hits).
import { bench, describe } from 'vitest';

import { createLookupCache, type LookupCache } from '../src/lookup/cache.js';
import { LookupClient } from '../src/lookup/client.js';
import { startEmbeddedService } from '../src/service/embedded-thread.js';

const service = await startEmbeddedService({});
const never: LookupCache = { get: () => Promise.resolve(undefined), set: () => Promise.resolve(), healthy: true, close: () => Promise.resolve() };
const memory = new LookupClient({ baseUrl: service.url, cache: await createLookupCache() });
const redisCache = await createLookupCache({ url: 'redis://127.0.0.1:6379', namespace: `bench-${process.pid}` });
const redis = new LookupClient({ baseUrl: service.url, cache: redisCache });
const network = new LookupClient({ baseUrl: service.url, cache: never });
await memory.profile('title_c', 'pc_store_c', 'Nova#2231');
await redis.profile('title_c', 'pc_store_c', 'Nova#2231');

describe('profile lookup through the client', () => {
  bench('memory cache hit', async () => {
    await memory.profile('title_c', 'pc_store_c', 'Nova#2231');
  });
  bench('redis cache hit', async () => {
    await redis.profile('title_c', 'pc_store_c', 'Nova#2231');
  });
  bench('network (loopback, embedded service)', async () => {
    await network.profile('title_c', 'pc_store_c', 'Nova#2231');
  });
  bench('100 identical lookups at once (single flight, network)', async () => {
    await Promise.all(Array.from({ length: 100 }, () => network.profile('title_c', 'pc_store_c', 'Nova#2231')));
  });
});
