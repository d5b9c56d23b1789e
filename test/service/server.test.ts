// The service over real HTTP on loopback, against a small dataset whose figures are known by hand.
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PAYLOAD_SCHEMAS, ErrorBodySchema, envelopeOf } from '../../src/lookup/schemas.js';
import { encodeCursor } from '../../src/service/lookups.js';
import { answerParserErrors } from '../../src/service/server.js';
import { SMALL_T0, smallLines } from '../fixtures/small-dataset.js';
import { strictly } from '../helpers/schemas.js';
import { startService, type TestService } from '../helpers/service.js';

let clock = SMALL_T0 + 24 * 3_600_000;
let service: TestService;

beforeAll(async () => {
  service = await startService(smallLines(), { now: () => clock });
});
afterAll(async () => {
  await service.close();
});

async function data<K extends keyof typeof PAYLOAD_SCHEMAS>(kind: K, path: string) {
  const res = await service.request(path);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return strictly(envelopeOf(PAYLOAD_SCHEMAS[kind]), res.body).data as ReturnType<(typeof PAYLOAD_SCHEMAS)[K]['parse']>;
}

async function error(path: string, status: number, init?: RequestInit) {
  const res = await service.request(path, init);
  expect(res.status, res.text).toBe(status);
  const body = ErrorBodySchema.parse(res.body);
  expect(body.errors).toHaveLength(1);
  return { ...body.errors[0]!, headers: res.headers };
}

const A = '/v2/title_a/standard';

/**
 * Sends `head` on a new connection to `url`, byte for byte, and reads until the server closes;
 * `onText` hears what has come so far, each time more comes, and may send more.
 */
function exchange(url: string, head: Buffer | string, onText?: (text: string, send: (more: Buffer) => void) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const { port, hostname } = new URL(url);
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(head));
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      onText?.(Buffer.concat(chunks).toString('utf8'), (more) => socket.write(more));
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/**
 * Sends `head` as the request line and headers, byte for byte, and reads until the service closes:
 * what fetch cannot send (an absolute-form target, raw non-ASCII bytes, a 17 KB URL).
 */
async function rawRequest(head: Buffer | string): Promise<{ status: number; headers: Map<string, string>; text: string }> {
  const all = await exchange(service.url, head);
  const end = all.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = all.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as const));
  return { status: Number(statusLine.split(' ')[1]), headers, text: all.slice(end + 4) };
}

