// The lookup client against the real stats service on an ephemeral port: every method, the typed
// errors the service gives, and the cache in front of it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ApiResponse } from '../../src/lookup/client.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { startService, type TestService } from '../helpers/service.js';
import { testLookup, type TestLookup } from '../helpers/lookup.js';

let service: TestService;
let t: TestLookup;

beforeAll(async () => {
  service = await startService(smallLines());
  t = await testLookup(service.url);
});
afterAll(async () => {
  await t.client.close();
  await service.close();
});

function dataOf<T>(r: ApiResponse<T>): T {
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data as T;
}

describe('lookups against the real service', () => {
  it('looks up a profile, then serves it from cache with its age', async () => {
    const first = await t.client.profile('title_a', 'pc_store_a', '76561198000000042');
    expect(first.meta).toMatchObject({ source: 'network', ageMs: 0 });
    expect(dataOf(first).segments[0]?.stats.kills?.value).toBe(30);
    const requests = t.client.stats.requests;
    t.advance(1_500);
    const second = await t.client.profile('title_a', 'pc_store_a', '76561198000000042');
    expect(second.meta).toMatchObject({ source: 'cache', fetchedAt: first.meta.fetchedAt });
    expect(second.meta.ageMs).toBeGreaterThanOrEqual(1_500);
    expect(second.meta.ageMs).toBeLessThan(2_500);
    expect(second.data).toEqual(first.data);
    expect(t.client.stats.requests).toBe(requests);
  });

  it('shares one cache entry between spellings of an identifier', async () => {
    await t.client.profile('title_c', 'pc_store_c', 'Ember#4471');
    const again = await t.client.profile('title_c', 'pc_store_c', 'EMBER#4471');
    expect(again.meta.source).toBe('cache');
    expect(dataOf(again).platformInfo.platformUserHandle).toBe('Ember#4471');
  });

  it('gets segments with title_a’s queue and season filters', async () => {
    const maps = dataOf(await t.client.segments('title_a', 'pc_store_a', 'ashplays', 'map', { season: 2 }));
    expect(maps.map((s) => [s.attributes.key, s.stats.kills?.value])).toEqual([
      ['Foundry', 6],
      ['Harbor', 14],
    ]);
    const ranked = dataOf(await t.client.segments('title_a', 'pc_store_a', 'ashplays', 'overview', { queue: 'ranked' }));
    expect(ranked[0]?.attributes).toEqual({ queue: 'ranked' });
    const legends = dataOf(await t.client.segments('title_b', 'pc_store_c', 'Rift#0042', 'legend'));
    expect(legends.map((s) => s.metadata.name)).toEqual(['Seer']);
  });

  it('searches, lists matches, opens a match report and lists sessions', async () => {
    const found = dataOf(await t.client.search('title_c', 'pc_store_c', 'ember'));
    expect(found.map((r) => r.platformUserHandle)).toEqual(['Ember#4471', 'Embertide#1000']);
    const byUrl = dataOf(await t.client.search('title_a', 'pc_store_a', 'https://community.example.com/id/ashplays'));
    expect(byUrl.map((r) => r.platformUserId)).toEqual(['76561198000000042']);
    const list = dataOf(await t.client.matches('title_a', 'pc_store_a', 'ashplays'));
    expect(list.matches.map((m) => m.attributes.id)).toEqual(['a-3', 'a-2', 'a-1']);
    const report = dataOf(await t.client.match('title_a', 'pc_store_a', list.matches[0]!.attributes.id));
    expect(report.children.filter((c) => c.type === 'team')).toHaveLength(2);
    const sessions = dataOf(await t.client.sessions('title_b', 'pc_store_b', 'Rift'));
    expect(sessions.items.map((s) => s.matches.length)).toEqual([1, 2]);
  });

  it('follows the match list’s cursor', async () => {
    const bad = await t.client.matches('title_a', 'pc_store_a', 'ashplays', 'not-a-cursor');
    expect(bad.errors?.[0]).toMatchObject({ kind: 'invalid_parameter', status: 400, code: 'InvalidParameter', data: { parameter: 'next' } });
  });

  it('tells not_found, private and invalid_parameter apart, with the service’s code and message', async () => {
    const missing = await t.client.profile('title_c', 'console_a', 'Nobody');
    expect(missing.errors?.[0]).toMatchObject({ kind: 'not_found', status: 404, code: 'CollectorResultStatus::NotFound' });
    expect(missing.errors?.[0]?.message).toContain('Nobody');
    const hidden = await t.client.profile('title_c', 'pc_store_c', 'Shade#0001');
    expect(hidden.errors?.[0]).toMatchObject({ kind: 'private', status: 451, code: 'CollectorResultStatus::Private' });
    const match = await t.client.match('title_a', 'pc_store_a', 'no-such-match');
    expect(match.errors?.[0]).toMatchObject({ kind: 'not_found', code: 'MatchNotFound' });
    const season = await t.client.segments('title_a', 'pc_store_a', 'ashplays', 'map', { season: 0 });
    expect(season.errors?.[0]).toMatchObject({ kind: 'invalid_parameter', status: 400, data: { parameter: 'season' } });
  });

  it('refuses locally, without a request, what the catalog says cannot succeed', async () => {
    const before = t.client.stats.requests;
    const cases = [
      [await t.client.profile('title_b', 'pc_store_c', 'Rift#0042'), 'platform'],
      [await t.client.segments('title_b', 'pc_store_b', 'Rift', 'legend'), 'platform'],
      [await t.client.segments('title_c', 'pc_store_c', 'Ember#4471', 'weapon'), 'segmentType'],
      [await t.client.segments('title_a', 'pc_store_a', 'ashplays', 'weapon', { season: 2 }), 'season'],
      [await t.client.sessions('title_c', 'pc_store_c', 'Ember#4471'), 'title'],
      [await t.client.search('title_c', 'pc_store_c', '  '), 'query'],
    ] as const;
    for (const [result, parameter] of cases) {
      expect(result.meta.source).toBe('local');
      expect(result.errors?.[0]).toMatchObject({ kind: 'invalid_parameter', status: null, data: { parameter } });
    }
    expect(cases[0][0].errors?.[0]?.data.allowed).toEqual(['pc_store_b', 'console_a', 'console_b']);
    expect(t.client.stats.requests).toBe(before);
  });

  it('remembers a missing player briefly, then asks again', async () => {
    const before = t.client.stats.requests;
    await t.client.profile('title_d', 'pc_store_a', 'ghost');
    const again = await t.client.profile('title_d', 'pc_store_a', 'ghost');
    expect(again.errors?.[0]?.kind).toBe('not_found');
    expect(again.meta.source).toBe('cache');
    expect(t.client.stats.requests).toBe(before + 1);
    t.advance(31_000);
    expect((await t.client.profile('title_d', 'pc_store_a', 'ghost')).meta.source).toBe('network');
    expect(t.client.stats.requests).toBe(before + 2);
  });

  it('calls a base URL where the service has no endpoint unavailable, not a missing player, and does not remember it', async () => {
    const wrong = await testLookup(`${service.url}/not-the-api`);
    try {
      for (let i = 0; i < 2; i++) {
        const r = await wrong.client.profile('title_a', 'pc_store_a', '76561198000000042');
        expect(r.errors?.[0]).toMatchObject({ kind: 'unavailable', status: 404, code: 'NotFound' });
        expect(r.errors?.[0]?.message).toMatch(/^No endpoint answered at that address/);
        expect(r.meta.source).toBe('network');
      }
      expect(wrong.logs()).toContain('lookups are failing');
    } finally {
      await wrong.client.close();
    }
  });

  it('sends the API key to a service that requires one', async () => {
    const keyed = await startService(smallLines(), { apiKeys: ['the-key'] });
    const withKey = await testLookup(keyed.url, { apiKey: 'the-key' });
    const without = await testLookup(keyed.url);
    try {
      expect((await withKey.client.search('title_c', 'pc_store_c', 'ember')).data).toHaveLength(2);
      expect((await without.client.search('title_c', 'pc_store_c', 'ember')).errors?.[0]).toMatchObject({
        kind: 'unauthorized',
        status: 401,
        code: 'Unauthorized',
      });
    } finally {
      await withKey.client.close();
      await without.client.close();
      await keyed.close();
    }
  });
});
