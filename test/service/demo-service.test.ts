// Every endpoint of every title against the built-in demo dataset, over real HTTP: every allowed
// platform answers a payload that parses with its schema, every other platform a 400.
import { request as httpRequest } from 'node:http';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ENDPOINTS, PLATFORM_SLUGS, TITLES, buildPath, type Endpoint, type PlatformSlug } from '../../src/catalog/index.js';
import { strictly } from '../helpers/schemas.js';
import { ErrorBodySchema, PAYLOAD_SCHEMAS, SearchResultListSchema, envelopeOf, MatchResultSchema, StatsProfileSchema } from '../../src/lookup/schemas.js';
import { DEMO_PLAYERS, demoLines, demoRecords } from '../../src/service/demo.js';
import { MATCHES_PAGE_SIZE } from '../../src/service/lookups.js';
import { startService, type TestService } from '../helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

/** A demo player of the title on the platform who has played. */
async function someIdentifier(endpoint: Endpoint, platform: PlatformSlug): Promise<string> {
  const [row] = (await service.store.sql(
    'SELECT p.id FROM players p JOIN player_totals t ON t.title = p.title AND t.platform = p.platform AND t.player = p.id_norm WHERE p.title = ? AND p.platform = ? AND p.private = 0 ORDER BY p.id_norm LIMIT 1',
    endpoint.title,
    platform,
  )) as { id: string }[];
  if (!row) throw new Error(`the demo has no ${endpoint.title} player on ${platform}`);
  return row.id;
}

async function pathFor(endpoint: Endpoint, platform: PlatformSlug): Promise<string> {
  const identifier = endpoint.platforms.includes(platform) ? await someIdentifier(endpoint, platform) : 'x';
  const [match] = (await service.store.sql("SELECT id FROM matches WHERE title = 'title_a' AND platform = ? ORDER BY id LIMIT 1", platform)) as {
    id: string;
  }[];
  const matchId = match?.id ?? 'none';
  const path = buildPath(endpoint.path, {
    platform,
    platformUserIdentifier: identifier,
    segmentType: TITLES[endpoint.title].segmentTypes.at(-1)?.type ?? '',
    matchId,
  });
  return endpoint.kind === 'search' ? `${path}?platform=${platform}&query=${encodeURIComponent(identifier.slice(0, 3))}` : path;
}

describe('the demo dataset over HTTP', () => {
  const cases = ENDPOINTS.flatMap((e) => PLATFORM_SLUGS.map((p) => [`${e.title} ${e.kind} on ${p}`, e, p] as const));

  it.each(cases)('%s: 200 with a valid payload where the platform is allowed, 400 elsewhere', async (_name, endpoint, platform) => {
    const path = await pathFor(endpoint, platform);
    const res = await service.request(path);
    if (endpoint.platforms.includes(platform)) {
      expect(res.status, `${path}: ${res.text.slice(0, 300)}`).toBe(200);
      const parsed = strictly(envelopeOf(PAYLOAD_SCHEMAS[endpoint.payload]), res.body);
      if (Array.isArray(parsed.data) && endpoint.kind !== 'search') expect(parsed.data.length).toBeGreaterThan(0);
    } else {
      expect(res.status, path).toBe(400);
      const error = ErrorBodySchema.parse(res.body).errors[0];
      expect(error).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'platform', allowed: endpoint.platforms } });
    }
  });

  it('serves the README’s example players', async () => {
    const get = async (path: string) => StatsProfileSchema.parse(envelopeOf(StatsProfileSchema).parse((await service.request(path)).body).data);
    expect((await get('/v2/title_c/standard/profile/pc_store_c/Nova%232231')).platformInfo.platformUserHandle).toBe(DEMO_PLAYERS.title_c.handle);
    expect((await get('/v2/title_c/standard/profile/console_a/Nova')).platformInfo.platformUserHandle).toBe('Nova');
    expect((await get('/v2/title_a/standard/profile/pc_store_a/novaplays')).platformInfo.platformUserId).toBe(DEMO_PLAYERS.title_a.id);
    expect((await get('/v2/title_d/standard/profile/pc_store_a/76561198000000001')).segments[0]?.stats.kills?.value).toBeGreaterThan(0);
    expect((await get('/v2/title_b/standard/profile/pc_store_b/Wraithling')).metadata.activeLegendName).toEqual(expect.any(String));
    expect((await service.request('/v2/title_c/standard/profile/pc_store_c/Hidden%230001')).status).toBe(451);
  });

  it('pages a long match list with the next cursor until it runs out, without repeats', async () => {
    const [top] = (await service.store.sql(
      "SELECT platform, player, COUNT(*) n FROM match_players WHERE title = 'title_a' GROUP BY platform, player ORDER BY n DESC, platform, player LIMIT 1",
    )) as { platform: string; player: string; n: number }[];
    if (!top) throw new Error('the demo has no title_a matches');
    expect(top.n).toBeGreaterThan(MATCHES_PAGE_SIZE * 2);
    const seen: string[] = [];
    let next: string | null = null;
    let pages = 0;
    do {
      const qs: string = next ? `?next=${encodeURIComponent(next)}` : '';
      const res = await service.request(`/v2/title_a/standard/matches/${top.platform}/${encodeURIComponent(top.player)}${qs}`);
      const page = envelopeOf(MatchResultSchema).parse(res.body).data;
      expect(page.matches.length).toBeLessThanOrEqual(MATCHES_PAGE_SIZE);
      seen.push(...page.matches.map((m) => m.metadata.timestamp + m.attributes.id));
      next = page.metadata.next;
      pages++;
    } while (next && pages < 100);
    expect(seen).toHaveLength(top.n);
    expect(new Set(seen).size).toBe(top.n);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(pages).toBe(Math.ceil(top.n / MATCHES_PAGE_SIZE));
  });

  it('caps search at 20 results', async () => {
    const [all] = (await service.store.sql("SELECT COUNT(*) n FROM players WHERE title = 'title_b' AND platform = 'pc_store_b'")) as { n: number }[];
    expect(all?.n).toBeGreaterThan(20);
    // Every demo handle starts with a capital letter from a list of names: a one-letter prefix finds many.
    const counts = await Promise.all(
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.split('').map(async (letter) => {
        const r = await service.request(`/v2/title_b/standard/search?platform=pc_store_b&query=${letter}`);
        return envelopeOf(SearchResultListSchema).parse(r.body).data.length;
      }),
    );
    expect(Math.max(...counts)).toBeLessThanOrEqual(20);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(20);
  });

  it('has sessions across the demo: several per player, newest first', async () => {
    const res = await service.request('/v2/title_b/standard/profile/pc_store_b/Wraithling/sessions');
    const list = strictly(envelopeOf(PAYLOAD_SCHEMAS.SessionList), res.body).data;
    expect(list.items.length).toBeGreaterThan(1);
    const starts = list.items.map((s) => Date.parse(s.metadata.startDate?.value ?? ''));
    expect([...starts].sort((a, b) => b - a)).toEqual(starts);
  });

  it('lists private players in the match reports they played in, without their stats', async () => {
    const rows = (await service.store.sql(
      "SELECT mp.match_id, mp.platform, p.handle FROM match_players mp JOIN players p ON p.title = mp.title AND p.platform = mp.platform AND p.id_norm = mp.player WHERE mp.title = 'title_a' AND p.private = 1 ORDER BY mp.match_id LIMIT 5",
    )) as { match_id: string; platform: string; handle: string }[];
    // The reviewer's case first: Sable99, whose profile answers 451, in a-00466.
    expect(rows).toContainEqual({ match_id: 'a-00466', platform: 'console_a', handle: 'Sable99' });
    expect((await service.request('/v2/title_a/standard/profile/console_a/Sable99')).status).toBe(451);
    for (const row of rows) {
      const res = await service.request(`/v1/title_a/matches/${row.platform}/direct/${row.match_id}`);
      const report = strictly(envelopeOf(PAYLOAD_SCHEMAS.StatisticalObject), res.body).data;
      const child = report.children.find((c) => c.type === 'player' && c.metadata.name === row.handle);
      expect(child?.metadata.result, row.match_id).toMatch(/^(win|loss|draw)$/);
      expect(child?.stats, row.match_id).toEqual({});
      expect(report.children.filter((c) => c.type === 'player' && c.metadata.name !== row.handle).every((c) => Object.keys(c.stats).length > 0)).toBe(true);
    }
  });

  it('answers a literal .. segment sent as-is with a clean 400', async () => {
    const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(service.url);
      const req = httpRequest({ host: url.hostname, port: url.port, path: '/v2/title_c/standard/profile/pc_store_c/..', method: 'GET' }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(ErrorBodySchema.parse(JSON.parse(body)).errors[0]?.data).toMatchObject({ parameter: 'platformUserIdentifier' });
  });
});