describe('profile', () => {
  it('sums a player’s matches into the overview and derives the ratios', async () => {
    const p = await data('StatsProfile', `${A}/profile/pc_store_a/76561198000000042`);
    expect(p.platformInfo).toMatchObject({ platformSlug: 'pc_store_a', platformUserHandle: 'Ash', platformUserIdentifier: '76561198000000042' });
    const overview = p.segments[0]!;
    expect(overview.type).toBe('overview');
    const v = Object.fromEntries(Object.entries(overview.stats).map(([k, s]) => [k, s.value]));
    expect(v).toMatchObject({ matchesPlayed: 3, wins: 2, losses: 1, timePlayed: 1800, kills: 30, deaths: 12, assists: 5, damage: 3200, longestStreak: 4 });
    expect(v.kd).toBe(2.5);
    expect(v.killsPerMatch).toBe(10);
    expect(overview.stats.kd?.displayValue).toBe('2.50');
    expect(overview.stats.winRate?.displayValue).toBe('66.7%');
    expect(overview.stats.timePlayed?.displayValue).toBe('30m 0s');
    expect(overview.stats.longestStreak?.displayName).toBe('Longest Streak');
    expect(p.metadata).toMatchObject({ seasons: [1, 2], currentSeason: 2, lastPlayed: new Date(SMALL_T0 + 40 * 60_000).toISOString() });
  });

  it('ranks against every player of the title, across platforms', async () => {
    const ash = await data('StatsProfile', `${A}/profile/pc_store_a/76561198000000042`);
    // title_a kills: Ash 30, Ashen Knight 6, bolt_77 9.
    // The percentile is the share of the other players at or below: the best of three is the top third.
    expect(ash.segments[0]?.stats.kills).toMatchObject({ rank: 1, percentile: 66.7 });
    const knight = await data('StatsProfile', `${A}/profile/console_a/Ashen%20Knight`);
    expect(knight.segments[0]?.stats.kills).toMatchObject({ value: 6, rank: 3, percentile: 0 });
    // Fewer deaths ranks higher: Ash 12, Knight 24, bolt 3.
    expect(knight.segments[0]?.stats.deaths).toMatchObject({ value: 24, rank: 3 });
  });

  it('finds players case-insensitively and takes # as %23', async () => {
    const p = await data('StatsProfile', `${A}/profile/console_b/BOLT_77`);
    expect(p.platformInfo.platformUserHandle).toBe('bolt_77');
    const c = await data('StatsProfile', '/v2/title_c/standard/profile/pc_store_c/ember%234471');
    expect(c.platformInfo).toMatchObject({ platformUserHandle: 'Ember#4471', avatarUrl: 'https://avatars.example.com/ember.png' });
    expect(c.metadata.mainHero).toBe('Tracer');
  });

  it('finds pc_store_a players by vanity name and community profile URL', async () => {
    for (const id of [
      'ashplays',
      encodeURIComponent('https://community.example.com/id/AshPlays/'),
      encodeURIComponent('https://community.example.com/profiles/76561198000000042'),
    ]) {
      const p = await data('StatsProfile', `${A}/profile/pc_store_a/${id}`);
      expect(p.platformInfo.platformUserId).toBe('76561198000000042');
    }
    const d = await data('StatsProfile', '/v2/title_d/standard/profile/pc_store_a/dusty_d');
    expect(d.platformInfo.platformUserHandle).toBe('Dusty');
  });

  it('takes a community profile URL with a query string, a fragment or a known subpage, and still refuses other slashes', async () => {
    const taken = [
      'https://community.example.com/id/ashplays/?l=english',
      'https://community.example.com/id/ashplays?l=english',
      'https://community.example.com/id/ashplays/home',
      'https://community.example.com/id/AshPlays/home/',
      'https://community.example.com/profiles/76561198000000042/',
      'https://community.example.com/profiles/76561198000000042/#games',
      'community.example.com/profiles/76561198000000042/games/?tab=all',
    ];
    for (const url of taken) {
      const p = await data('StatsProfile', `${A}/profile/pc_store_a/${encodeURIComponent(url)}`);
      expect(p.platformInfo.platformUserId, url).toBe('76561198000000042');
      const r = await data('CollectorSearchResult[]', `${A}/search?platform=pc_store_a&query=${encodeURIComponent(url)}`);
      expect(
        r.map((x) => x.platformUserId),
        url,
      ).toEqual(['76561198000000042']);
    }
    const refused = [
      'https://community.example.com/id/ashplays/unknown',
      'https://community.example.com/id/ashplays/home/games',
      'https://community.example.com/groups/ashplays',
      'ashplays/home',
      // A control character in the part that is dropped is refused all the same.
      'https://community.example.com/id/ashplays/?l=\u0000',
    ];
    for (const url of refused) {
      const e = await error(`${A}/profile/pc_store_a/${encodeURIComponent(url)}`, 400);
      expect(e.data, url).toMatchObject({ parameter: 'platformUserIdentifier' });
      // An address is told as one the service does not read, not as "contains a slash".
      if (url.includes('community.example.com/') && !url.includes('\u0000'))
        expect(e.message, url).toContain('not a community profile address the service reads');
      expect((await error(`${A}/search?platform=pc_store_a&query=${encodeURIComponent(url)}`, 400)).data, url).toMatchObject({ parameter: 'query' });
    }
  });

  it('lists the segment types the player has data for, with title_a’s seasons and queues', async () => {
    const p = await data('StatsProfile', `${A}/profile/pc_store_a/76561198000000042`);
    expect(p.availableSegments.map((s) => [s.type, s.metadata.count])).toEqual([
      ['overview', undefined],
      ['playlist', 2],
      ['gamemode', 2],
      ['map', 2],
      ['weapon', undefined],
    ]);
    expect(p.availableSegments.find((s) => s.type === 'map')?.metadata).toMatchObject({ seasons: [1, 2], queues: ['ranked', 'social'] });
    expect(p.availableSegments.find((s) => s.type === 'weapon')?.metadata.seasons).toEqual([]);
    const knight = await data('StatsProfile', `${A}/profile/console_a/Ashen%20Knight`);
    expect(knight.availableSegments.map((s) => s.type)).not.toContain('weapon');
  });

  it('lists no segments for a title_b player whose platform the segments endpoint does not serve', async () => {
    const p = await data('StatsProfile', '/v2/title_b/standard/profile/pc_store_b/Rift');
    expect(p.availableSegments).toEqual([]);
    expect(p.metadata.activeLegendName).toBe('Wraith');
  });

  it('answers 404 CollectorResultStatus::NotFound for an unknown player, naming it', async () => {
    const e = await error(`${A}/profile/console_a/Nobody%20Here`, 404);
    expect(e.code).toBe('CollectorResultStatus::NotFound');
    expect(e.message).toContain('Nobody Here');
    expect(e.data).toMatchObject({ platform: 'console_a', platformUserIdentifier: 'Nobody Here' });
  });

  it('answers 451 CollectorResultStatus::Private for a player who hides their stats, StandardApiV2::Private on segments', async () => {
    const e = await error('/v2/title_c/standard/profile/pc_store_c/Shade%230001', 451);
    expect(e.code).toBe('CollectorResultStatus::Private');
    expect((await error('/v2/title_c/standard/profile/pc_store_c/Shade%230001/segments/hero', 451)).code).toBe('StandardApiV2::Private');
  });
});

