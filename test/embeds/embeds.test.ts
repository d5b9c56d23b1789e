// Embed builders against payloads taken from the real service, and against payloads made to break
// Discord's limits.
import type { APIEmbed } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  LIMITS,
  TABLE_WIDTH,
  clampEmbed,
  clip,
  code,
  duration,
  errorReply,
  formatValue,
  goButtons,
  matchReportReply,
  matchesReply,
  parseCustomId,
  profileReply,
  queueName,
  safeText,
  searchReply,
  segmentTypeName,
  segmentsReply,
  sessionsReply,
  topShare,
  agoText,
  typedCode,
  type Reply,
} from '../../src/embeds/index.js';
import { drawable } from '../../src/cards/index.js';
import { TITLES, TITLE_SLUGS } from '../../src/catalog/index.js';
import type { LookupMeta } from '../../src/lookup/client.js';
import { LOOKUP_ERROR_KINDS, lookupError } from '../../src/lookup/errors.js';
import { StatisticalObjectSchema, type SearchResult, type Segment } from '../../src/lookup/schemas.js';
import { servicePayloads, type Payloads } from '../helpers/payloads.js';

let fixtures: Partial<Payloads> = {};

beforeAll(async () => {
  fixtures = await servicePayloads();
});
afterAll(() => undefined);

const network: LookupMeta = { source: 'network', fetchedAt: Date.now(), ageMs: 0 };
const size = (e: APIEmbed) =>
  (e.title?.length ?? 0) +
  (e.description?.length ?? 0) +
  (e.footer?.text.length ?? 0) +
  (e.author?.name.length ?? 0) +
  (e.fields ?? []).reduce((n, f) => n + f.name.length + f.value.length, 0);

function expectWithinLimits(reply: Reply) {
  const total = reply.embeds.reduce((n, e) => n + size(e), 0);
  expect(total).toBeLessThanOrEqual(LIMITS.message);
  for (const e of reply.embeds) {
    expect(e.fields?.length ?? 0).toBeLessThanOrEqual(LIMITS.fields);
    expect(e.title?.length ?? 0).toBeLessThanOrEqual(LIMITS.title);
    expect(e.description?.length ?? 0).toBeLessThanOrEqual(LIMITS.description);
    for (const f of e.fields ?? []) {
      expect(f.name.length).toBeLessThanOrEqual(LIMITS.fieldName);
      expect(f.value.length).toBeLessThanOrEqual(LIMITS.fieldValue);
      expect(f.value.length).toBeGreaterThan(0);
    }
  }
  for (const row of reply.components) for (const c of row.components) if ('custom_id' in c) expect(c.custom_id.length).toBeLessThanOrEqual(LIMITS.customId);
}