describe('the demo dataset', () => {
  it('is the same on every run', () => {
    const a = [...demoLines()];
    const b = [...demoLines()];
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(2_000);
  });

  it('covers every title and platform with a few hundred players, # handles and vanity names', async () => {
    const one = async (sql: string, ...params: unknown[]) => ((await service.store.sql(sql, ...params))[0] ?? {}) as Record<string, number>;
    expect((await one('SELECT COUNT(*) n FROM players')).n).toBeGreaterThanOrEqual(300);
    for (const e of ENDPOINTS)
      for (const p of e.platforms)
        expect((await one('SELECT COUNT(*) n FROM player_totals WHERE title = ? AND platform = ?', e.title, p)).n, `${e.title} ${p}`).toBeGreaterThan(0);
    expect((await one("SELECT COUNT(*) n FROM players WHERE id LIKE '%#%'")).n).toBeGreaterThan(10);
    expect((await one('SELECT COUNT(*) n FROM players WHERE vanity IS NOT NULL')).n).toBeGreaterThan(10);
    const span = await one('SELECT MIN(started_at) a, MAX(started_at) b FROM matches');
    expect((span.b ?? 0) - (span.a ?? 0)).toBeGreaterThan(21 * 86_400_000);
  });

  it('adds up: a player’s weapons share out their match’s kills and headshots, never more', () => {
    let checked = 0;
    let repeated = 0;
    for (const record of demoRecords()) {
      if (record.type !== 'match' || (record.title !== 'title_a' && record.title !== 'title_d')) continue;
      for (const p of record.players) {
        const weapons = Object.values(p.weapons ?? {});
        if (weapons.length === 0) continue;
        const sum = (key: string) => weapons.reduce((n, w) => n + (w[key] ?? 0), 0);
        expect(sum('kills'), `${record.id} ${p.id}`).toBe(p.stats.kills);
        if (record.title === 'title_a') expect(sum('headshots'), `${record.id} ${p.id}`).toBe(p.stats.headshots);
        for (const w of weapons) expect(w.shotsHit ?? 0).toBeLessThanOrEqual(w.shotsFired ?? 0);
        checked++;
        if (record.title === 'title_d' && weapons.length === 1) repeated++;
      }
    }
    expect(checked).toBeGreaterThan(1_000);
    // title_d players whose two favourites are one weapon: it has all their kills, as one entry.
    expect(repeated).toBeGreaterThan(0);
  });
});
