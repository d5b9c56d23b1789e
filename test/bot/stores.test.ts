// Links and views in Redis: what one bot process stores, another reads.
import { randomUUID } from 'node:crypto';

import { createClient } from '@keyv/redis';
import { describe, expect, it } from 'vitest';

import { createBotStores } from '../../src/bot/stores.js';

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
    } finally {
      await a.close();
      await b.close();
      const redis = createClient({ url: 'redis://127.0.0.1:6379' });
      await redis.connect();
      for (const k of await redis.keys(`${namespace}-*`)) await redis.del(k);
      redis.destroy();
    }
  });
});