describe('embeds from the service’s payloads', () => {
  it('leads a profile with K/D and win rate, then matches, time, character and last played; one avatar at most', () => {
    const r = profileReply(fixtures.profile!, 'title_a', network);
    const e = r.embeds[0]!;
    expect(e.title).toBe('Ash');
    expect(e.author?.name).toBe('Title A · Career');
    const lines = (e.description ?? '').split('\n');
    expect(lines[0]).toBe('### K/D\u00a02.50\u00a0· Win\u00a066.7%');
    expect(lines.slice(1, 4).join('\n')).toContain('**3** matches · **30m** played');
    expect(e.description).toMatch(/Last played <t:\d+:R>/);
    // Ash's figures after the headline: per match, never twelve fields with a place each.
    expect(e.description).toContain('Kills/match **10.00**');
    expect(e.fields ?? []).toEqual([]);
    expect([e.thumbnail, e.author?.icon_url].filter(Boolean).length).toBeLessThanOrEqual(1);
    expect(e.footer?.text).toBe('Title A · PC Store A');
    expect(r.source).toBe('network');
    expectWithinLimits(r);
  });

  it('words places honestly: top X% only in the better half, none for counts, no bare ranks', () => {
    const stat = (value: number, percentile: number) => ({
      rank: 37,
      percentile,
      displayName: 'x',
      displayCategory: null,
      category: null,
      metadata: {},
      value,
      displayValue: String(value),
      displayType: 'Number',
    });
    const profile = {
      ...fixtures.profile!,
      segments: [
        {
          ...fixtures.profile!.segments[0]!,
          stats: {
            kd: stat(1.8, 97),
            winRate: stat(32.3, 6.3),
            kills: stat(1652, 99),
            deaths: stat(1099, 20),
            matchesPlayed: stat(91, 90),
            killsPerMatch: stat(18.2, 75),
          },
        },
      ],
    };
    const text = profileReply(profile, 'title_a', network).embeds[0]?.description ?? '';
    expect(text).toContain('K/D\u00a0top\u00a03%');
    // The win rate's place alone opens its line with a capital; both are held together, the bullet to the first.
    const winOnly = { ...profile, segments: [{ ...profile.segments[0]!, stats: { ...profile.segments[0]!.stats, kd: stat(1.8, 20), winRate: stat(60, 70) } }] };
    expect((profileReply(winOnly, 'title_a', network).embeds[0]?.description ?? '').split('\n')[1]).toBe('Win\u00a0rate\u00a0top\u00a030%');
    const both = { ...profile, segments: [{ ...profile.segments[0]!, stats: { ...profile.segments[0]!.stats, winRate: stat(60, 70) } }] };
    expect((profileReply(both, 'title_a', network, { locale: 'de' }).embeds[0]?.description ?? '').split('\n')[1]).toBe(
      'K/D\u00a0Top\u00a03\u00a0%\u00a0· Siegquote\u00a0Top\u00a030\u00a0%',
    );
    expect(text).toContain('Kills/match **18.20** · top\u00a025%');
    // A 32.3% win rate is in the worse half: no "top 93.7%".
    expect(text).not.toMatch(/top 9\d/);
    expect(text).not.toContain('#37');
    expect(topShare(6.3)).toBeNull();
  });

  it('gives times as live Discord timestamps and the data’s time as the embed’s, never as baked text', () => {
    const cached = profileReply(fixtures.profile!, 'title_a', { source: 'cache', fetchedAt: Date.parse('2026-11-20T10:00:00Z'), ageMs: 5 * 60_000 });
    const e = cached.embeds[0]!;
    expect(e.timestamp).toBe('2026-11-20T10:00:00.000Z');
    expect(JSON.stringify(cached)).not.toMatch(/just now|minutes? ago|hours? ago|days? ago/);
  });

  it('opens stale data with a clear warning and its age', () => {
    const stale = profileReply(fixtures.profile!, 'title_a', {
      source: 'stale',
      fetchedAt: Date.parse('2026-11-20T10:00:00Z'),
      ageMs: 10 * 60_000,
      staleBecause: lookupError('unavailable', 'down'),
    });
    expect(stale.embeds[0]?.description).toMatch(/^⚠️ \*\*The stats service is unavailable\.\*\* These stats are from <t:1795168800:R>/);
  });

  it('writes each column of a segment table to one rounding rule, so that its figures line up', () => {
    const map = (name: string, winRate: number, kd: number) => ({
      type: 'map',
      attributes: { key: name.toLowerCase() },
      metadata: { name },
      stats: {
        matchesPlayed: { value: 5, displayValue: '5' },
        winRate: { value: winRate, displayValue: `${winRate}%` },
        kd: { value: kd, displayValue: String(kd) },
      },
    });
    const rowsOf = (maps: ReturnType<typeof map>[]) =>
      (
        /```\n([^`]+)\n```/.exec(
          segmentsReply(maps as unknown as Segment[], {
            title: 'title_a',
            platform: 'pc_store_a',
            player: 'Ash',
            type: 'map',
            filter: {},
            meta: network,
            page: 0,
            stateId: 's',
          }).embeds[0]?.description ?? '',
        )?.[1] ?? ''
      )
        .split('\n')
        .slice(1)
        .map((l) => l.trim().split(/\s+/).slice(-2));
    // A tenth to show: every win rate with one; a K/D of ten or more: every K/D with one decimal.
    expect(rowsOf([map('Dunes', 80, 0.75), map('Canal', 66.7, 10.5)])).toEqual([
      ['80.0', '0.8'],
      ['66.7', '10.5'],
    ]);
    // A hundred: every win rate whole (`100` beside `66.7` did not line up); K/D under ten: two decimals.
    expect(rowsOf([map('Dunes', 100, 1.5), map('Canal', 66.7, 2)])).toEqual([
      ['100', '1.50'],
      ['67', '2.00'],
    ]);
  });

  it('lists segments as a table that fits a phone: labels once, aligned values, weapon figures for weapons, one scope label', () => {
    const r = segmentsReply(fixtures.segments!, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      type: 'map',
      filter: {},
      meta: network,
      page: 0,
      stateId: 's1',
    });
    const table = /```\n([^`]+)\n```/.exec(r.embeds[0]?.description ?? '')?.[1]?.split('\n') ?? [];
    // 22 characters: what a code block shows on a line at a phone's width (400 px) beside the data's time; a 25th wrapped every row.
    expect(TABLE_WIDTH).toBe(22);
    expect(table[0]).toBe('Map    Games Win%  K/D');
    expect(table.slice(1).map((l) => l.slice(0, 7).trim())).toEqual(['Foundry', 'Harbor']);
    for (const line of table) expect(line.length).toBeLessThanOrEqual(TABLE_WIDTH);
    expect(r.embeds[0]?.description).toMatch(/^\*\*Lifetime\*\*/);
    expect(r.components).toEqual([]);
    const w = segmentsReply(fixtures.weapons!, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      type: 'weapon',
      filter: {},
      meta: network,
      page: 0,
      stateId: 's1',
    });
    const weapons = /```\n([^`]+)\n```/.exec(w.embeds[0]?.description ?? '')?.[1]?.split('\n') ?? [];
    // Weapon figures; no headshots in any weapon of this answer, so no column of dashes for them.
    expect(weapons[0]).toBe('Weapon      Kills Acc%');
    expect(weapons[1]).toBe('Carbine        12   25');
    // None counted where the line below says there are none.
    expect(
      segmentsReply([], { title: 'title_a', platform: 'pc_store_a', player: 'Ash', type: 'map', filter: {}, meta: network, page: 0, stateId: 's1' }).embeds[0]
        ?.description,
    ).toMatch(/^\*\*Lifetime\*\*\nNo maps/);
    expect(r.embeds[0]?.description).toMatch(/^\*\*Lifetime\*\* · 2 in all\n/);
    const season = segmentsReply(fixtures.segments!, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      type: 'map',
      filter: { season: 3, queue: 'ranked' },
      meta: network,
      page: 0,
      stateId: 's1',
    });
    expect(season.embeds[0]?.description).toMatch(/^\*\*Season 3 · Ranked\*\*/);
    // Weapons are lifetime only, but a queue filters them: ranked figures are not called the career's.
    const ranked = segmentsReply(fixtures.weapons!, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      type: 'weapon',
      filter: { queue: 'ranked' },
      meta: network,
      page: 0,
      stateId: 's1',
    });
    expect(ranked.embeds[0]?.description).toMatch(/^\*\*Lifetime · Ranked\*\*/);
    // A list with none: lower case inside the English sentence, a German noun keeps its capital.
    const none = (locale?: string) =>
      segmentsReply([], {
        title: 'title_a',
        platform: 'pc_store_a',
        player: 'Ash',
        type: 'map',
        filter: { season: 99 },
        meta: network,
        page: 0,
        stateId: 's1',
        locale,
      }).embeds[0]?.description ?? '';
    expect(none()).toContain('No maps');
    expect(none('de')).toContain('Keine Karten');
  });

  it('names the queue in the reader’s language wherever a reply shows it', () => {
    expect(queueName('ranked')).toBe('Ranked');
    expect(queueName('social', 'de')).toBe('Ungewertet');
    // A queue another service names that the bot does not know: as it came, capitalised.
    expect(queueName('arcade', 'de')).toBe('Arcade');
    const scope = (filter: { queue?: string; season?: number }, locale?: string) =>
      /^\*\*([^*]+)\*\*/.exec(
        segmentsReply(fixtures.segments!, {
          title: 'title_a',
          platform: 'pc_store_a',
          player: 'Ash',
          type: 'map',
          filter,
          meta: network,
          page: 0,
          stateId: 's1',
          locale,
        }).embeds[0]?.description ?? '',
      )?.[1];
    expect(scope({ season: 3, queue: 'ranked' }, 'de')).toBe('Saison 3 · Gewertet');
    expect(scope({ queue: 'social' }, 'es-ES')).toBe('Carrera · Normal');
    expect(scope({ queue: 'social' })).toBe('Lifetime · Social');
    // Match a-1 was played in the social queue.
    expect(matchReportReply(fixtures.report!, 'title_a', network, {}).embeds[0]?.description).toContain(' · Social · ');
    expect(matchReportReply(fixtures.report!, 'title_a', network, { locale: 'pt-BR' }).embeds[0]?.description).toContain(' · Casual · ');
  });

  /** The table of one segment named `name` with figures of `values`, in every language, title and segment type. */
  function everyTable(values: Record<string, number>, name: string): { where: string; locale: string; type: string; lines: string[] }[] {
    const stat = (value: number) => ({
      rank: null,
      percentile: null,
      displayName: '',
      displayCategory: '',
      category: '',
      metadata: {},
      value,
      displayValue: String(value),
      displayType: 'Number',
    });
    const stats = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, stat(v)]));
    return ['en-US', 'de', 'fr', 'es-ES', 'pt-BR'].flatMap((locale) =>
      TITLE_SLUGS.flatMap((title) =>
        // The overview, one set of figures, is not a table (next test but two).
        TITLES[title].segmentTypes
          .filter(({ groupBy }) => groupBy !== 'overview')
          .map(({ type }) => {
            const segment: Segment = { type, attributes: { key: 'k' }, metadata: { name }, expiryDate: new Date().toISOString(), stats };
            const r = segmentsReply([segment], { title, platform: 'pc_store_a', player: 'x', type, filter: {}, meta: network, page: 0, stateId: 's', locale });
            const lines = /```\n([^`]+)\n```/.exec(r.embeds[0]?.description ?? '')?.[1]?.split('\n') ?? [];
            return { where: `${locale} ${title} ${type}`, locale, type, lines };
          }),
      ),
    );
  }

  it('keeps a space before every column of a segment table, in every language, whatever the numbers', () => {
    // Five-letter headings (Spiel, Sieg%), long numbers (12.345 in German, 1,2 mil in Spanish, K/D 12.3) and a clipped name.
    const tables = everyTable(
      { kills: 12_345, matchesPlayed: 1_234, wins: 600, kd: 12.345, winRate: 48.6, accuracy: 33.3, headshotPct: 25.1 },
      'Abcdefghijklmnop',
    );
    expect(tables.length).toBeGreaterThan(5 * TITLE_SLUGS.length);
    for (const { where, locale, type, lines } of tables) {
      const [header = '', nameLine = '', row = '', ...more] = lines;
      // The long name has a line of its own, whole (a clipped `Abcde…` would not say which it was); its figures the next.
      expect(nameLine, where).toBe('Abcdefghijklmnop');
      expect(more, where).toEqual([]);
      expect(row.length, `${where}: ${row}`).toBe(header.length);
      // The heading line's words apart: the type's name whole where it fits (else none: the author line
      // names the type, a clipped `Playl…` read as a defect), then three headings, none touching its neighbour.
      const words = header.trim().split(/ +/);
      const name = segmentTypeName(type, locale, true) ?? '';
      const named = header.startsWith(name);
      expect(words, `${where}: ${header}`).toHaveLength(named ? 4 : 3);
      if (!named) expect(header, `${where}: ${header}`).toMatch(/^ {5}/);
      expect(header, `${where}: ${header}`).not.toContain('…');
      // The headings end where their columns end, and every column but the first starts with a space
      // (the first has the empty name's column before it).
      const ends = [...header.matchAll(/\S+/g)].slice(1).map((m) => m.index + m[0].length);
      expect(row.trim().split(/ +/), `${where}: ${row}`).toHaveLength(3);
      for (const end of ends) expect(row[end - 1], `${where}: ${row}`).not.toBe(' ');
      for (const start of ends.slice(0, -1)) expect(row[start], `${where}: ${row}`).toBe(' ');
    }
  });

  it('writes a K/D of ten or more with one decimal, rounded, not the one decimal padded with a zero', () => {
    const kdCells = (kd: number, locale?: string) =>
      everyTable({ kills: 31, matchesPlayed: 8, wins: 5, kd, winRate: 62.5 }, 'Lifeline')
        .filter((t) => t.type === 'legend' && (locale === undefined ? t.locale === 'en-US' : t.locale === locale))
        .map((t) => t.lines.at(-1)?.trim().split(/ +/).at(-1));
    expect(kdCells(10.333)).toEqual(['10.3']);
    expect(kdCells(10.333, 'de')).toEqual(['10,3']);
    expect(kdCells(9.996)).toEqual(['10.0']);
    expect(kdCells(123.4)).toEqual(['123']);
    expect(kdCells(1.234)).toEqual(['1.23']);
  });

  it('keeps every segment table within a phone’s width, in every language, with figures of four characters', () => {
    for (const { where, lines } of everyTable(
      { kills: 172, matchesPlayed: 91, wins: 40, kd: 1.32, winRate: 66.7, accuracy: 27.7, headshotPct: 17.4 },
      'Citadel',
    )) {
      // Columns as narrow as their figures leave a name of seven letters its row, German's `Spiel Sieg%` too.
      expect(lines, where).toHaveLength(2);
      expect(lines[1], where).toMatch(/^Citadel /);
      for (const line of lines) expect(line.length, `${where}: ${line}`).toBeLessThanOrEqual(TABLE_WIDTH);
    }
    // A map played a few times (the first heading standing over its one digit): eight letters keep their row.
    for (const { where, lines } of everyTable({ matchesPlayed: 5, wins: 3, kd: 1.32, winRate: 60 }, 'Monolith').filter((t) => t.type === 'map')) {
      expect(lines, where).toHaveLength(2);
      expect(lines[1], where).toMatch(/^Monolith +5 +60 +1[.,]32$/);
      expect(lines[0]!.length, where).toBeLessThanOrEqual(TABLE_WIDTH);
    }
    // A name longer than its column has a line of its own, its figures under the headings on the next.
    for (const { where, lines } of everyTable({ matchesPlayed: 1234, wins: 40, kd: 1.32, winRate: 66.7 }, "World's Edge").filter((t) => t.type === 'map')) {
      expect(lines[1], where).toBe("World's Edge");
      expect(lines[2], where).toMatch(/^ +1[.,]?2/);
    }
  });

  it('shows the overview segment as a profile shows its figures, not as a table of one row', () => {
    // As the segments endpoint sends it: no places.
    const first = fixtures.profile!.segments[0]!;
    const overview = { ...first, stats: Object.fromEntries(Object.entries(first.stats).map(([k, v]) => [k, { ...v, percentile: null, rank: null }])) };
    const ctx = {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      type: 'overview',
      filter: { season: 2 },
      meta: network,
      page: 0,
      stateId: 's1',
    } as const;
    const d = segmentsReply([overview], ctx).embeds[0]?.description ?? '';
    expect(d).not.toContain('```');
    // Its scope, no count of one; the headline and the figures as the profile words them, no places (the segment has none to give).
    expect(d.split('\n')[0]).toBe('**Season 2**');
    const profileLines = profileReply({ ...fixtures.profile!, segments: [overview] }, 'title_a', network)
      .embeds[0]?.description?.split('\n')
      .filter((l) => /^### |^\*\*\d|Kills\/match|Damage\/match/.test(l));
    expect(profileLines?.length).toBeGreaterThanOrEqual(3);
    for (const line of profileLines ?? []) expect(d.split('\n')).toContain(line);
    expect(segmentsReply([overview], { ...ctx, locale: 'de' }).embeds[0]?.description).toMatch(/^\*\*Saison 2\*\*\n### K\/D\u00a0/);
    // Several overview segments (a service may send one a season) stay a table; none says so.
    expect(segmentsReply([overview, overview], ctx).embeds[0]?.description).toContain('```');
    expect(segmentsReply([], ctx).embeds[0]?.description).toBe('**Season 2**\nNo overview on record for this player with these filters.');
  });

  it('lists matches with result, score and K/D, and a menu that opens each report', () => {
    const r = matchesReply(fixtures.matches!.matches, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      meta: network,
      page: 0,
      hasMore: false,
      stateId: 's2',
    });
    expect(r.embeds[0]?.description).toMatch(/^🟩\u00a0W \*\*Harbor · Team Deathmatch\*\*\u00a0· 14\/1\/3\u00a0· K\/D\u00a014\.00\u00a0· <t:\d+:R>/u);
    const menu = r.components[0]?.components[0];
    expect(menu && 'options' in menu ? menu.options.map((o) => o.value) : []).toEqual(['a-3', 'a-2', 'a-1']);
    // Menus cannot show live times: no date beside the list's "4 days ago".
    expect(menu && 'options' in menu ? menu.options[0]?.description : '').toBe('Win · K/D/A 14/1/3 · K/D 14.00');
    // The menu writes the K/D as the list beside it does, in the reader's language.
    const de = matchesReply(fixtures.matches!.matches, {
      title: 'title_a',
      platform: 'pc_store_a',
      player: 'Ash',
      meta: network,
      page: 0,
      hasMore: false,
      stateId: 's2',
      locale: 'de',
    });
    const deMenu = de.components[0]?.components[0];
    expect(de.embeds[0]?.description).toContain('K/D\u00a014,00');
    expect(deMenu && 'options' in deMenu ? deMenu.options[0]?.description : '').toMatch(/ · K\/D 14,00$/);
    expect(menu && 'custom_id' in menu ? parseCustomId(menu.custom_id) : null).toEqual({ kind: 'open', stateId: 's2' });
  });

  it('pages matches by cursor without claiming a total it does not know: 1 / 2+, 2 / 3+, then 3 / 3', () => {
    const label = (page: number, hasMore: boolean) => {
      const r = matchesReply(fixtures.matches!.matches, {
        title: 'title_a',
        platform: 'pc_store_a',
        player: 'Ash',
        meta: network,
        page,
        hasMore,
        stateId: 's2',
      });
      const row = r.components.find((c) => c.components.some((b) => 'custom_id' in b && b.custom_id.startsWith('pgi:')));
      const button = row?.components.find((b) => 'custom_id' in b && b.custom_id.startsWith('pgi:'));
      return button && 'label' in button ? button.label : undefined;
    };
    expect([label(0, true), label(1, true), label(2, false)]).toEqual(['1 / 2+', '2 / 3+', '3 / 3']);
    expect(label(0, false)).toBeUndefined();
  });

  it('holds a player’s rating change to the figure before it, so that a phone never leaves it on a line alone', () => {
    const report = structuredClone(fixtures.report!);
    const ash = report.children.find((c) => c.type === 'player' && c.metadata.name === 'Ash')!;
    ash.stats.ratingChange = { ...ash.stats.kills!, value: 24, displayValue: '24' };
    const line = matchReportReply(report, 'title_a', network, {}).embeds[0]?.fields?.[0]?.value ?? '';
    expect(line).toMatch(/1,000\u00a0dmg\u00a0·\u00a0\*\*\+24\*\*$/);
  });

  it('shows a match report: winners first, players by score, the player looked up marked, team names capitalised, a way back', () => {
    const r = matchReportReply(fixtures.report!, 'title_a', network, {
      highlight: ['76561198000000042'],
      onward: { stateId: 'm1', targets: [{ to: 'matches', label: '◀ Matches' }] },
    });
    expect(r.embeds[0]?.title).toBe('Foundry · Team Deathmatch');
    expect(r.embeds[0]?.fields?.map((f) => [f.name, f.value])).toEqual([
      ['🏆 Red · Win · Kills 10', '▶ ⭐ **Ash** — 10/5/2\u00a0· K/D\u00a02.00\u00a0· 1,000\u00a0dmg'],
      ['Blue · Loss · Kills 5', 'Ashen Knight — 5/10/1\u00a0· K/D\u00a00.50\u00a0· 600\u00a0dmg'],
      // Without a score in the answer, the players are ordered by kills, and the report says so.
      ['\u200b', '-# Players by kills, best first · ⭐ the best of the match'],
    ]);
    // The colours teams are named by, in the reader's language.
    expect(matchReportReply(fixtures.report!, 'title_a', network, { locale: 'de' }).embeds[0]?.fields?.map((f) => f.name)).toEqual([
      '🏆 Rot · Sieg · Kills 10',
      'Blau · Niederlage · Kills 5',
      '\u200b',
    ]);
    const back = r.components[0]?.components[0];
    expect(back && 'custom_id' in back ? parseCustomId(back.custom_id) : null).toEqual({ kind: 'go', stateId: 'm1', to: 'matches' });
  });

  it('says "no stats" beside a player the report gives none for (one who keeps them private)', () => {
    const report = structuredClone(fixtures.report!);
    const blue = report.children.find((c) => c.type === 'player' && c.metadata.name === 'Ashen Knight');
    if (blue) blue.stats = {};
    const r = matchReportReply(report, 'title_a', network, {});
    expect(r.embeds[0]?.fields?.[1]?.value).toBe('Ashen Knight — no stats');
  });

  it('leads sessions with the latest: its form, its rates against the career; earlier ones a line each', () => {
    const career = fixtures.profile!.segments[0]!.stats;
    const r = sessionsReply(fixtures.sessions!.items, {
      title: 'title_b',
      platform: 'pc_store_b',
      player: 'Rift',
      meta: network,
      page: 0,
      stateId: 's3',
      career,
    });
    const d = r.embeds[0]?.description ?? '';
    expect(d).toContain('### Latest session');
    // Each bullet held to what it follows: a phone began lines with "· K/D 4.25".
    expect(d).toMatch(/<t:\d+:R>\u00a0· 20m\u00a0· 1 match/);
    expect(d).toContain('`W` **1\u00a0of\u00a01\u00a0won**');
    expect(d).toContain('Kills/match **5.00** (career\u00a010.00)');
    // A line each, the career's figure held to its word: side by side a phone broke them mid-figure.
    const rates = d.split('\n').filter((l) => l.includes('(career'));
    expect(rates.length).toBeGreaterThan(1);
    for (const line of rates) expect(line).toMatch(/^[\w/]+ \*\*[^*\s]+\*\* \(career\u00a0\S+\)$/);
    expect(d).toContain('Played Wraith');
    expect(r.embeds[0]?.fields?.map((f) => f.name)).toEqual(['Earlier sessions']);
    expect(r.embeds[0]?.fields?.[0]?.value).toMatch(/^<t:\d+:R>\u00a0· 🏆\u00a01\/2$/u);
  });

  it('shows a long session\'s newest 20 results, "…" before them standing for the older ones', () => {
    const [latest] = fixtures.sessions!.items;
    const match = latest!.matches[0]!;
    const result = (value: string) => ({ ...match, metadata: { ...match.metadata, result: { value, displayValue: value } } });
    // Newest first, as the answer lists them: the newest 20 are wins, the oldest three losses.
    const matches = [...Array.from({ length: 20 }, () => result('victory')), ...Array.from({ length: 3 }, () => result('defeat'))];
    const r = sessionsReply([{ ...latest!, matches, stats: {} }], {
      title: 'title_b',
      platform: 'pc_store_b',
      player: 'Rift',
      meta: network,
      page: 0,
      stateId: 's3',
    });
    const d = r.embeds[0]?.description ?? '';
    expect(d).toContain(`\`…${'W'.repeat(20)}\` **20\u00a0of\u00a023\u00a0won**`);
    expect(d).not.toContain('🟥');
  });

  it('says nothing of matches for a session that lists none and counts none, rather than "0 of 0 won"', () => {
    const [latest, earlier] = fixtures.sessions!.items;
    const empty = (s: typeof latest) => ({ ...s!, matches: [], stats: {} });
    const r = sessionsReply([empty(latest), empty(earlier)], {
      title: 'title_b',
      platform: 'pc_store_b',
      player: 'Rift',
      meta: network,
      page: 0,
      stateId: 's3',
    });
    const d = r.embeds[0]?.description ?? '';
    expect(d).toContain('### Latest session');
    expect(d).not.toMatch(/0 of 0|0 matches/);
    expect(r.embeds[0]?.fields?.[0]?.value).toMatch(/^<t:\d+:R>$/);
  });

  it('lists search results with a menu that opens a profile', () => {
    const r = searchReply(fixtures.search!, { title: 'title_c', platform: 'pc_store_c', query: 'ember', meta: network, page: 0, stateId: 's4' });
    expect(r.embeds[0]?.description).toBe('1. **Ember#4471**\n2. **Embertide#1000**');
    const menu = r.components[0]?.components[0];
    expect(menu && 'options' in menu ? menu.options.map((o) => o.value) : []).toEqual(['Ember#4471', 'Embertide#1000']);
  });

  it('describes a search option by its platform and, where it is not its name, its id: two players of one name are two different lines', () => {
    const blaze = (id: string): SearchResult => ({
      platformId: 1,
      platformSlug: 'pc_store_a',
      platformUserHandle: 'Blaze',
      platformUserIdentifier: id,
      platformUserId: id,
      avatarUrl: null,
      status: null,
      additionalParameters: null,
    });
    const r = searchReply([blaze('76561198000000026'), blaze('76561198000000030'), { ...blaze('Blaze'), platformUserId: '76561198000000031' }], {
      title: 'title_a',
      platform: 'pc_store_a',
      query: 'blaze',
      meta: network,
      page: 0,
      stateId: 's5',
    });
    const menu = r.components[0]?.components[0];
    expect(menu && 'options' in menu ? menu.options.map((o) => o.description) : []).toEqual([
      'PC Store A · 76561198000000026',
      'PC Store A · 76561198000000030',
      'PC Store A',
    ]);
  });

  it('shows a name made to read as another’s (a right-to-left override) without its controls, in the text and the menu alike', () => {
    const hostile = 'Quil\u202Eregdab\u2066\n';
    const result: SearchResult = {
      platformId: 1,
      platformSlug: 'pc_store_c',
      platformUserHandle: hostile,
      platformUserIdentifier: 'Quil#1',
      platformUserId: 'Quil#1',
      avatarUrl: null,
      status: null,
      additionalParameters: null,
    };
    const r = searchReply([result], { title: 'title_c', platform: 'pc_store_c', query: `q\u202Eu`, meta: network, page: 0, stateId: 's6' });
    const menu = r.components[0]?.components[0];
    const options = menu && 'options' in menu ? menu.options : [];
    expect(options.map((o) => o.label)).toEqual(['Quilregdab']);
    expect(options.map((o) => o.value)).toEqual(['Quil#1']);
    const everything = JSON.stringify(r);
    expect(everything).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(drawable(hostile)).toBe('Quilregdab');
    expect(goButtons('s6', [{ to: 'profile', label: 'Quil\u202Eregdab' }])?.components.map((b) => ('label' in b ? b.label : ''))).toEqual(['Quilregdab']);
  });

  it('writes days in the reader’s abbreviation, hours and minutes as everywhere', () => {
    const long = 33 * 3_600 + 5 * 60;
    expect(['en-US', 'fr', 'de', 'es-ES', 'pt-BR', undefined].map((l) => duration(long, l))).toEqual([
      '1d 9h',
      '1j 9h',
      '1\u00a0T 9h',
      '1d 9h',
      '1\u00a0dia 9h',
      '1d 9h',
    ]);
    expect(duration(3 * 3_600 + 5 * 60, 'fr')).toBe('3h 5m');
    expect(formatValue(long, 'TimeSeconds', 'fr')).toBe('1j 9h');
  });

  it('writes numbers for the reader’s locale', () => {
    const de = profileReply(fixtures.profile!, 'title_a', network, { locale: 'de' }).embeds[0]?.description ?? '';
    expect(de).toContain('K/D\u00a02,50');
    expect(de).toContain('Siegquote\u00a066,7\u00a0%');
    // The sign where each language puts it, held to its number by a no-break space, or none in Brazilian Portuguese.
    const rate = (locale: string) =>
      /66[.,]7[\u00a0\u202f]?%?/u.exec(profileReply(fixtures.profile!, 'title_a', network, { locale }).embeds[0]?.description ?? '')?.[0];
    expect(rate('fr')).toBe('66,7\u00a0%');
    expect(rate('pt-BR')).toBe('66,7%');
    expect(rate('en-US')).toBe('66.7%');
    const big = {
      ...fixtures.profile!,
      segments: [
        {
          ...fixtures.profile!.segments[0]!,
          stats: { ...fixtures.profile!.segments[0]!.stats, damagePerMatch: { ...fixtures.profile!.segments[0]!.stats.damagePerMatch!, value: 12_261.17 } },
        },
      ],
    };
    expect(profileReply(big, 'title_a', network, { locale: 'de' }).embeds[0]?.description).toContain('Schaden/Spiel **12.261**');
    expect(profileReply(big, 'title_a', network).embeds[0]?.description).toContain('Damage/match **12.3K**');
  });
});

