// Real-shaped answers, served over HTTP on loopback and read by the lookup client as a bot pointed at
// the real stats API would read them, then drawn by the embed builders: each is accepted, shows its
// key numbers, and leaves out (never refuses the answer for) what it cannot read.
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import type { TitleSlug } from '../../src/catalog/index.js';
import { profileCard } from '../../src/cards/model.js';
import { compareReply, compareRows } from '../../src/embeds/compare.js';
import { errorReply, matchReportReply, matchesReply, profileReply, searchReply, segmentsReply, sessionsReply, type Reply } from '../../src/embeds/index.js';
import type { LookupMeta } from '../../src/lookup/client.js';
import { REQUESTS_REFUSED } from '../../src/lookup/errors.js';
import { MatchResultSchema, SessionListSchema, StatsProfileSchema, readPayload } from '../../src/lookup/schemas.js';
import { messageErrors } from '../discord-double/validate.js';
import {
  NO_EXPIRY,
  fullLegendSegments,
  fullMatches,
  fullReport,
  fullSearch,
  fullSessions,
  fullTitleBProfile,
  fullTitleDProfile,
  minimalLegendSegments,
  minimalMatches,
  minimalProfile,
  minimalReport,
  minimalSearch,
  minimalSessions,
  olderProfile,
} from '../fixtures/real-shapes.js';
import { startFaultServer, type FaultServer } from '../helpers/fault-server.js';
import { testLookup, type TestLookup } from '../helpers/lookup.js';

let server: FaultServer;
let t: TestLookup | undefined;

beforeAll(async () => {
  server = await startFaultServer();
});
afterAll(async () => {
  await server.close();
});
afterEach(async () => {
  await t?.client.close();
  await t?.cache.close();
  t = undefined;
});

async function lookupWith(options: Parameters<typeof testLookup>[1] = {}) {
  t = await testLookup(server.url, options);
  return t.client;
}

function lookup(): TestLookup {
  if (!t) throw new Error('no lookup client yet');
  return t;
}

const meta: LookupMeta = { source: 'network', fetchedAt: Date.now(), ageMs: 0 };

/** Everything a reader sees of a reply, as one text (a no-break space reads as a space). */
function visible(reply: Reply): string {
  return reply.embeds
    .flatMap((e) => [e.author?.name, e.title, e.description, ...(e.fields ?? []).flatMap((f) => [f.name, f.value]), e.footer?.text])
    .filter(Boolean)
    .join('\n')
    .replaceAll('\u00a0', ' ');
}

/** A reply Discord would take: within its limits, and every link in it an http(s) URL. */
function expectSendable(reply: Reply): void {
  expect(messageErrors({ embeds: reply.embeds, components: reply.components })).toEqual([]);
  for (const e of reply.embeds)
    for (const link of [e.thumbnail?.url, e.author?.icon_url, e.image?.url]) if (link !== undefined) expect(link).toMatch(/^https?:\/\/\S+$/);
}

const served = (body: unknown) => server.script({ status: 200, body: { data: body } });

