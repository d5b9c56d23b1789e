// Bounded memory, in fast versions: the in-memory lookup cache and the paged-reply views hold at
// most their configured size (least recently used go first), expired entries are swept without
// being read again, and values stay objects (no serialise/parse per hit).
import { describe, expect, it } from 'vitest';

import { createBotStores } from '../../src/bot/stores.js';
import { createLookupCache } from '../../src/lookup/cache.js';
import { BoundedMemoryStore, heapBytes, knownJsonLength } from '../../src/lookup/memory-store.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the in-memory lookup cache', () => {
  it('holds at most its configured entries, dropping the least recently used', async () => {
    const cache = await createLookupCache({ maxEntries: 100 });
    try {
      // Random text typed into autocomplete: every key distinct, none read again.
      for (let i = 0; i < 1_000; i++) await cache.set(`search:typed-${i}`, { v: 1, i }, 60_000);
      expect(await cache.get('search:typed-0')).toBeUndefined();
      expect(await cache.get('search:typed-899')).toBeUndefined();
      expect(await cache.get('search:typed-999')).toEqual({ v: 1, i: 999 });
    } finally {
      await cache.close();
    }
  });

  it('holds at most its configured bytes', async () => {
    const cache = await createLookupCache({ maxBytes: 100_000 });
    try {
      const big = { text: 'x'.repeat(10_000) };
      for (let i = 0; i < 100; i++) await cache.set(`profile:${i}`, { ...big, i }, 60_000);
      let held = 0;
      for (let i = 0; i < 100; i++) if ((await cache.get(`profile:${i}`)) !== undefined) held++;
      expect(held).toBeGreaterThan(0);
      expect(held).toBeLessThanOrEqual(10);
    } finally {
      await cache.close();
    }
  });

  it('counts what an entry costs the heap, not its JSON alone: many small answers are bounded by bytes too', async () => {
    const cache = await createLookupCache({ maxBytes: 100_000 });
    try {
      // Empty search answers: 20 bytes of JSON each, but each entry costs the heap some 500 bytes.
      for (let i = 0; i < 1_000; i++) await cache.set(`search:typed-${i}`, { v: 1, i, data: [] }, 60_000);
      let held = 0;
      for (let i = 0; i < 1_000; i++) if ((await cache.get(`search:typed-${i}`)) !== undefined) held++;
      expect(held).toBeGreaterThan(50);
      expect(held).toBeLessThanOrEqual(200);
    } finally {
      await cache.close();
    }
  });

  it('gives back the very object it was given: a hit costs no parse', async () => {
    const cache = await createLookupCache();
    try {
      const value = { v: 1, payload: { nested: [1, 2, 3] } };
      await cache.set('k', value, 60_000);
      expect(await cache.get('k')).toBe(value);
    } finally {
      await cache.close();
    }
  });
});

describe('the heap cost of an entry', () => {
  it("takes a value read from a body by that body's length, without serialising it again, and counts the rest", () => {
    const payload = { items: Array.from({ length: 200 }, (_, i) => ({ id: `m${i}`, stats: { kills: { value: i, displayValue: String(i) } } })) };
    const entry = { v: 1, fetchedAt: 1, freshUntil: 2, payload };
    const serialised = heapBytes(entry);
    knownJsonLength(payload, JSON.stringify(payload).length);
    // The same estimate, whether the payload is serialised or its length known.
    expect(heapBytes(entry)).toBe(serialised);
    // The known length stands for the value: a value told a larger length counts it.
    const other = { items: [] };
    knownJsonLength(other, 1_000_000);
    expect(heapBytes({ wrapper: other })).toBeGreaterThan(1_500_000);
  });
});

describe('the bounded memory store', () => {
  it('sweeps expired entries without their keys being read again', async () => {
    const store = new BoundedMemoryStore({ maxEntries: 1_000, sweepIntervalMs: 50 });
    try {
      for (let i = 0; i < 200; i++) store.set(`k${i}`, { i }, 20);
      store.set('lasting', { i: -1 });
      expect(store.size).toBe(201);
      await sleep(200);
      expect(store.size).toBe(1);
    } finally {
      store.close();
    }
  });
});

describe('paged-reply views in memory', () => {
  it('hold at most VIEWS_MAX_ENTRIES and live as long as the controls', async () => {
    const stores = await createBotStores({ namespace: 't', linksPath: ':memory:', viewsMaxEntries: 100, viewTtlMs: 150 });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 1_000; i++)
        ids.push(await stores.views.save({ kind: 'search', title: 'title_c', platform: 'pc_store_c', query: `q${i}`, ownerId: 'u' }));
      expect(await stores.views.load(ids[0]!)).toBeUndefined();
      expect(await stores.views.load(ids[999]!)).toMatchObject({ query: 'q999' });
      await sleep(250);
      expect(await stores.views.load(ids[999]!)).toBeUndefined();
    } finally {
      await stores.close();
    }
  });
});