describe('names chosen by anyone', () => {
  // Each name, and what Discord must show of it: the same characters, as text.
  const hostile = [
    ['[click me](https://evil.example/phish)', '\\[click me\\](https:\u200b//evil.example/phish)'],
    ['<https://evil.example>', '\\<https:\u200b//evil.example>'],
    ['# Big Heading', '\\# Big Heading'],
    ['### Small', '\\### Small'],
    ['> quote', '\\> quote'],
    ['>>> all below', '\\>>> all below'],
    ['-# sub', '\\-# sub'],
    ['- bullet', '\\- bullet'],
    ['1. numbered', '1\\. numbered'],
    ['<#1180000000000000777> <:e:1180000000000000778> <t:0:R>', '\\<#1180000000000000777> \\<:e:1180000000000000778> \\<t:0:R>'],
    ['@everyone <@1234>', '@\u200beveryone \\<@\u200b1234>'],
    ['\u202eevil RTL', 'evil RTL'],
    ['a\u2066b\u2069c\u202ad\u202c', 'abcd'],
  ] as const;

  it.each(hostile)('shows %j as text: no link, heading, quote, list, mention, channel, emoji, time or reversed line', (name, shown) => {
    expect(safeText(name)).toBe(shown);
  });

  it('leaves what is only text alone: names, figures, a dot in a number, right-to-left letters', () => {
    for (const plain of ['Nova#2231', 'Ashen Knight', '25.0%', '1.5K', 'ネコ', 'محمد', 'x-ray', 'a > b']) expect(safeText(plain)).toBe(plain);
  });

  it('quotes at most 40 characters of a long name in a notice, and 32 of a player’s in a match report', () => {
    const long = 'Ab_'.repeat(66);
    const notFound = errorReply(lookupError('not_found', 'x'), { title: 'title_c', platform: 'pc_store_c', player: long }).content ?? '';
    expect(notFound).toContain(`**${safeText(long.slice(0, 39))}…**`);
    const report = matchReportReply(
      StatisticalObjectSchema.parse({ attributes: { id: 'm' }, children: [{ type: 'player', metadata: { name: long } }] }),
      'title_a',
      { source: 'network', fetchedAt: 0, ageMs: 0 },
    );
    expect(report.embeds[0]?.fields?.[0]?.value).toBe(`${safeText(long.slice(0, 31))}… — no stats`);
  });

  it('keeps a name from reversing the line it stands in, in a code span too', () => {
    expect(code('\u202eevil')).toBe('`evil`');
  });
});