describe('segments', () => {
  it('groups by map, mode and playlist, most played first', async () => {
    const maps = await data('Segment[]', `${A}/profile/pc_store_a/76561198000000042/segments/map`);
    expect(maps.map((s) => [s.attributes.key, s.metadata.name, s.stats.matchesPlayed?.value, s.stats.kills?.value])).toEqual([
      ['Foundry', 'Foundry', 2, 16],
      ['Harbor', 'Harbor', 1, 14],
    ]);
    const modes = await data('Segment[]', `${A}/profile/pc_store_a/76561198000000042/segments/gamemode`);
    expect(modes.map((s) => s.metadata.name)).toEqual(['Team Deathmatch', 'Domination']);
    const playlists = await data('Segment[]', `${A}/profile/pc_store_a/76561198000000042/segments/playlist`);
    expect(playlists.map((s) => s.type)).toEqual(['playlist', 'playlist']);
  });

  it('filters title_a segments by queue and season', async () => {
    const base = `${A}/profile/pc_store_a/76561198000000042/segments`;
    const social = await data('Segment[]', `${base}/map?queue=social`);
    expect(social.map((s) => [s.attributes, s.stats.matchesPlayed?.value])).toEqual([[{ key: 'Foundry', queue: 'social' }, 2]]);
    const season2 = await data('Segment[]', `${base}/map?season=2`);
    expect(season2.map((s) => [s.attributes.key, s.stats.kills?.value])).toEqual([
      ['Foundry', 6],
      ['Harbor', 14],
    ]);
    const both = await data('Segment[]', `${base}/overview?queue=ranked&season=2`);
    expect(both).toHaveLength(1);
    expect(both[0]).toMatchObject({ type: 'overview', attributes: { queue: 'ranked', season: 2 }, metadata: { name: 'Season 2 · ranked' } });
    expect(both[0]?.stats.kills?.value).toBe(14);
    const lifetime = await data('Segment[]', `${base}/overview?queue=&season=`);
    expect(lifetime[0]).toMatchObject({ attributes: {}, metadata: { name: 'Lifetime' } });
    expect(lifetime[0]?.stats.matchesPlayed?.value).toBe(3);
    expect(await data('Segment[]', `${base}/map?season=9`)).toEqual([]);
  });

  it('sums weapons across matches with accuracy', async () => {
    const weapons = await data('Segment[]', `${A}/profile/pc_store_a/76561198000000042/segments/weapon`);
    expect(weapons.map((s) => [s.attributes.key, s.stats.matchesPlayed?.value, s.stats.kills?.value, s.stats.accuracy?.value])).toEqual([
      ['Carbine', 2, 12, 25],
      ['Pistol', 1, 4, 50],
    ]);
    const d = await data('Segment[]', '/v2/title_d/standard/profile/pc_store_a/76561198000000077/segments/weapon');
    expect(d.map((s) => s.attributes.key)).toEqual(['Deagle', 'Rifle']);
  });

  it('groups title_b by legend, title_c by hero and title_d by map', async () => {
    const legends = await data('Segment[]', '/v2/title_b/standard/profile/pc_store_c/Rift%230042/segments/legend');
    expect(legends.map((s) => s.metadata.name)).toEqual(['Seer']);
    const heroes = await data('Segment[]', '/v2/title_c/standard/profile/pc_store_c/Ember%234471/segments/hero');
    expect(heroes.map((s) => [s.metadata.name, s.stats.kills?.value])).toEqual([['Tracer', 20]]);
    const maps = await data('Segment[]', '/v2/title_d/standard/profile/pc_store_a/dusty_d/segments/map');
    expect(maps.map((s) => s.metadata.name)).toEqual(['Mirage']);
  });

  it('refuses a season on title_a weapon segments: weapon data exists for lifetime only', async () => {
    const e = await error(`${A}/profile/pc_store_a/76561198000000042/segments/weapon?season=2`, 400);
    expect(e).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'season' } });
    expect(e.message).toContain('lifetime only');
  });

  it('refuses a parameter given twice rather than answering for either value', async () => {
    const e = await error(`${A}/profile/pc_store_a/76561198000000042/segments/map?season=1&season=2`, 400);
    expect(e).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'season' } });
    expect(e.message).toBe('Invalid season: season is given 2 times; give it once.');
    expect((await error(`${A}/profile/pc_store_a/76561198000000042/segments/map?queue=ranked&queue=ranked`, 400)).data.parameter).toBe('queue');
    // Parameters the endpoint does not take are not read, once or twice.
    expect((await service.request(`${A}/profile/pc_store_a/76561198000000042/segments/map?x=1&x=2`)).status).toBe(200);
  });

  it('gives legends whose names fold alike (case, punctuation) ids of their own', async () => {
    const match = (id: string, legend: string) =>
      JSON.stringify({
        type: 'match',
        title: 'title_b',
        platform: 'pc_store_c',
        id,
        startedAt: '2026-11-01T18:00:00.000Z',
        durationSeconds: 600,
        players: [{ id: 'Fold#0001', platform: 'pc_store_c', legend, stats: { kills: 1 } }],
      });
    const own = await startService([match('f-1', 'Mad Maggie'), match('f-2', 'Mad-Maggie'), match('f-3', 'mad maggie'), match('f-4', 'Seer')]);
    try {
      const res = await own.request('/v2/title_b/standard/profile/pc_store_c/Fold%230001/segments/legend');
      expect(res.status, res.text).toBe(200);
      const legends = strictly(envelopeOf(PAYLOAD_SCHEMAS['Segment[]']), res.body).data;
      const ids = new Map(legends.map((s) => [s.metadata.name, s.attributes.id]));
      expect(ids.get('Seer')).toBe('legend_seer');
      const folded = ['Mad Maggie', 'Mad-Maggie', 'mad maggie'].map((n) => ids.get(n));
      for (const id of folded) expect(id).toMatch(/^legend_mad_maggie_[0-9a-f]{8}$/);
      expect(new Set(folded).size).toBe(3);
    } finally {
      await own.close();
    }
  });

  it('refuses an unknown segment type, a bad queue and a bad season, naming the allowed values', async () => {
    const t = await error(`${A}/profile/pc_store_a/76561198000000042/segments/hero`, 400);
    expect(t.data).toMatchObject({ parameter: 'segmentType', value: 'hero', allowed: ['overview', 'playlist', 'gamemode', 'map', 'weapon'] });
    const q = await error(`${A}/profile/pc_store_a/76561198000000042/segments/map?queue=casual`, 400);
    expect(q.data).toMatchObject({ parameter: 'queue', value: 'casual', allowed: ['ranked', 'social'] });
    expect(q.message).toContain('ranked, social');
    for (const season of ['two', '-1', '1.5', '0', '123456'])
      expect((await error(`${A}/profile/pc_store_a/76561198000000042/segments/map?season=${season}`, 400)).data.parameter).toBe('season');
    // A whole number too long is told so, not that it is no whole number.
    expect((await error(`${A}/profile/pc_store_a/76561198000000042/segments/map?season=123456`, 400)).message).toContain('at most 5 digits');
    const c = await error('/v2/title_c/standard/profile/pc_store_c/Ember%234471/segments/legend', 400);
    expect(c.data.allowed).toEqual(['hero']);
  });
});

