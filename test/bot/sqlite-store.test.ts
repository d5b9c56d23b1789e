// The link store's memory: its read cache is bounded by the text it holds, not only by its keys.
import type { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';

import { READ_CACHE_CHARS, SqliteKeyvStore } from '../../src/bot/sqlite-store.js';

describe('the SQLite link store', () => {
  it('keeps at most READ_CACHE_CHARS of text in memory, and still answers every key from its file', () => {
    const store = new SqliteKeyvStore(':memory:');
    const cache = (store as unknown as { read: LRUCache<string, object | string> }).read;
    // Member lists of 500 servers, 20 K each: 10 M characters, past the bound.
    const list = (i: number) => `${String(i).padStart(6, '0')}${'x'.repeat(20_000)}`;
    for (let i = 0; i < 500; i++) store.set(`members:${i}`, list(i));
    expect(cache.calculatedSize).toBeLessThanOrEqual(READ_CACHE_CHARS);
    expect(cache.size).toBeLessThan(500);
    for (const i of [0, 1, 250, 499]) expect(store.get(`members:${i}`)).toBe(list(i));
    // A text larger than the whole bound is not kept, and is read all the same.
    const huge = 'y'.repeat(READ_CACHE_CHARS + 1);
    store.set('huge', huge);
    expect(store.get('huge')).toBe(huge);
    expect(cache.calculatedSize).toBeLessThanOrEqual(READ_CACHE_CHARS);
    store.close();
  });
});