describe('limits and safety', () => {
  it('clips text without cutting an emoji in half (Discord refuses half a surrogate pair)', () => {
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const max of [2, 99, 100, 101, 2000]) {
      for (const text of ['😀'.repeat(1500), `a${'😀'.repeat(1500)}`]) {
        const cut = clip(text, max);
        expect(cut.length).toBeLessThanOrEqual(max);
        expect(cut.endsWith('…')).toBe(true);
        expect(lone.test(cut)).toBe(false);
      }
    }
    // Nor leaves a space before the mark (a segment table's `Team…`, not `Team …`).
    expect(clip('Team Deathmatch', 6)).toBe('Team…');
    expect(clip('Team Deathmatch', 7)).toBe('Team D…');
  });

  const longName = 'W'.repeat(400);
  const bigStats = (n: number) =>
    Object.fromEntries(
      Array.from({ length: n }, (_, i) => [
        `stat${i}`,
        {
          rank: 1,
          percentile: 99,
          displayName: `Stat ${i} ${'x'.repeat(300)}`,
          displayCategory: 'General',
          category: 'general',
          metadata: {},
          value: i,
          displayValue: 'y'.repeat(2_000),
          displayType: 'Number',
        },
      ]),
    );

  it('pages long lists and clamps every field, title and the message total', () => {
    const segments: Segment[] = Array.from({ length: 100 }, (_, i) => ({
      type: 'map',
      attributes: { key: `m${i}` },
      metadata: { name: `${longName}${i}` },
      expiryDate: new Date().toISOString(),
      stats: bigStats(10),
    }));
    for (let page = 0; page < 11; page++) {
      const r = segmentsReply(segments, {
        title: 'title_d',
        platform: 'pc_store_a',
        player: longName,
        type: 'map',
        filter: {},
        meta: network,
        page,
        stateId: 'abc',
      });
      expectWithinLimits(r);
      expect(r.components).toHaveLength(1);
    }
    const last = segmentsReply(segments, {
      title: 'title_d',
      platform: 'pc_store_a',
      player: 'x',
      type: 'map',
      filter: {},
      meta: network,
      page: 99,
      stateId: 'abc',
    });
    const buttons = last.components[0]?.components ?? [];
    expect(buttons.map((b) => ('label' in b ? b.label : ''))).toEqual(['◀ Previous', '10 / 10', 'Next ▶']);
    expect(buttons.map((b) => ('custom_id' in b ? parseCustomId(b.custom_id) : null))).toEqual([
      { kind: 'page', stateId: 'abc', page: 8 },
      null,
      { kind: 'page', stateId: 'abc', page: 9 },
    ]);
    const profile = { ...fixtures.profile!, platformInfo: { ...fixtures.profile!.platformInfo, platformUserHandle: longName } };
    profile.segments = [{ ...profile.segments[0]!, stats: bigStats(60) }];
    expectWithinLimits(profileReply(profile, 'title_a', network));
    const many: SearchResult[] = Array.from({ length: 60 }, (_, i) => ({
      ...fixtures.search![0]!,
      platformUserHandle: `${longName}${i}`,
      platformUserIdentifier: `${'i'.repeat(150)}${i}`,
    }));
    const search = searchReply(many, { title: 'title_c', platform: 'pc_store_c', query: longName, meta: network, page: 5, stateId: 'q' });
    expectWithinLimits(search);
    const menu = search.components[0]?.components[0];
    for (const o of menu && 'options' in menu ? menu.options : []) {
      expect(o.label.length).toBeLessThanOrEqual(100);
      expect(o.value.length).toBeLessThanOrEqual(100);
    }
  });

  it('clamps an embed to a message budget by dropping fields from the end', () => {
    const e = clampEmbed({ title: 't', fields: Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, value: 'v'.repeat(1_000) })) });
    expect(e.fields).toHaveLength(5);
    expect(size(e)).toBeLessThanOrEqual(6_000);
  });

  it('escapes markdown and breaks mentions in player names', () => {
    const evil = '**bold** _it_ `code` ~~s~~ ||spoiler|| @everyone <@123> [link](https://x.y)';
    const profile = { ...fixtures.profile!, platformInfo: { ...fixtures.profile!.platformInfo, platformUserHandle: evil } };
    const title = profileReply(profile, 'title_a', network).embeds[0]?.title ?? '';
    expect(title).toContain('\\*\\*bold\\*\\*');
    expect(title).toContain('\\_it\\_');
    expect(title).toContain('\\`code\\`');
    expect(title).toContain('\\|\\|spoiler\\|\\|');
    expect(title).not.toContain('@everyone');
    expect(title).toContain('@\u200beveryone');
    expect(title).toContain('<@\u200b123>');
    const notFound = errorReply(lookupError('not_found', 'x'), { title: 'title_c', platform: 'pc_store_c', player: evil });
    expect(notFound.content).not.toContain('@everyone');
    expect(notFound.content).toContain('\\*\\*bold\\*\\*');
  });

  it('breaks mentions inside code spans, which stop markdown but not mentions', () => {
    expect(code('@everyone and @here')).toBe('`@\u200beveryone and @\u200bhere`');
    expect(typedCode('<@123456789012345678>')).toBe('`<@\u200b123456789012345678>`');
    const refused = lookupError('invalid_parameter', 'Invalid platformUserIdentifier.', { data: { parameter: 'platformUserIdentifier' } });
    const told = errorReply(refused, { title: 'title_c', player: '@everyone/Nova' }).content ?? '';
    expect(told).toMatch(/^`@\u200beveryone\/Nova` is not a Title C player/);
  });

  it('answers every error kind with an ephemeral message of its own', () => {
    const texts = new Set<string>();
    for (const kind of LOOKUP_ERROR_KINDS) {
      const r = errorReply(lookupError(kind, 'the service said so', { retryAfterMs: 12_000, data: { allowed: ['pc_store_c'] } }), {
        title: 'title_c',
        platform: 'pc_store_c',
        player: 'Nova#2231',
      });
      expect(r.ephemeral).toBe(true);
      expect(r.embeds).toEqual([]);
      texts.add(r.content ?? '');
    }
    expect(texts.size).toBe(LOOKUP_ERROR_KINDS.length);
    expect(errorReply(lookupError('rate_limited', 'busy', { retryAfterMs: 12_000 }), { title: 'title_c' }).content).toContain('Try again in 12 seconds');
    expect(errorReply(lookupError('not_found', 'no', { code: 'MatchNotFound' }), { title: 'title_a' }).content).toContain('match was not found');
    // Search is offered only where the title has it: title_b has none on PC Store C.
    const searchable = errorReply(lookupError('not_found', 'no'), { title: 'title_b', platform: 'pc_store_b', player: 'Nobody' }).content ?? '';
    expect(searchable).toContain('`/stats title_b search`');
    expect(searchable).toContain('Check the spelling');
    // A name on a platform that finds players by id, profile URL or vanity name: the way is the list, not the spelling.
    const byName = errorReply(lookupError('not_found', 'no'), { title: 'title_a', platform: 'pc_store_a', player: 'KaiGG' }).content ?? '';
    expect(byName).toBe(
      'No Title A player **KaiGG** on PC\u00a0Store\u00a0A. PC\u00a0Store\u00a0A finds players by id, profile URL or vanity name, not by the name shown in game: pick them from the list as you type, or find them with `/stats title_a search`.',
    );
    // An id there that is not found is just not found.
    expect(errorReply(lookupError('not_found', 'no'), { title: 'title_a', platform: 'pc_store_a', player: '76561198000000999' }).content).toContain(
      'Check the spelling',
    );
    for (const locale of ['en-US', 'de', 'fr']) {
      const none = errorReply(lookupError('not_found', 'no'), { title: 'title_b', platform: 'pc_store_c', player: 'Nobody#0000', locale }).content ?? '';
      expect(none).toContain('**Nobody#0000**');
      expect(none).not.toContain('search');
      expect(none).not.toContain('suche');
      const link =
        errorReply(lookupError('invalid_parameter', 'no', { data: { parameter: 'platformUserIdentifier' } }), {
          title: 'title_b',
          platform: 'pc_store_c',
          player: 'https://x.example/p',
          locale,
        }).content ?? '';
      expect(link).not.toMatch(/search|suche|recherche/);
    }
  });

  it("tells what to type instead when the service cannot read the player as typed (a pasted link), in the reader's language", () => {
    const link = 'https://tracker.example.com/profile/console_a/Nova/overview';
    const refused = lookupError('invalid_parameter', 'Invalid platformUserIdentifier: the identifier contains a slash.', {
      data: { parameter: 'platformUserIdentifier' },
    });
    const en = errorReply(refused, { title: 'title_c', platform: 'console_a', player: link });
    expect(en.ephemeral).toBe(true);
    expect(en.content).toBe(
      '`https://tracker.example.com/profile/con…` is not a Title C player name or id on Console\u00a0A. Type the name or id as the game shows it, not a link; `/stats title_c search` finds it from part of the name.',
    );
    const de = errorReply(refused, { title: 'title_c', platform: 'console_a', player: link, locale: 'de' });
    expect(de.content).toContain('keinen Link');
    expect(de.content).not.toContain('Invalid platformUserIdentifier');
    // Another parameter the service refuses keeps its own words and what it allows.
    const other = errorReply(lookupError('invalid_parameter', 'Invalid segmentType.', { data: { parameter: 'segmentType', allowed: ['map'] } }), {
      title: 'title_c',
      player: link,
    });
    expect(other.content).toBe('Invalid segmentType. Use `map`.');
    const two = errorReply(lookupError('invalid_parameter', 'Invalid segmentType.', { data: { parameter: 'segmentType', allowed: ['map', 'weapon'] } }), {
      title: 'title_c',
      player: link,
    });
    expect(two.content).toBe('Invalid segmentType. Choose one of: `map`, `weapon`.');
    // A search's query and a match id likewise: no parameter names, in every language.
    const query = lookupError('invalid_parameter', 'Invalid query: the identifier contains a slash.', { data: { parameter: 'query', value: 'AC/DC' } });
    const matchId = lookupError('invalid_parameter', 'Invalid matchId: the match id contains a slash.', { data: { parameter: 'matchId', value: 'a/b' } });
    expect(errorReply(query, { title: 'title_a', platform: 'pc_store_a', player: 'AC/DC' }).content).toBe(
      '`AC/DC` is not something Title A search can look for on PC\u00a0Store\u00a0A. Type part of a player name as the game shows it, not a link.',
    );
    expect(errorReply(matchId, { title: 'title_a', platform: 'pc_store_a' }).content).toBe(
      '`a/b` is not a Title A match id. Pick a match from the list as you type, or open one from `/stats title_a matches`.',
    );
    for (const locale of ['de', 'fr', 'es-ES', 'pt-BR'])
      for (const r of [
        errorReply(query, { title: 'title_a', platform: 'pc_store_a', player: 'AC/DC', locale }),
        errorReply(matchId, { title: 'title_a', locale }),
      ]) {
        expect(r.ephemeral).toBe(true);
        expect(r.content, locale).not.toMatch(/Invalid|query|matchId/);
        expect(r.content, locale).toMatch(/`(AC\/DC|a\/b)`/);
      }
  });

  it('reads shares as "top N%", in the better half only', () => {
    // Held together (a no-break space): a phone's line never ends between "top" and its share.
    expect(topShare(97)).toBe('top\u00a03%');
    expect(topShare(99.1)).toBe('top\u00a00.9%');
    expect(topShare(100)).toBe('top\u00a00.1%');
    expect(topShare(50)).toBe('top\u00a050%');
    // How long ago, as plain text where Discord's timestamps do not render (autocomplete choices).
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(agoText('2026-11-26T11:00:00Z', 'en-US', now)).toBe('2 days ago');
    expect(agoText('2026-11-28T09:00:00Z', 'de', now)).toBe('vor 3 Std.');
    expect(agoText('0001-01-01T00:00:00+00:00', 'en-US', now)).toBeNull();
    // Whole percents from 10 up: the tenth tells players apart only near the top, and costs a phone's line its room.
    expect(topShare(72.5)).toBe('top\u00a028%');
    expect(topShare(73.8)).toBe('top\u00a026%');
    expect(topShare(90.04)).toBe('top\u00a010%');
    expect(topShare(90.3)).toBe('top\u00a09.7%');
    expect(topShare(49.9)).toBeNull();
    expect(topShare(null)).toBeNull();
  });
});