describe('matches and match reports (title_a)', () => {
  it('lists matches newest first with per-match stats', async () => {
    const r = await data('MatchResult', `${A}/matches/pc_store_a/76561198000000042`);
    expect(r.matches.map((m) => m.attributes.id)).toEqual(['a-3', 'a-2', 'a-1']);
    expect(r.matches[0]?.metadata).toMatchObject({
      mapName: 'Harbor',
      modeName: 'Team Deathmatch',
      playlistName: 'Ranked Arena',
      queue: 'ranked',
      season: 2,
      result: 'win',
      duration: 300,
    });
    expect(r.matches[0]?.segments[0]?.stats.kills?.value).toBe(14);
    expect(r.matches[0]?.segments[0]?.stats.kd?.value).toBe(14);
    expect(r.matches[0]?.segments[0]?.stats.matchesPlayed).toBeUndefined();
    expect(r.metadata.next).toBeNull();
  });

  it('gives both teams and every player in a report, reachable from each player’s platform', async () => {
    const report = await data('StatisticalObject', '/v1/title_a/matches/pc_store_a/direct/a-1');
    expect(report.metadata).toMatchObject({
      map: { displayValue: 'Foundry' },
      mode: { displayValue: 'Team Deathmatch' },
      queue: 'social',
      season: 1,
      duration: 600,
    });
    expect(report.children.map((c) => [c.type, c.metadata.name, c.metadata.isWinner, c.stats.kills?.value])).toEqual([
      ['team', 'blue', false, 5],
      ['team', 'red', true, 10],
      ['player', 'Ashen Knight', false, 5],
      ['player', 'Ash', true, 10],
    ]);
    expect(report.children[3]?.attributes).toMatchObject({ platformSlug: 'pc_store_a', platformUserIdentifier: '76561198000000042', teamId: 'red' });
    const fromConsole = await data('StatisticalObject', '/v1/title_a/matches/console_a/direct/a-1');
    expect(fromConsole.attributes.id).toBe('a-1');
  });

  it('says a team that won won in its result too, whatever its first player’s result', async () => {
    const player = (id: string, team: string, result: string) => ({ id, platform: 'pc_store_a', team, result, stats: { kills: 1 } });
    const line = JSON.stringify({
      type: 'match',
      title: 'title_a',
      platform: 'pc_store_a',
      id: 'mixed-1',
      startedAt: '2026-11-01T18:00:00.000Z',
      durationSeconds: 600,
      players: [player('m1', 'blue', 'loss'), player('m2', 'blue', 'win'), player('m3', 'red', 'loss')],
    });
    const own = await startService([line]);
    try {
      const res = await own.request('/v1/title_a/matches/pc_store_a/direct/mixed-1');
      const report = strictly(envelopeOf(PAYLOAD_SCHEMAS.StatisticalObject), res.body).data;
      expect(report.children.filter((c) => c.type === 'team').map((c) => [c.metadata.name, c.metadata.isWinner, c.metadata.result])).toEqual([
        ['blue', true, 'win'],
        ['red', false, 'loss'],
      ]);
    } finally {
      await own.close();
    }
  });

  it('answers 404 MatchNotFound for an unknown match or one not played on that platform', async () => {
    expect((await error('/v1/title_a/matches/pc_store_a/direct/nope', 404)).code).toBe('MatchNotFound');
    expect((await error('/v1/title_a/matches/console_b/direct/a-1', 404)).code).toBe('MatchNotFound');
    expect((await error('/v1/title_a/matches/pc_store_a/direct/b-1', 404)).code).toBe('MatchNotFound');
  });

  it('refuses a cursor whose parts no cursor holds: a control character or space in the id, a time not a whole number, another arity', async () => {
    const cursor = (parts: unknown[]) => Buffer.from(JSON.stringify(parts)).toString('base64url');
    const odd: unknown[][] = [
      [1_800_000_000_000, 'a\u0000'],
      [1_800_000_000_000, 'a\nb'],
      [1_800_000_000_000, 'a b'],
      [1_800_000_000_000, 'x'.repeat(101)],
      [1_800_000_000_000, ''],
      [1.5, 'a-1'],
      ['1800000000000', 'a-1'],
      [1_800_000_000_000],
      [1_800_000_000_000, 'a-1', 1],
    ];
    for (const parts of odd) {
      const e = await error(`${A}/matches/pc_store_a/76561198000000042?next=${cursor(parts)}`, 400);
      expect(e, JSON.stringify(parts)).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'next' } });
    }
    // The reviewer's cursor, as sent: PostgreSQL refused its NUL with a 500.
    expect((await error(`${A}/matches/pc_store_a/76561198000000042?next=WzE4MDAwMDAwMDAwMDAsImFcdTAwMDAiXQ`, 400)).data.parameter).toBe('next');
    // A cursor as the service gives them out still pages: the matches before a-3.
    const after = await data('MatchResult', `${A}/matches/pc_store_a/76561198000000042?next=${cursor([SMALL_T0 + 40 * 60_000, 'a-3'])}`);
    expect(after.matches.map((m) => m.attributes.id)).toEqual(['a-2', 'a-1']);
  });

  it('refuses a cursor of another player’s list (followed, it skipped this player’s newer matches), and pages with this player’s', async () => {
    const at = { startedAt: SMALL_T0 + 40 * 60_000, matchId: 'a-3' };
    const own = encodeCursor(at, { title: 'title_a', platform: 'pc_store_a', id_norm: '76561198000000042' });
    const after = await data('MatchResult', `${A}/matches/pc_store_a/76561198000000042?next=${own}`);
    expect(after.matches.map((m) => m.attributes.id)).toEqual(['a-2', 'a-1']);
    const theirs = encodeCursor(at, { title: 'title_a', platform: 'console_b', id_norm: 'bolt_77' });
    const e = await error(`${A}/matches/pc_store_a/76561198000000042?next=${theirs}`, 400);
    expect(e).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'next' } });
    expect(e.message).toContain("the cursor pages another player's matches");
  });

  it('refuses a bad cursor and an odd match id', async () => {
    expect((await error(`${A}/matches/pc_store_a/76561198000000042?next=garbage`, 400)).data.parameter).toBe('next');
    expect((await error('/v1/title_a/matches/pc_store_a/direct/a%20b', 400)).data.parameter).toBe('matchId');
    expect((await error(`/v1/title_a/matches/pc_store_a/direct/${'x'.repeat(101)}`, 400)).data.parameter).toBe('matchId');
  });
});