describe('profiles in the real layouts', () => {
  it('accepts a minimal profile and derives its K/D from the sums', async () => {
    served(minimalProfile());
    const r = await (await lookupWith()).profile('title_c', 'console_a', 'Minimo');
    expect(r.errors).toBeUndefined();
    const reply = profileReply(r.data!, 'title_c', meta);
    expect(reply.embeds[0]?.title).toBe('Minimo');
    expect(reply.embeds[0]?.description).toMatch(/^### K\/D\u00a02\.50/);
    expectSendable(reply);
  });

  it('leads a title_d profile with its win rate and headshot rate, whatever their keys', async () => {
    served(fullTitleDProfile());
    const r = await (await lookupWith()).profile('title_d', 'pc_store_a', '76561198000000099');
    const reply = profileReply(r.data!, 'title_d', meta);
    const lines = (reply.embeds[0]?.description ?? '').split('\n').filter(Boolean);
    expect(lines[0]).toBe('### K/D\u00a00.88\u00a0· Win\u00a052.3%');
    const figureLines = lines.filter((l) => /^\w[\w/ ]+ \*\*/.test(l));
    expect(figureLines.slice(0, 2)).toEqual(['Headshots **48.1%** · top\u00a012%', 'Accuracy **17.6%** · top\u00a045%']);
    // Each figure once.
    expect(JSON.stringify(reply.embeds).split('52.3%')).toHaveLength(2);
    expectSendable(reply);
  });

  it('shows a ranked rating’s tier, and keeps the fields it does not know', async () => {
    served(fullTitleBProfile());
    const r = await (await lookupWith()).profile('title_b', 'pc_store_b', 'Wraithling');
    expect(r.data?.metadata).toMatchObject({ isGameBanned: false, activeLegend: 'legend_2' });
    expect(r.data?.segments[0]?.stats.rankScore?.metadata).toMatchObject({ rankName: 'Diamond 1' });
    const text = visible(profileReply(r.data!, 'title_b', meta));
    expect(text).toContain('### Diamond 1 · 8,421');
    expect(text).toContain('Legend **Wraith**');
  });

  it('reads an older answer: userInfo without most fields, no avatar, metadata null, no available segments or expiry', async () => {
    served(olderProfile());
    const r = await (await lookupWith()).profile('title_c', 'console_a', 'OldTimer');
    expect(r.errors).toBeUndefined();
    expect(r.data?.availableSegments).toEqual([]);
    const text = visible(profileReply(r.data!, 'title_c', meta));
    expect(text).toContain('K/D 2.00 · Win 50.0%');
  });

  it('leaves out an avatar that is not an http(s) link, noting it at debug, instead of refusing the answer', async () => {
    const body = fullTitleDProfile();
    (body.platformInfo as Record<string, unknown>).avatarUrl = 'javascript:alert(1)';
    served(body);
    const r = await (await lookupWith()).profile('title_d', 'pc_store_a', '76561198000000099');
    expect(r.data?.platformInfo.avatarUrl).toBeNull();
    expect(lookup().logs()).toContain('platformInfo.avatarUrl');
    const reply = profileReply(r.data!, 'title_d', meta);
    expect(reply.embeds[0]?.thumbnail).toBeUndefined();
    expectSendable(reply);
  });

  it('refuses only what it cannot show: neither a name nor stats', async () => {
    const client = await lookupWith();
    served({ ...minimalProfile(), platformInfo: { platformSlug: 'console_a' }, segments: [] });
    expect((await client.profile('title_c', 'console_a', 'a')).errors?.[0]).toMatchObject({ kind: 'invalid_response' });
    // A handle may stand in for a missing identifier, and the other way round; with neither, the name asked for, not a bare user id.
    served({ ...minimalProfile(), platformInfo: { platformUserIdentifier: 'only-id' } });
    expect((await client.profile('title_c', 'console_a', 'c')).data?.platformInfo.platformUserHandle).toBe('only-id');
    served({ ...minimalProfile(), platformInfo: { platformUserHandle: null, platformUserIdentifier: null, platformUserId: 12345 } });
    expect((await client.profile('title_c', 'console_a', 'IdOnly#1')).data?.platformInfo).toMatchObject({
      platformUserHandle: 'IdOnly#1',
      platformUserId: '12345',
    });
    // A user id and no stats: someone, with no stats yet.
    served({ ...minimalProfile(), platformInfo: { platformUserId: 12345 }, segments: [] });
    expect((await client.profile('title_c', 'console_a', 'e')).data?.platformInfo.platformUserHandle).toBe('e');
  });

  it.each([
    ['no platformInfo', null],
    ['an empty platformInfo', {}],
    ['a platformInfo naming no one', { platformSlug: 'console_a', platformUserHandle: null }],
  ])('shows a profile with stats and %s under the name it was asked for', async (_, platformInfo) => {
    served({ ...minimalProfile(), platformInfo });
    const r = await (await lookupWith()).profile('title_c', 'console_a', 'Typed Name');
    expect(r.errors).toBeUndefined();
    expect(r.data?.platformInfo).toMatchObject({ platformUserHandle: 'Typed Name', platformUserIdentifier: 'Typed Name' });
    const reply = profileReply(r.data!, 'title_c', meta);
    expect(reply.embeds[0]?.title).toBe('Typed Name');
    expect(reply.embeds[0]?.description).toContain('K/D');
  });
});

describe('a profile with no stats yet (a player new to the title, or an answer that carries none)', () => {
  const noStats = [
    ['an overview whose stats have no value', [{ type: 'overview', stats: { kills: { value: null, displayValue: null } } }]],
    ['an overview with stats {}', [{ type: 'overview', stats: {} }]],
    ['no segments at all', []],
  ] as const;

  it.each(noStats)('is shown by name with "No stats on record yet." (%s), with no card and nothing to compare', async (_, segments) => {
    served({ ...minimalProfile(), platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Newcomer' }, segments });
    const r = await (await lookupWith()).profile('title_c', 'console_a', 'Newcomer');
    expect(r.errors).toBeUndefined();
    const reply = profileReply(r.data!, 'title_c', meta);
    expect(reply.embeds[0]?.title).toBe('Newcomer');
    expect(visible(reply)).toContain('No stats on record yet.');
    expectSendable(reply);
    expect(profileCard(r.data!, 'title_c')).toBeUndefined();
    // Beside a player who has stats: theirs, a dash for the newcomer, and no one ahead.
    const other = StatsProfileSchema.parse(minimalProfile());
    const rows = compareRows('title_c', other, r.data!);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.right === '–' && row.better === null)).toBe(true);
    const compared = compareReply('title_c', { profile: other, meta }, { profile: r.data!, meta });
    expect(visible(compared)).toContain('Minimo vs Newcomer');
    expectSendable(compared);
  });
});

describe('the other payloads in the real layouts', () => {
  it('shows legend segments by name and marks the one in use; a minimal one is named from its id', async () => {
    const client = await lookupWith();
    served(fullLegendSegments());
    const full = await client.segments('title_b', 'pc_store_c', 'Nova#2231', 'legend');
    const text =
      segmentsReply(full.data!, { title: 'title_b', platform: 'pc_store_c', player: 'Nova#2231', type: 'legend', filter: {}, meta, page: 0, stateId: 's' })
        .embeds[0]?.description ?? '';
    expect(text).toContain('in use: **Wraith**');
    // Legends that carry kills and damage only (no games, wins or deaths): those columns, not a table of dashes.
    expect(text).toContain('```\nLegend      Kills  Dmg\nWraith         6K 1.5M\nBangalore    1.2K    –\n```');
    served(minimalLegendSegments());
    const minimal = await client.segments('title_b', 'pc_store_c', 'Other#1', 'legend');
    expect(minimal.data?.[0]?.metadata.name).toBe('8');
    expect(minimal.data?.[0]?.stats.kills?.displayValue).toBe('31');
  });

  it('reads a sessions list in the real layout: ended sessions as ended, TimeSpan durations, rating changes', async () => {
    served(fullSessions());
    const r = await (await lookupWith()).sessions('title_b', 'pc_store_b', 'Wraithling');
    expect(r.errors).toBeUndefined();
    expect(r.data?.items.map((s) => s.metadata.isActive?.value)).toEqual([false, false]);
    expect(r.data?.items[0]?.matches.map((m) => m.id)).toEqual(['b-real-2', 'b-real-1']);
    const reply = sessionsReply(r.data!.items, { title: 'title_b', platform: 'pc_store_b', player: 'Wraithling', meta, page: 0, stateId: 's' });
    const latest = reply.embeds[0]?.description ?? '';
    expect(visible(reply)).not.toContain('Playing now');
    expect(latest).toMatch(/^### Latest session\n<t:\d+:R>\u00a0· 45m\u00a0· 2 matches\n`LW` \*\*1\u00a0of\u00a02\u00a0won\*\*/);
    expect(latest).toContain('Played Wraith, Bangalore\u00a0· Rating\u00a0**+23**');
    expect(reply.embeds[0]?.fields?.[0]?.value).toMatch(/^<t:\d+:R>\u00a0· 🏆\u00a00\/1\u00a0· Rating\u00a0−8$/u);
    expectSendable(reply);
  });

  it('reads a session that is still going, by its isActive object, and a minimal session', async () => {
    const body = fullSessions() as { items: { metadata: Record<string, unknown> }[] };
    body.items[0]!.metadata.isActive = { value: true, displayValue: 'True' };
    served(body);
    const client = await lookupWith();
    const live = await client.sessions('title_b', 'pc_store_b', 'Live');
    expect(
      sessionsReply(live.data!.items, { title: 'title_b', platform: 'pc_store_b', player: 'Live', meta, page: 0, stateId: 's' }).embeds[0]?.description,
    ).toMatch(/^### 🟢 Playing now\nStarted <t:\d+:R>/);
    served(minimalSessions());
    const minimal = await client.sessions('title_b', 'pc_store_b', 'Min');
    const reply = sessionsReply(minimal.data!.items, { title: 'title_b', platform: 'pc_store_b', player: 'Min', meta, page: 0, stateId: 's' });
    expect(visible(reply)).not.toContain('Playing now');
    expectSendable(reply);
  });

  it('reads search results, minimal and full', async () => {
    const client = await lookupWith();
    served(minimalSearch());
    const minimal = await client.search('title_b', 'pc_store_b', 'Fin');
    expect(minimal.data).toEqual([expect.objectContaining({ platformUserHandle: 'Finder', platformUserIdentifier: 'Finder' })]);
    served(fullSearch());
    const full = await client.search('title_b', 'pc_store_b', 'Wra');
    const reply = searchReply(full.data!, { title: 'title_b', platform: 'pc_store_b', query: 'Wra', meta, page: 0, stateId: 's' });
    expect(visible(reply)).toContain('Wraithling');
    expectSendable(reply);
  });

  it('reads match lists and reports, minimal and full', async () => {
    const client = await lookupWith();
    served(minimalMatches());
    const minimal = await client.matches('title_a', 'pc_store_a', 'min');
    expect(minimal.data?.metadata.next).toBeNull();
    expectSendable(
      matchesReply(minimal.data!.matches, { title: 'title_a', platform: 'pc_store_a', player: 'min', meta, page: 0, hasMore: false, stateId: 's' }),
    );
    served(fullMatches());
    const full = await client.matches('title_a', 'pc_store_a', 'full');
    expect(
      visible(matchesReply(full.data!.matches, { title: 'title_a', platform: 'pc_store_a', player: 'full', meta, page: 0, hasMore: true, stateId: 's' })),
    ).toContain('17/4/6 · K/D 4.25');
    served(minimalReport());
    expectSendable(matchReportReply((await client.match('title_a', 'pc_store_a', 'r-min')).data!, 'title_a', meta));
    served(fullReport());
    const report = matchReportReply((await client.match('title_a', 'pc_store_a', 'r-full')).data!, 'title_a', meta);
    expect(visible(report)).toContain('19/3/2');
    expectSendable(report);
  });
});

describe('errors and expiry in the real layouts', () => {
  it('reads 451 and both private codes as private, with or without an errors list or data', async () => {
    const client = await lookupWith();
    server.script(
      { status: 451, body: { errors: [{ code: 'CollectorResultStatus::Private', message: 'This profile is still private.' }] } },
      { status: 451, body: { errors: [{ code: 'StandardApiV2::Private', message: 'This profile is still private.' }] } },
      { status: 451, text: '' },
      { status: 403, body: { errors: [{ code: 'CollectorResultStatus::Private', message: 'private' }] } },
    );
    const first = await client.profile('title_c', 'console_a', 'p1');
    expect(first.errors?.[0]).toMatchObject({ kind: 'private', status: 451, message: 'This profile is still private.', data: {} });
    expect((await client.segments('title_c', 'console_a', 'p2', 'hero')).errors?.[0]).toMatchObject({ kind: 'private', code: 'StandardApiV2::Private' });
    expect((await client.profile('title_c', 'console_a', 'p3')).errors?.[0]).toMatchObject({ kind: 'private', status: 451 });
    expect((await client.profile('title_c', 'console_a', 'p4')).errors?.[0]).toMatchObject({ kind: 'private', status: 403 });
  });

  it('keeps a 403 without an errors list as a refused key, and reads error entries without data', async () => {
    const client = await lookupWith();
    server.script(
      { status: 403, body: { message: 'Forbidden' } },
      { status: 404, body: { errors: [{ code: 'CollectorResultStatus::NotFound', message: 'Player not found.' }] } },
    );
    expect((await client.profile('title_c', 'console_a', 'k1')).errors?.[0]).toMatchObject({ kind: 'unauthorized', message: 'Forbidden' });
    expect((await client.profile('title_c', 'console_a', 'k2')).errors?.[0]).toMatchObject({ kind: 'not_found', message: 'Player not found.', data: {} });
  });

  it('reads a CDN’s HTML 403 page as the service refusing this bot’s requests, not as a refused key, and does not ask again', async () => {
    const client = await lookupWith();
    const page =
      '<!DOCTYPE html><html><head><title>Access denied | api.tracker.gg used Cloudflare to restrict access</title></head><body>Error 1020</body></html>';
    server.script({ status: 403, text: page });
    const before = server.requests.length;
    const error = (await client.profile('title_c', 'console_a', 'cdn1')).errors?.[0];
    expect(error).toMatchObject({ kind: 'unavailable', code: REQUESTS_REFUSED, status: 403 });
    expect(error?.message).toMatch(/refused this bot’s requests .*not about the API key/);
    expect(server.requests.length - before).toBe(1);
    // What the user reads: the service is unavailable, not that the bot's key is wrong.
    const told = JSON.stringify(errorReply(error!, { title: 'title_c', platform: 'console_a', player: 'cdn1', locale: 'en-US' }));
    expect(told).not.toMatch(/API key/);
  });

  it('does not let the "no expiry known" date shorten how long an answer is kept', async () => {
    const client = await lookupWith();
    served(fullTitleDProfile());
    const before = server.requests.length;
    expect((await client.profile('title_d', 'pc_store_a', 'keep')).meta.source).toBe('network');
    // Read as a real expiry, year 1 would keep the answer for the floor of 5 seconds only.
    lookup().advance(60_000);
    expect((await client.profile('title_d', 'pc_store_a', 'keep')).meta.source).toBe('cache');
    expect(server.requests.length - before).toBe(1);
    expect(NO_EXPIRY).toMatch(/^0001-/);
  });
});

describe('another service’s literal path values', () => {
  it('sends the configured title and platform values in paths and queries, and reads answers back in the catalog’s names', async () => {
    const client = await lookupWith({ pathValues: { title_b: 'apex', pc_store_b: 'origin' } });
    served(fullTitleBProfile());
    await client.profile('title_b', 'pc_store_b', 'Wraithling');
    served([{ ...fullSearch()[0], platformSlug: 'origin' }]);
    const found = await client.search('title_b', 'pc_store_b', 'Wra');
    served(minimalProfile());
    await client.profile('title_c', 'console_a', 'Minimo');
    expect(server.requests.slice(-3).map((r) => r.url)).toEqual([
      '/v2/apex/standard/profile/origin/Wraithling',
      '/v2/apex/standard/search?platform=origin&query=Wra',
      '/v2/title_c/standard/profile/console_a/Minimo',
    ]);
    expect(found.data?.[0]?.platformSlug).toBe('pc_store_b');
  });
});

// ---------------------------------------------------------------------------------------------
// Any one optional field of a full answer deleted, nulled or emptied: the reply still renders.

type Path = (string | number)[];

/** Every path in a JSON value, leaves and branches. */
function paths(value: unknown, at: Path = []): Path[] {
  if (value === null || typeof value !== 'object') return [];
  const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([k, v]) => [[...at, k], ...paths(v, [...at, k])]);
}

function mutate(value: unknown, path: Path, how: 'delete' | 'null' | 'empty'): unknown {
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let parent = copy;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  if (how === 'delete') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else parent[last] = how === 'null' ? null : {};
  return copy;
}

const key = (p: Path) => p.join('.');
/** What a profile cannot be shown without (the whole overview, its stats map), and the paths inside it. */
const profileRequired = (p: Path) => ['platformInfo', 'segments', 'segments.0', 'segments.0.stats'].includes(key(p));

describe('any one optional field changed', () => {
  const cases: { name: string; title: TitleSlug; body: () => unknown; required: (p: Path) => boolean }[] = [
    { name: 'title_d profile', title: 'title_d', body: fullTitleDProfile, required: profileRequired },
    { name: 'title_b profile', title: 'title_b', body: fullTitleBProfile, required: profileRequired },
  ];
  for (const c of cases) {
    it(`${c.name}: still read and drawn`, () => {
      const all = paths(c.body()).filter((p) => !c.required(p));
      fc.assert(
        fc.property(fc.constantFrom(...all), fc.constantFrom('delete' as const, 'null' as const, 'empty' as const), (path, how) => {
          const parsed = readPayload(StatsProfileSchema, mutate(c.body(), path, how));
          // Losing the last stat the overview had is the one change that may refuse it.
          if (!parsed.success) {
            expect(key(path)).toMatch(/^segments\.0\.stats\./);
            return;
          }
          const reply = profileReply(parsed.data, c.title, meta);
          expect(reply.embeds[0]?.title?.length).toBeGreaterThan(0);
          expectSendable(reply);
        }),
        { numRuns: 300 },
      );
    });
  }

  it('sessions list: still read and drawn', () => {
    const all = paths(fullSessions()).filter((p) => key(p) !== 'items');
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.constantFrom('delete' as const, 'null' as const, 'empty' as const), (path, how) => {
        const parsed = readPayload(SessionListSchema, mutate(fullSessions(), path, how));
        expect(parsed.success).toBe(true);
        if (parsed.success)
          expectSendable(sessionsReply(parsed.data.items, { title: 'title_b', platform: 'pc_store_b', player: 'W', meta, page: 0, stateId: 's' }));
      }),
      { numRuns: 300 },
    );
  });

  it('match list: still read and drawn', () => {
    const all = paths(fullMatches()).filter((p) => key(p) !== 'matches');
    fc.assert(
      fc.property(fc.constantFrom(...all), fc.constantFrom('delete' as const, 'null' as const, 'empty' as const), (path, how) => {
        const parsed = readPayload(MatchResultSchema, mutate(fullMatches(), path, how));
        expect(parsed.success).toBe(true);
        if (parsed.success)
          expectSendable(
            matchesReply(parsed.data.matches, { title: 'title_a', platform: 'pc_store_a', player: 'p', meta, page: 0, hasMore: false, stateId: 's' }),
          );
      }),
      { numRuns: 200 },
    );
  });
});
