import { describe, expect, it } from 'vitest';

import { platformsOfTitle } from '../../src/catalog/index.js';
import { importLines } from '../../src/service/import.js';
import { MEMO_MAX_BYTES, Memo, sessions } from '../../src/service/lookups.js';
import { StatsStore } from '../../src/service/store.js';

/** A part whose JSON is about `kb` kilobytes. */
const part = (kb: number) => ({ text: 'x'.repeat(kb * 1024) });

describe('the service memo', () => {
  it('holds parts up to its weight in bytes, letting the least recently used go', async () => {
    const store = new StatsStore();
    const memo = new Memo(1024 * 1024);
    const computed: string[] = [];
    const get = (key: string) =>
      memo.get(store, key, () => {
        computed.push(key);
        return Promise.resolve(part(100));
      });
    for (let i = 0; i < 20; i++) await get(`p${i}`);
    // 100 KB of JSON weighs about 150 KB: six or so fit in a megabyte, not twenty.
    expect(memo.held.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(memo.held.parts).toBeGreaterThan(3);
    expect(memo.held.parts).toBeLessThan(10);
    computed.length = 0;
    await get('p19');
    await get('p0');
    expect(computed).toEqual(['p0']);
    await store.close();
  });

  it('does not keep a part that alone outweighs it, and still answers it', async () => {
    const store = new StatsStore();
    const memo = new Memo(64 * 1024);
    let computed = 0;
    const get = () =>
      memo.get(store, 'big', () => {
        computed += 1;
        return Promise.resolve(part(100));
      });
    expect((await get()).text).toHaveLength(100 * 1024);
    await get();
    expect(computed).toBe(2);
    expect(memo.held).toEqual({ parts: 0, bytes: 0 });
    await store.close();
  });

  it('shares one computation among requests that come while it runs', async () => {
    const store = new StatsStore();
    const memo = new Memo();
    let computed = 0;
    let finish: (value: unknown) => void = () => undefined;
    const compute = () => {
      computed += 1;
      return new Promise((resolve) => (finish = resolve));
    };
    const first = memo.get(store, 'k', compute);
    const second = memo.get(store, 'k', compute);
    finish(part(1));
    expect(await first).toBe(await second);
    expect(computed).toBe(1);
    await store.close();
  });

  it('stays within its weight holding the sessions of many players who play every day', async () => {
    const platform = platformsOfTitle('title_b')[0];
    if (!platform) throw new Error('title_b has no platform');
    const players = 30;
    const t0 = Date.parse('2026-01-01T00:00:00Z');
    const lines: string[] = [];
    // 20 sessions of 10 matches, all 30 players in every match: each one's sessions are some 100 KB of JSON.
    for (let s = 0; s < 20; s++)
      for (let m = 0; m < 10; m++)
        lines.push(
          JSON.stringify({
            type: 'match',
            title: 'title_b',
            platform,
            id: `m-${s}-${m}`,
            startedAt: new Date(t0 + s * 86_400_000 + m * 900_000).toISOString(),
            durationSeconds: 600,
            players: Array.from({ length: players }, (_, p) => ({
              platform,
              id: `g${p}`,
              result: p % 2 ? 'win' : 'loss',
              stats: { kills: 5, deaths: 3, damage: 1200 },
            })),
          }),
        );
    const store = new StatsStore();
    await importLines(store, lines);
    const memo = new Memo(1024 * 1024);
    const ctx = { store, now: () => Date.parse('2027-01-01T00:00:00Z') };
    for (let p = 0; p < players; p++) expect((await sessions(ctx, memo, 'title_b', platform, `g${p}`)).items).toHaveLength(20);
    expect(memo.held.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(memo.held.parts).toBeLessThan(players);
    expect(memo.held.parts).toBeGreaterThan(0);
    await store.close();
  });

  it('weighs 16 MB by default', () => {
    expect(new Memo().maxBytes).toBe(MEMO_MAX_BYTES);
    expect(MEMO_MAX_BYTES).toBe(16 * 2 ** 20);
  });
});