describe('search', () => {
  const S = (title: string, platform: string, query: string) => `/v2/${title}/standard/search?platform=${platform}&query=${encodeURIComponent(query)}`;

  it('finds the exact identifier first, then handles by prefix, case-insensitively', async () => {
    const r = await data('CollectorSearchResult[]', S('title_c', 'pc_store_c', 'ember'));
    expect(r.map((x) => x.platformUserHandle)).toEqual(['Ember#4471', 'Embertide#1000']);
    const exact = await data('CollectorSearchResult[]', S('title_c', 'pc_store_c', 'EMBERTIDE#1000'));
    expect(exact.map((x) => x.platformUserHandle)).toEqual(['Embertide#1000']);
    expect(exact[0]).toMatchObject({ platformId: 6, platformSlug: 'pc_store_c', platformUserIdentifier: 'Embertide#1000' });
    expect(await data('CollectorSearchResult[]', S('title_c', 'pc_store_c', 'zzz'))).toEqual([]);
  });

  it('takes a community profile URL or a bare vanity name on pc_store_a', async () => {
    for (const q of ['https://community.example.com/id/ashplays', 'community.example.com/profiles/76561198000000042/', 'AshPlays']) {
      const r = await data('CollectorSearchResult[]', S('title_a', 'pc_store_a', q));
      expect(
        r.map((x) => x.platformUserId),
        q,
      ).toEqual(['76561198000000042']);
    }
    const d = await data('CollectorSearchResult[]', S('title_d', 'pc_store_a', 'dusty_d'));
    expect(d.map((x) => x.platformUserHandle)).toEqual(['Dusty']);
  });

  it('refuses a missing or empty query or platform, naming the parameter', async () => {
    expect((await error('/v2/title_c/standard/search?platform=pc_store_c', 400)).data.parameter).toBe('query');
    expect((await error('/v2/title_c/standard/search?platform=pc_store_c&query=', 400)).data.parameter).toBe('query');
    const p = await error('/v2/title_c/standard/search?query=ember', 400);
    expect(p.data).toMatchObject({ parameter: 'platform', allowed: ['pc_store_c', 'console_b', 'console_a'] });
    expect((await error('/v2/title_b/standard/search?platform=pc_store_c&query=rift', 400)).data.allowed).toEqual(['pc_store_b', 'console_a', 'console_b']);
  });
});

describe('sessions (title_b)', () => {
  const path = '/v2/title_b/standard/profile/pc_store_b/Rift/sessions';

  it('splits at exactly 45:00 between the end of a match and the start of the next, not at 44:59', async () => {
    const r = await data('SessionList', path);
    expect(r.items.map((s) => s.matches.map((m) => m.id))).toEqual([['b-3'], ['b-2', 'b-1']]);
    const older = r.items[1]!;
    expect(older.metadata).toMatchObject({
      startDate: { value: new Date(SMALL_T0).toISOString() },
      endDate: { value: new Date(SMALL_T0 + 65 * 60_000).toISOString() },
      duration: { value: '01:05:00' },
      isActive: { value: false, displayValue: 'False' },
    });
    expect(older).not.toHaveProperty('attributes');
    expect(older.stats.kills?.value).toBe(4);
    expect(older.stats.matchesPlayed?.value).toBe(2);
    expect(older.matches[0]?.metadata.character).toMatchObject({ value: 'Octane', displayValue: 'Octane' });
    expect(older.matches[0]?.metadata.endDate?.value).toBe(new Date(SMALL_T0 + 65 * 60_000).toISOString());
    expect(older.matches[0]?.metadata.result).toEqual({ value: 'loss', displayValue: 'Loss' });
  });

  it('is active while the newest match ended less than 45 minutes ago', async () => {
    const newestEnd = SMALL_T0 + 130 * 60_000;
    clock = newestEnd + 44 * 60_000 + 59_000;
    expect((await data('SessionList', path)).items[0]?.metadata.isActive).toEqual({ value: true, displayValue: 'True' });
    clock = newestEnd + 45 * 60_000;
    const r = await data('SessionList', path);
    expect(r.items[0]?.metadata.isActive?.value).toBe(false);
    expect(r.items[1]?.metadata.isActive?.value).toBe(false);
    expect(Date.parse(r.expiryDate ?? '')).toBeGreaterThan(clock);
  });
});

describe('platforms and identifiers', () => {
  it('refuses a platform the endpoint does not serve with 400 naming the allowed values', async () => {
    // title_b: pc_store_c is served by segments but not by profile and sessions.
    const profile = await error('/v2/title_b/standard/profile/pc_store_c/Rift%230042', 400);
    expect(profile).toMatchObject({
      code: 'InvalidParameter',
      data: { parameter: 'platform', value: 'pc_store_c', allowed: ['pc_store_b', 'console_a', 'console_b'] },
    });
    const segments = await error('/v2/title_b/standard/profile/pc_store_b/Rift/segments/legend', 400);
    expect(segments.data.allowed).toEqual(['pc_store_c', 'console_b', 'console_a']);
    expect((await error('/v2/title_d/standard/profile/console_a/x', 400)).data.allowed).toEqual(['pc_store_a']);
    expect((await error('/v2/title_a/standard/profile/switch/x', 400)).data.value).toBe('switch');
  });

  it('answers odd identifiers with a clean 400 or 404, never a 500', async () => {
    const cases: [string, number][] = [
      ['a%2Fb', 400],
      // A client resolves a literal `..` segment before sending: an unknown path.
      ['..', 404],
      ['a..b', 400],
      ['%2E%2E', 404],
      ['x%2E%2E', 400],
      ['a%00b', 400],
      ['a%0Ab', 400],
      [encodeURIComponent('x'.repeat(200)), 400],
      ['%E0%A4%A', 400],
      ['%', 400],
      ['%20', 400],
      [encodeURIComponent('"; DROP TABLE players; --'), 404],
      [encodeURIComponent('@everyone'), 404],
      [encodeURIComponent('名前#1234'), 404],
      [encodeURIComponent('a\u200bb'), 404],
      ['a/b', 404],
    ];
    for (const [id, status] of cases) {
      const res = await service.request(`/v2/title_c/standard/profile/pc_store_c/${id}`);
      expect(res.status, `${id}: ${res.text}`).toBe(status);
      ErrorBodySchema.parse(res.body);
    }
    expect((await service.request(`/v2/title_c/standard/profile/pc_store_c/${encodeURIComponent('x'.repeat(199))}`)).status).toBe(404);
  });
});

describe('a NUL in any text of a request', () => {
  // PostgreSQL refuses a NUL in text with an error of its own (a 500 here); SQLite takes it. Each
  // of these must be refused before it reaches either store.
  it('is refused with a 400 naming the parameter, on every endpoint that takes text', async () => {
    const nul = '%00';
    const cases: [string, string][] = [
      [`${A}/profile/pc_store_a/a${nul}b`, 'platformUserIdentifier'],
      [`${A}/profile/pc_store_a/a${nul}b/segments/map`, 'platformUserIdentifier'],
      [`${A}/profile/pc_store_a/76561198000000042/segments/map${nul}`, 'segmentType'],
      [`${A}/profile/pc_store_a/76561198000000042/segments/map?queue=ranked${nul}`, 'queue'],
      [`${A}/profile/pc_store_a/76561198000000042/segments/map?season=1${nul}`, 'season'],
      [`${A}/matches/pc_store_a/a${nul}b`, 'platformUserIdentifier'],
      [`${A}/matches/pc_store_a/76561198000000042?next=${Buffer.from(JSON.stringify([1, 'a\u0000'])).toString('base64url')}`, 'next'],
      [`/v1/title_a/matches/pc_store_a/direct/a-1${nul}`, 'matchId'],
      [`${A}/search?platform=pc_store_a&query=ash${nul}`, 'query'],
      [`${A}/search?platform=pc_store_a${nul}&query=ash`, 'platform'],
      [`${A}/profile/pc_store_a${nul}/ash`, 'platform'],
      ['/v2/title_b/standard/profile/pc_store_b/Rift%00/sessions', 'platformUserIdentifier'],
    ];
    for (const [path, parameter] of cases) expect((await error(path, 400)).data.parameter, path).toBe(parameter);
  });
});

describe('the HTTP surface', () => {
  it('answers 404 for unknown paths and titles', async () => {
    for (const path of [
      '/',
      '/v2',
      '/v2/title_e/standard/search?platform=pc_store_a&query=x',
      '/v3/title_a/standard/profile/pc_store_a/x',
      '/v2/title_c/standard/matches/pc_store_c/x',
      '/v2/title_a/standard/profile/pc_store_a/x/segments',
    ]) {
      const e = await error(path, 404);
      expect(e.code, path).toBe('NotFound');
    }
  });

  it('answers 405 for methods other than GET, HEAD and OPTIONS, and HEAD without a body', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const e = await error(`${A}/profile/pc_store_a/76561198000000042`, 405, { method });
      expect(e.code).toBe('MethodNotAllowed');
      expect(e.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    }
    const head = await service.request(`${A}/profile/pc_store_a/76561198000000042`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers CONNECT with 405 and the errors envelope instead of dropping the connection', async () => {
    for (const target of [`${A}/profile/pc_store_a/76561198000000042`, 'stats.example.com:443']) {
      const res = await rawRequest(`CONNECT ${target} HTTP/1.1\r\nHost: stats.example.com:443\r\n\r\n`);
      expect(res.status, target).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.get('connection')).toBe('close');
      const body = ErrorBodySchema.parse(JSON.parse(res.text));
      expect(body.errors[0]?.code).toBe('MethodNotAllowed');
    }
  });

  it('answers OPTIONS on an endpoint with 204 and the methods it allows, and 404 where there is none', async () => {
    for (const path of [
      `${A}/profile/pc_store_a/76561198000000042`,
      '/v1/title_a/matches/pc_store_a/direct/a-1',
      `${A}/search?platform=pc_store_a&query=ash`,
    ]) {
      const res = await service.request(path, { method: 'OPTIONS' });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(res.text).toBe('');
    }
    expect((await error('/v2/title_e/standard/search', 404, { method: 'OPTIONS' })).code).toBe('NotFound');
  });

  it('takes a request target in absolute form by its path and query', async () => {
    const res = await rawRequest(
      `GET http://stats.example.com${A}/profile/pc_store_a/76561198000000042/segments/map?season=2 HTTP/1.1\r\nHost: stats.example.com\r\nConnection: close\r\n\r\n`,
    );
    expect(res.status, res.text).toBe(200);
    const maps = strictly(envelopeOf(PAYLOAD_SCHEMAS['Segment[]']), JSON.parse(res.text)).data;
    expect(maps.map((s) => [s.attributes.key, s.stats.kills?.value])).toEqual([
      ['Foundry', 6],
      ['Harbor', 14],
    ]);
    const nova = await rawRequest('GET HTTPS://x/v2/title_c/standard/profile/pc_store_c/Ember%234471 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(nova.status, nova.text).toBe(200);
  });

  it('answers a request the HTTP parser refuses with the errors envelope and closes the connection', async () => {
    const tooLong = await rawRequest(`GET ${A}/profile/pc_store_a/${'x'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const bytes = await rawRequest(
      Buffer.concat([Buffer.from(`GET ${A}/profile/console_a/N`), Buffer.from([0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]),
    );
    for (const [res, status] of [
      [tooLong, 431],
      [bytes, 400],
    ] as const) {
      expect(res.status, res.text).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('connection')).toBe('close');
      expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(res.text));
      expect(ErrorBodySchema.parse(JSON.parse(res.text)).errors[0]).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'request' } });
    }
    // The service keeps serving.
    await data('StatsProfile', `${A}/profile/pc_store_a/76561198000000042`);
  });

  it('answers a refused request on a connection only while no other answer has begun on it', async () => {
    // A server of its own, whose answer to /slow stays half sent until the test ends it.
    let endSlow = () => undefined as void;
    const server = createServer((req, res) => {
      if (req.url !== '/slow') return void res.end('done');
      res.writeHead(200, { 'content-length': '10' });
      res.write('first');
      endSlow = () => res.end('-last');
    });
    answerParserErrors(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const refused = Buffer.concat([Buffer.from('GET /'), Buffer.from([0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]);
    /** A request to `path`, then, once its answer has begun (`seen`), the refused one: what the connection reads until the server closes. */
    const twoRequests = (path: string, seen: string) => {
      let sent = false;
      return exchange(url, `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`, (text, send) => {
        if (sent || !text.includes(seen)) return;
        sent = true;
        send(refused);
      });
    };
    try {
      // The first answer ended: the refused request is answered after it.
      const after = await twoRequests('/done', 'done');
      expect(after.startsWith('HTTP/1.1 200 OK')).toBe(true);
      expect(after.indexOf('HTTP/1.1 400 Bad Request')).toBeGreaterThan(after.indexOf('done'));
      expect(after).toContain('"InvalidParameter"');
      // Half of an answer sent: the connection closes without a second answer in the middle of it.
      const during = await twoRequests('/slow', 'first');
      expect(during.startsWith('HTTP/1.1 200 OK')).toBe(true);
      expect(during.endsWith('\r\n\r\nfirst')).toBe(true);
    } finally {
      endSlow();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('answers an HTTP/1.1 request without Host, and an expectation it cannot meet, in the errors envelope', async () => {
    const path = `${A}/profile/pc_store_a/76561198000000042`;
    const noHost = await rawRequest(`GET ${path} HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expect(noHost.status, noHost.text).toBe(400);
    expect(ErrorBodySchema.parse(JSON.parse(noHost.text)).errors[0]).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'host' } });
    // HTTP/1.0 has no Host to require.
    expect((await rawRequest(`GET ${path} HTTP/1.0\r\n\r\n`)).status).toBe(200);
    const expect417 = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: foo\r\n\r\n`);
    expect(expect417.status, expect417.text).toBe(417);
    expect(expect417.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(expect417.headers.get('content-length'))).toBe(Buffer.byteLength(expect417.text));
    expect(ErrorBodySchema.parse(JSON.parse(expect417.text)).errors[0]).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'expect' } });
    const continued = await rawRequest(`GET ${path} HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
    expect(continued.text).toContain('"platformInfo"');
  });

  it('refuses two Host headers or one that is no host, and answers a method HTTP does not know with 405', async () => {
    const path = `${A}/profile/pc_store_a/76561198000000042`;
    for (const hosts of ['Host: x\r\nHost: y', 'Host: a b', 'Host: a/b']) {
      const res = await rawRequest(`GET ${path} HTTP/1.1\r\n${hosts}\r\nConnection: close\r\n\r\n`);
      expect(res.status, hosts).toBe(400);
      expect(ErrorBodySchema.parse(JSON.parse(res.text)).errors[0], hosts).toMatchObject({ code: 'InvalidParameter', data: { parameter: 'host' } });
    }
    for (const host of ['stats.example.com:8787', '127.0.0.1', '[::1]:8787', '']) {
      expect((await rawRequest(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).status, host).toBe(200);
    }
    for (const method of ['BREW', 'get']) {
      const res = await rawRequest(`${method} ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
      expect(ErrorBodySchema.parse(JSON.parse(res.text)).errors[0]?.code).toBe('MethodNotAllowed');
    }
  });

  it('quotes back at most 100 characters of a value, never half an emoji, in its data and its message', async () => {
    const e = await error(`${A}/profile/console_a/a${'%F0%9F%98%80'.repeat(100)}`, 400);
    const value = String(e.data.value);
    expect(value.endsWith('…')).toBe(true);
    expect(value.length).toBeLessThanOrEqual(100);
    // A value of 101 characters is cut to 100, the mark the last; one of 100 is whole.
    expect((await error(`${A}/profile/pc_store_a/76561198000000042/segments/${'y'.repeat(101)}`, 400)).data.value).toBe(`${'y'.repeat(99)}…`);
    expect((await error(`${A}/profile/pc_store_a/76561198000000042/segments/${'y'.repeat(100)}`, 400)).data.value).toBe('y'.repeat(100));
    expect(value).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const long = await service.request(`${A}/profile/console_a/Ashen%20Knight/segments/${'x'.repeat(15_000)}`);
    expect(long.status).toBe(400);
    expect(long.text.length).toBeLessThan(1_000);
  });

  it('answers an internal failure with 500 Internal and no details, and keeps serving', async () => {
    const broken = await startService(smallLines());
    try {
      // A statement that fails inside the store: the table it reads is gone.
      await broken.store.sql('DROP TABLE player_totals');
      const res = await broken.request(`${A}/profile/pc_store_a/76561198000000042`);
      expect(res.status).toBe(500);
      expect(ErrorBodySchema.parse(res.body).errors[0]).toEqual({ code: 'Internal', message: 'The service failed to answer this request.', data: {} });
      expect(res.text).not.toMatch(/player_totals|sqlite|at /i);
      expect((await broken.request('/v2/title_c/standard/search?platform=pc_store_c&query=emb')).status).toBe(200);
    } finally {
      await broken.close();
    }
  });

  it('tolerates a trailing slash', async () => {
    await data('StatsProfile', `${A}/profile/pc_store_a/76561198000000042/`);
  });
});

describe('API keys and rate limit', () => {
  it('answers 401 without a key or with a wrong one when keys are configured', async () => {
    const keyed = await startService(smallLines(), { apiKeys: ['k-one', 'k-two'] });
    try {
      const none = await keyed.request(`${A}/profile/pc_store_a/76561198000000042`);
      expect(none.status).toBe(401);
      // RFC 9110 11.6.1: a 401 names the scheme it wants.
      expect(none.headers.get('www-authenticate')).toBe('TRN-Api-Key');
      expect(ErrorBodySchema.parse(none.body).errors[0]?.code).toBe('Unauthorized');
      const wrong = await keyed.request(`${A}/profile/pc_store_a/76561198000000042`, { headers: { 'TRN-Api-Key': 'k-three' } });
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('k-one');
      const right = await keyed.request(`${A}/profile/pc_store_a/76561198000000042`, { headers: { 'TRN-Api-Key': 'k-two' } });
      expect(right.status).toBe(200);
    } finally {
      await keyed.close();
    }
  });

  it('answers 429 with Retry-After once a key has used its requests of the minute', async () => {
    let now = 1_000_000;
    const limited = await startService(smallLines(), { apiKeys: ['k1', 'k2'], rateLimitPerMinute: 3, now: () => now });
    try {
      const get = (key: string) => limited.request(`${A}/profile/pc_store_a/76561198000000042`, { headers: { 'TRN-Api-Key': key } });
      for (let i = 0; i < 3; i++) expect((await get('k1')).status).toBe(200);
      const refused = await get('k1');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('20');
      expect(ErrorBodySchema.parse(refused.body).errors[0]).toMatchObject({ code: 'RateLimited', data: { retryAfterSeconds: 20 } });
      // Another key has its own allowance.
      expect((await get('k2')).status).toBe(200);
      now += 20_000;
      expect((await get('k1')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});

describe('a private player in a match report', () => {
  it('is listed with name, team and result but no stats, and their stats stay out of their team’s sums', async () => {
    const lines = [
      { type: 'player', title: 'title_a', platform: 'console_a', id: 'Open', handle: 'Open' },
      { type: 'player', title: 'title_a', platform: 'console_a', id: 'Hush', handle: 'Hush', private: true },
      {
        type: 'match',
        title: 'title_a',
        platform: 'console_a',
        id: 'p-1',
        startedAt: '2026-11-01T18:00:00.000Z',
        durationSeconds: 600,
        map: 'Foundry',
        mode: 'Team Deathmatch',
        playlist: 'Unranked',
        queue: 'social',
        season: 1,
        players: [
          { id: 'Open', platform: 'console_a', team: 'red', result: 'win', stats: { kills: 4, deaths: 2 } },
          { id: 'Hush', platform: 'console_a', team: 'red', result: 'win', stats: { kills: 9, deaths: 1 } },
          { id: 'Rival', platform: 'console_b', team: 'blue', result: 'loss', stats: { kills: 3, deaths: 13 } },
        ],
      },
    ];
    const hushed = await startService(lines.map((l) => JSON.stringify(l)));
    try {
      expect((await hushed.request(`${A}/profile/console_a/Hush`)).status).toBe(451);
      const res = await hushed.request('/v1/title_a/matches/console_a/direct/p-1');
      expect(res.status, res.text).toBe(200);
      const report = strictly(envelopeOf(PAYLOAD_SCHEMAS.StatisticalObject), res.body).data;
      expect(report.children.map((c) => [c.type, c.metadata.name, c.attributes.teamId, c.metadata.result, c.metadata.isWinner, c.stats.kills?.value])).toEqual([
        ['team', 'blue', undefined, 'loss', false, 3],
        ['team', 'red', undefined, 'win', true, 4],
        ['player', 'Rival', 'blue', 'loss', false, 3],
        ['player', 'Hush', 'red', 'win', true, undefined],
        ['player', 'Open', 'red', 'win', true, 4],
      ]);
      expect(report.children.find((c) => c.metadata.name === 'Hush')?.stats).toEqual({});
      expect(res.text).not.toContain('"value":9');
    } finally {
      await hushed.close();
    }
  });
});

describe('a player with no matches yet', () => {
  it('has a profile of zero matches that the shared schema accepts', async () => {
    const lonely = await startService(['{"type":"player","title":"title_c","platform":"console_a","id":"Lonely","handle":"Lonely"}']);
    try {
      const res = await lonely.request('/v2/title_c/standard/profile/console_a/Lonely');
      expect(res.status).toBe(200);
      const profile = strictly(envelopeOf(PAYLOAD_SCHEMAS.StatsProfile), res.body).data;
      expect(profile.segments[0]?.stats.matchesPlayed?.value).toBe(0);
    } finally {
      await lonely.close();
    }
  });

  it('has the lifetime overview its profile lists on the segments endpoint too, as zeros; no season, no map', async () => {
    const lonely = await startService(['{"type":"player","title":"title_a","platform":"pc_store_a","id":"76561198000000999","handle":"Lonely"}']);
    try {
      const path = `${A}/profile/pc_store_a/76561198000000999`;
      const profile = strictly(envelopeOf(PAYLOAD_SCHEMAS.StatsProfile), (await lonely.request(path)).body).data;
      expect(profile.availableSegments.map((s) => s.type)).toEqual(['overview']);
      const overview = await lonely.request(`${path}/segments/overview`);
      expect(overview.status, overview.text).toBe(200);
      const list = strictly(envelopeOf(PAYLOAD_SCHEMAS['Segment[]']), overview.body).data;
      expect(list).toHaveLength(1);
      expect(list[0]?.metadata.name).toBe('Lifetime');
      expect(list[0]?.stats.matchesPlayed?.value).toBe(0);
      expect(Object.keys(list[0]?.stats ?? {}).sort()).toEqual(Object.keys(profile.segments[0]?.stats ?? {}).sort());
      for (const other of ['overview?season=2', 'map'])
        expect(strictly(envelopeOf(PAYLOAD_SCHEMAS['Segment[]']), (await lonely.request(`${path}/segments/${other}`)).body).data, other).toEqual([]);
    } finally {
      await lonely.close();
    }
  });
});
