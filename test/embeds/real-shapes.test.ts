// Replies to answers shaped as real Tracker Network answers vary (read through the schemas, as the
// client reads them): missing slugs and identifiers, mixed segment types, the "none known" date,
// results worded "Victory", ids as numbers or text, overviews of totals only.
import type { APISelectMenuOption } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';

import { sessionCard } from '../../src/cards/model.js';
import {
  compareReply,
  dateWorthShowing,
  figure,
  matchLabel,
  matchReportReply,
  matchesReply,
  outcomeOf,
  profileReply,
  searchReply,
  segmentsReply,
  sessionsReply,
  sinceLines,
  snapshotOf,
  type Reply,
} from '../../src/embeds/index.js';
import type { LookupMeta } from '../../src/lookup/client.js';
import {
  MatchResultSchema,
  SearchResultListSchema,
  SegmentListSchema,
  SessionListSchema,
  StatisticalObjectSchema,
  StatsProfileSchema,
  readPayload,
} from '../../src/lookup/schemas.js';

const meta: LookupMeta = { source: 'network', fetchedAt: Date.UTC(2025, 0, 1), ageMs: 0 };
const st = (value: number, extra: Record<string, unknown> = {}) => ({ value, displayValue: String(value), ...extra });

function read<T>(schema: Parameters<typeof readPayload<T>>[0], input: unknown): T {
  const r = readPayload(schema, input);
  if (!r.success) throw new Error(JSON.stringify(r.error.issues));
  return r.data;
}

const options = (reply: Reply): APISelectMenuOption[] => reply.components.flatMap((row) => row.components.flatMap((c) => ('options' in c ? c.options : [])));
const description = (reply: Reply) => reply.embeds[0]?.description ?? '';
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

describe('search results as real answers give them', () => {
  const results = read(SearchResultListSchema, [
    { platformId: 1, platformSlug: 'console_a', platformUserIdentifier: null, platformUserHandle: 'Nova', platformUserId: 'aaa' },
    { platformId: 1, platformSlug: 'console_a', platformUserIdentifier: null, platformUserHandle: 'Nova', platformUserId: 'bbb' },
    { platformId: 1, platformSlug: 'console_a', platformUserIdentifier: null, platformUserHandle: 'Nova', platformUserId: 'bbb' },
    { platformId: 3, platformSlug: null, platformUserIdentifier: '76561198000000001', platformUserHandle: 'Ember' },
  ]);
  const reply = searchReply(results, { title: 'title_a', platform: 'pc_store_a', query: 'Nova', meta, page: 0, stateId: 's' });

  it('never gives a menu option an empty description (Discord wants 1 to 100 characters): a result without a slug is on the platform searched', () => {
    for (const o of options(reply)) if (o.description !== undefined) expect(o.description.length).toBeGreaterThan(0);
    expect(options(reply).find((o) => o.label === 'Ember')?.description).toBe('PC Store A · 76561198000000001');
  });

  it('opens each result by its most specific id, one option a player (Discord refuses two options of one value)', () => {
    const values = options(reply).map((o) => o.value);
    expect(new Set(values).size).toBe(values.length);
    expect(values).toEqual(['aaa', 'bbb', '76561198000000001']);
  });
});

describe('segments and matches read by their type', () => {
  const segments = read(SegmentListSchema, [
    { type: 'overview', attributes: {}, metadata: { name: 'Lifetime' }, stats: { matchesPlayed: st(500) } },
    { type: 'legend', attributes: { id: 'legend_2' }, metadata: { name: 'Bangalore', isActive: true }, stats: { kills: st(1200), matchesPlayed: st(30) } },
    { type: 'Legend', attributes: { id: 'legend_4' }, metadata: { name: '🔥🔥🔥🔥🔥🔥' }, stats: { matchesPlayed: st(4) } },
    { type: 'weapon', attributes: { key: 'ak47' }, metadata: { name: 'AK-47' }, stats: { kills: st(1000) } },
  ]);
  const reply = segmentsReply(segments, { title: 'title_b', platform: 'pc_store_c', player: 'Nova', type: 'legend', filter: {}, meta, page: 0, stateId: 's' });
  const table = /```\n([^`]+)\n```/.exec(description(reply))?.[1]?.split('\n') ?? [];

  it('lists and counts only segments of the type asked for (compared case-insensitively)', () => {
    // Only the figures some legend has (games: no deaths, no wins), the names given what is left of a phone's line.
    expect(table).toEqual(['Legend           Games', 'Bangalore           30', '🔥🔥🔥🔥🔥🔥         4']);
    expect(description(reply)).toMatch(/^\*\*Lifetime\*\* · 2 in all · /);
    expect(reply.embeds[0]?.footer?.text).toBe('Title B · PC Store C');
  });

  it('never cuts an emoji of a name in half', () => {
    expect(description(reply)).not.toMatch(loneSurrogate);
  });

  it('reads a match’s figures from its overview segment, wherever it stands', () => {
    const list = read(MatchResultSchema, {
      matches: [
        {
          attributes: { id: 'm1' },
          metadata: { result: 'Loss' },
          segments: [
            { type: 'player', stats: {} },
            { type: 'overview', stats: { kills: st(3), deaths: st(6) } },
          ],
        },
      ],
      metadata: { next: null },
    });
    const r = matchesReply(list.matches, { title: 'title_a', platform: 'console_a', player: 'Nova', meta, page: 0, hasMore: false, stateId: 's' });
    expect(description(r)).toBe('🟥\u00a0L **Match**\u00a0· 3/6\u00a0· K/D\u00a00.50');
    expect(matchLabel(list.matches[0]!, 'title_a').description).toBe('Loss · K/D/A 3/6 · K/D 0.50');
  });
});

describe('dates worth showing', () => {
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('leaves out the "none known" sentinel, dates before 2000 and dates more than a day ahead; reads a date without an offset as UTC', () => {
    const now = Date.UTC(2025, 0, 1);
    expect(dateWorthShowing('0001-01-01T00:00:00+00:00', now)).toBeNull();
    expect(dateWorthShowing('1999-12-31T23:59:59Z', now)).toBeNull();
    expect(dateWorthShowing('2025-01-03T00:00:00Z', now)).toBeNull();
    expect(dateWorthShowing('2025-01-01T20:00:00Z', now)).toBe(Date.UTC(2025, 0, 1, 20));
    process.env.TZ = 'America/New_York';
    expect(dateWorthShowing('2024-12-31T20:00:00', now)).toBe(Date.UTC(2024, 11, 31, 20));
  });

  it('shows no time for the sentinel in matches, sessions and a profile’s last played', () => {
    const list = read(MatchResultSchema, {
      matches: [{ attributes: { id: 'm1' }, metadata: { timestamp: '0001-01-01T00:00:00+00:00', result: 'win' } }],
      metadata: { next: null },
    });
    expect(
      description(matchesReply(list.matches, { title: 'title_a', platform: 'console_a', player: 'Nova', meta, page: 0, hasMore: false, stateId: 's' })),
    ).toBe('🟩\u00a0W **Match**');
    const sessions = read(SessionListSchema, {
      items: [
        { metadata: { startDate: { value: '2024-12-31T20:00:00+00:00' } }, stats: {}, matches: [] },
        { metadata: { startDate: { value: '0001-01-01T00:00:00+00:00' } }, stats: {}, matches: [] },
      ],
    });
    const r = sessionsReply(sessions.items, { title: 'title_b', platform: 'console_a', player: 'Nova', meta, page: 0, stateId: 's' });
    expect(JSON.stringify(r)).not.toContain('<t:-');
    expect(r.embeds[0]?.fields?.[0]?.value).toBe('—');
    for (const lastPlayed of ['0001-01-01T00:00:00+00:00', '2099-01-01T00:00:00']) {
      const p = read(StatsProfileSchema, {
        platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Nova' },
        metadata: { lastPlayed },
        segments: [{ type: 'overview', stats: { kd: st(1.5) } }],
      });
      expect(description(profileReply(p, 'title_b', meta))).not.toContain('Last played');
    }
  });

  it('shows the legend of a real session’s match that names it by number, its name in displayValue', () => {
    const numbered = read(SessionListSchema, {
      items: [
        {
          metadata: { startDate: { value: '2024-12-31T20:00:00+00:00' } },
          stats: {},
          matches: [
            {
              id: 'n1',
              metadata: {
                endDate: { value: '2024-12-31T20:20:00+00:00' },
                result: { value: 'unknown', displayValue: null },
                character: { value: 5, displayValue: 'Bloodhound' },
                legend: { value: 5, displayValue: 'Bloodhound' },
                characterStats: { value: [], displayValue: '' },
              },
              stats: {},
            },
          ],
        },
      ],
    });
    expect(numbered.items[0]?.matches[0]?.metadata.character).toMatchObject({ value: '5', displayValue: 'Bloodhound' });
    expect(JSON.stringify(sessionsReply(numbered.items, { title: 'title_b', platform: 'console_a', player: 'Nova', meta, page: 0, stateId: 's' }))).toContain(
      'Bloodhound',
    );
  });

  it('reads a profile’s last played without an offset as UTC, as the schemas read dates', () => {
    process.env.TZ = 'America/New_York';
    const p = read(StatsProfileSchema, {
      platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Nova' },
      metadata: { lastPlayed: '2024-12-31T20:00:00' },
      segments: [{ type: 'overview', stats: { kd: st(1.5) } }],
    });
    expect(description(profileReply(p, 'title_b', meta))).toContain('Last played <t:1735675200:R>');
  });
});

describe('results however they are worded', () => {
  it('reads win, loss and draw in the words real answers use', () => {
    expect(['Victory', 'Won', 'win', 'Defeat', 'Lost', 'loss', 'Tie', 'draw', 'DNF', null].map(outcomeOf)).toEqual([
      'win',
      'win',
      'win',
      'loss',
      'loss',
      'loss',
      'draw',
      'draw',
      null,
      null,
    ]);
  });

  it('marks "Victory" and "Defeat" in the match list, the report and the session as its card does', () => {
    const list = read(MatchResultSchema, {
      matches: ['Victory', 'Defeat', 'Won', 'Lost', 'Tie'].map((result, i) => ({
        attributes: { id: `m${i}` },
        metadata: { result: { value: result.toLowerCase(), displayValue: result } },
      })),
      metadata: { next: null },
    });
    const r = matchesReply(list.matches, { title: 'title_a', platform: 'console_a', player: 'Nova', meta, page: 0, hasMore: false, stateId: 's' });
    expect(
      description(r)
        .split('\n')
        .map((l) => Array.from(l)[0]),
    ).toEqual(['🟩', '🟥', '🟩', '🟥', '⬜']);
    expect(options(r).map((o) => o.description)).toEqual(['Win', 'Loss', 'Win', 'Loss', 'Draw']);

    const m = (id: string, result: string) => ({
      id,
      metadata: { endDate: { value: '2024-12-31T22:00:00+00:00' }, result: { value: result, displayValue: result } },
      stats: { kills: st(2) },
    });
    const sessions = read(SessionListSchema, {
      items: [{ metadata: { startDate: { value: '2024-12-31T21:00:00+00:00' } }, stats: {}, matches: [m('a', 'Victory'), m('b', 'Defeat'), m('c', 'Won')] }],
    });
    const text = description(sessionsReply(sessions.items, { title: 'title_b', platform: 'console_a', player: 'Nova', meta, page: 0, stateId: 's' }));
    expect(text).toContain('`WLW` **2\u00a0of\u00a03\u00a0won**');
    expect(sessionCard(sessions.items, 'title_b', 'console_a', 'Nova')?.results.filter((x) => x === 'win')).toHaveLength(2);
  });

  it('counts a session’s wins and matches from one source, alike in the text and on the card', () => {
    const m = (id: string, result: string) => ({
      id,
      metadata: { endDate: { value: '2024-12-31T22:00:00+00:00' }, result: { value: result } },
      stats: { kills: st(2) },
    });
    const listed = [m('a', 'win'), m('b', 'win'), m('c', 'loss')];
    const tally = (stats: Record<string, unknown>) => {
      const sessions = read(SessionListSchema, { items: [{ metadata: { startDate: { value: '2024-12-31T21:00:00+00:00' } }, stats, matches: listed }] });
      return {
        text: description(sessionsReply(sessions.items, { title: 'title_b', platform: 'console_a', player: 'Nova', meta, page: 0, stateId: 's' })),
        card: sessionCard(sessions.items, 'title_b', 'console_a', 'Nova'),
      };
    };
    // Wins in the stats, no match count: the listed matches say both (not "5 of 3 won").
    const winsOnly = tally({ kills: st(40), wins: st(5) });
    expect(winsOnly.text).toContain('**2\u00a0of\u00a03\u00a0won**');
    expect(winsOnly.text).toContain('Kills/match **13.33**');
    expect(winsOnly.card?.subtitle).toContain('3 matches');
    expect(winsOnly.card?.versus.map((v) => v.label)).toContain('Kills/match');
    // A match count in the stats, no wins: the listed matches again (not "2 of 40 won").
    expect(tally({ kills: st(40), matchesPlayed: st(40) }).text).toContain('**2\u00a0of\u00a03\u00a0won**');
    // Both in the stats (a long session lists only its newest): the stats, in the text and on the card.
    const both = tally({ kills: st(80), matchesPlayed: st(40), wins: st(21) });
    expect(both.text).toContain('**21\u00a0of\u00a040\u00a0won**');
    expect(both.text).toContain('Kills/match **2.00**');
    expect(both.card?.subtitle).toContain('40 matches');
  });
});

describe('a match report as real answers give it', () => {
  const report = read(StatisticalObjectSchema, {
    attributes: { id: 'a1' },
    metadata: { mode: 'Slayer' },
    children: [
      { type: 'team', attributes: { id: 0 }, metadata: { name: 'Blue', isWinner: false, result: 'defeat' }, stats: {} },
      { type: 'team', attributes: { id: 1 }, metadata: { name: 'Red', isWinner: 'true', result: 'victory' }, stats: {} },
      { type: 'player', attributes: { teamId: '0' }, metadata: { name: 'Bob' }, stats: { kills: st(2), deaths: st(5) } },
      { type: 'player', attributes: { teamId: '1' }, metadata: { name: 'Nova' }, stats: { kills: st(10), deaths: st(5) } },
    ],
  });

  it('keeps each player under their team when ids come as a number on one side and text on the other; the winner first', () => {
    const r = matchReportReply(report, 'title_a', meta, {});
    expect(r.embeds[0]?.fields?.map((f) => [f.name, f.value])).toEqual([
      ['🏆 Red · Win', '⭐ Nova — 10/5\u00a0· K/D\u00a02.00'],
      ['Blue · Loss', 'Bob — 2/5\u00a0· K/D\u00a00.40'],
      ['\u200b', '-# Players by kills, best first · ⭐ the best of the match'],
    ]);
  });

  it('reads isWinner given as the text "true" or "false"', () => {
    const raw = read(StatisticalObjectSchema, {
      attributes: { id: 'a1' },
      children: [
        { type: 'team', attributes: { id: 0 }, metadata: { name: 'Blue', isWinner: 'true' }, stats: {} },
        { type: 'team', attributes: { id: 1 }, metadata: { name: 'Red', isWinner: 'false' }, stats: {} },
      ],
    });
    expect(matchReportReply(raw, 'title_a', meta, {}).embeds[0]?.fields?.map((f) => f.name)).toEqual(['🏆 Blue', 'Red']);
  });
});

describe('a profile of totals only', () => {
  const profile = (stats: Record<string, unknown>) =>
    read(StatsProfileSchema, { platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Nova' }, segments: [{ type: 'overview', stats }] });

  it('shows the totals it has rather than "No stats"', () => {
    const d = description(profileReply(profile({ level: st(512), kills: st(8123), damage: st(2_100_000) }), 'title_b', meta));
    expect(d).toBe('Kills **8,123**\nDamage **2,100,000**\nLevel **512**');
  });

  it('shows them under a rank line too, the rating not repeated', () => {
    const d = description(
      profileReply(profile({ kills: st(1000), rankScore: { value: 10234, displayValue: '10,234', metadata: { rankName: 'Diamond 1' } } }), 'title_b', meta),
    );
    expect(d).toBe('### Diamond 1 · 10,234\n\nKills **1,000**');
  });

  it('says "No stats" only when the overview has nothing to show', () => {
    const bare = profile({ kills: st(1) });
    bare.segments[0]!.stats = {};
    expect(description(profileReply(bare, 'title_b', meta))).toBe('No stats on record yet.');
  });
});

describe('time played given as a TimeSpan', () => {
  it('reads a TimeSpan text as seconds where time played is picked', () => {
    const p = read(StatsProfileSchema, {
      platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Nova' },
      segments: [{ type: 'overview', stats: { kd: st(2), timePlayed: { value: null, displayValue: '12.03:04:05' } } }],
    });
    expect(description(profileReply(p, 'title_c', meta))).toContain('**12d 3h** played');
    // In the value, with no display value: the schema keeps the text the answer shows.
    const inValue = read(StatsProfileSchema, {
      platformInfo: { platformSlug: 'console_a', platformUserHandle: 'Nova' },
      segments: [{ type: 'overview', stats: { timePlayed: { value: '12.03:04:05' } } }],
    });
    expect(figure(inValue.segments[0]!.stats, 'title_c', 'timePlayed')?.value).toBe(12 * 86_400 + 3 * 3_600 + 4 * 60 + 5);
  });
});

describe('percentages sent as fractions', () => {
  const profile = (stats: Record<string, unknown>) =>
    read(StatsProfileSchema, { platformInfo: { platformSlug: 'pc_store_c', platformUserHandle: 'Ratio' }, segments: [{ type: 'overview', stats }] });
  const winRatio = { value: 0.55, displayValue: '55.0%', displayType: 'NumberPercentage', percentile: 80 };

  it('reads a win rate of 0.55 shown "55.0%" as 55%: the figure every reply, card and comparison reads, the headline and the table', () => {
    const p = profile({ kd: st(1.5), winRatio });
    expect(description(profileReply(p, 'title_c', meta))).toMatch(/^### K\/D\u00a01\.50\u00a0· Win\u00a055\.0%\n/);
    expect(figure(p.segments[0]!.stats, 'title_c', 'winRate')?.value).toBeCloseTo(55);
    const segments = read(SegmentListSchema, [
      { type: 'hero', attributes: { key: 'ana' }, metadata: { name: 'Ana' }, stats: { matchesPlayed: st(100), winRatio, kd: st(1.1) } },
    ]);
    const table = description(
      segmentsReply(segments, { title: 'title_c', platform: 'pc_store_c', player: 'Ratio', type: 'hero', filter: {}, meta, page: 0, stateId: 's' }),
    );
    expect(table).toContain('\nAna      100   55 1.10\n');
  });

  it('compares a look kept when such a win rate was read as 0.548 with today’s 55.0, not as a jump', () => {
    const at = new Date('2026-11-20T00:00:00Z');
    const account = { platform: 'pc_store_c', identifier: 'Ratio' };
    const before = { ...snapshotOf(profile({ matchesPlayed: st(90) }).segments[0]!.stats, 'title_c', account, at), winRate: 0.548 };
    const now = snapshotOf(profile({ matchesPlayed: st(100), winRatio }).segments[0]!.stats, 'title_c', account, new Date());
    expect(sinceLines(before, now)).toContain('Win rate 54.8% → **55.0%**');
  });

  it('leaves alone a percentage whose display value agrees with it (0.5 shown "0.5%"), and one on the scale of a hundred', () => {
    expect(figure(profile({ winRatio: { value: 0.5, displayValue: '0.5%' } }).segments[0]!.stats, 'title_c', 'winRate')?.value).toBe(0.5);
    expect(figure(profile({ winRatio: { value: 52.3, displayValue: '52.3%' } }).segments[0]!.stats, 'title_c', 'winRate')?.value).toBe(52.3);
    // A display value with a decimal comma reads the same.
    expect(figure(profile({ winRatio: { value: 0.55, displayValue: '55,0 %' } }).segments[0]!.stats, 'title_c', 'winRate')?.value).toBeCloseTo(55);
    // A stat no figure names, shown as it is sent.
    expect(
      description(
        profileReply(
          profile({ kills: st(10), clutchRate: { value: 0.25, displayValue: '25%', displayName: 'Clutch rate', displayType: 'NumberPercentage' } }),
          'title_c',
          meta,
        ),
      ),
    ).toContain('Clutch rate **25.0%**');
  });
});

describe('figures an answer marks as missing', () => {
  it('shows the career totals a real Apex answer carries, in the reader’s number format, beside its rank and rates', () => {
    const p = read(StatsProfileSchema, {
      platformInfo: { platformSlug: 'pc_store_b', platformUserHandle: 'Ranked' },
      segments: [
        {
          type: 'overview',
          stats: {
            kills: st(7_349, { displayValue: '7,349' }),
            damage: st(2_351_118, { displayValue: '2,351,118' }),
            headshots: st(1_102, { displayValue: '1,102' }),
            headshotRate: st(13.3, { displayValue: '13.3%' }),
            rankScore: st(11_230, { displayValue: '11,230', metadata: { rankName: 'Diamond 1', iconUrl: 'https://ranks.example.com/diamond1.png' } }),
          },
        },
      ],
    });
    const en = description(profileReply(p, 'title_b', meta));
    expect(en).toContain('Kills\u00a0**7,349** · Damage\u00a0**2,351,118** · Headshots\u00a0**1,102**');
    expect(en).toContain('Diamond 1');
    // The answer's own emblem, small at the side.
    expect(profileReply(p, 'title_b', meta).embeds[0]?.thumbnail).toEqual({ url: 'https://ranks.example.com/diamond1.png' });
    expect(en).toMatch(/Headshots \*\*13\.3%\*\*/);
    expect(description(profileReply(p, 'title_b', meta, { locale: 'de' }))).toContain('**7.349**');
  });

  it('reads a stat of no value shown "-" as no figure: derived where it can be, else left out, never "Win -" or "- matches"', () => {
    const p = read(StatsProfileSchema, {
      platformInfo: { platformSlug: 'pc_store_c', platformUserHandle: 'Dashes' },
      segments: [
        {
          type: 'overview',
          stats: {
            kills: st(30),
            deaths: st(10),
            kd: { value: null, displayValue: '-' },
            winRate: { value: null, displayValue: '-' },
            matchesPlayed: { value: null, displayValue: '—' },
          },
        },
      ],
    });
    const d = description(profileReply(p, 'title_c', meta));
    // The career's sums stay, under the headline.
    expect(d).toBe('### K/D\u00a03.00\nKills\u00a0**30** · Deaths\u00a0**10**');
    expect(d).not.toMatch(/Win -|- matches|— matches/);
  });
});

describe('lists an answer leaves out or sends as null', () => {
  it('reads a profile’s segments, a sessions list’s items and a match list’s matches as empty, and a null search or segment list as no results', () => {
    for (const segments of [undefined, null]) {
      const p = read(StatsProfileSchema, { platformInfo: { platformUserHandle: 'Empty' }, segments });
      expect(description(profileReply(p, 'title_c', meta))).toBe('No stats on record yet.');
    }
    expect(read(SessionListSchema, { items: null }).items).toEqual([]);
    expect(read(SessionListSchema, {}).items).toEqual([]);
    expect(read(MatchResultSchema, { matches: null, metadata: { next: null } }).matches).toEqual([]);
    expect(read(SearchResultListSchema, null)).toEqual([]);
    expect(read(SegmentListSchema, null)).toEqual([]);
    // What is no list of its kind at all is still no answer of it, not one of none.
    expect(readPayload(SearchResultListSchema, { results: [] }).success).toBe(false);
    expect(readPayload(MatchResultSchema, { matches: 'Service temporarily unavailable' }).success).toBe(false);
    expect(readPayload(SessionListSchema, { items: { message: 'oops' } }).success).toBe(false);
    expect(readPayload(StatsProfileSchema, { platformInfo: { platformUserHandle: 'Bob' }, segments: 'oops' }).success).toBe(false);
  });
});

describe('a session whose matches lack a figure', () => {
  it('draws a match without damage as no bar, not a zero, and leaves out a chart no match has', () => {
    const sessions = read(SessionListSchema, {
      items: [
        {
          metadata: { duration: { value: '00:30:00' }, isActive: { value: false } },
          stats: { kills: st(9) },
          matches: [
            { id: 'm3', metadata: { result: { value: 'win' } }, stats: { kills: st(4), damage: st(900) } },
            { id: 'm2', metadata: { result: { value: 'loss' } }, stats: { kills: st(2) } },
            { id: 'm1', metadata: { result: { value: 'win' } }, stats: { kills: st(3), damage: st(600) } },
          ],
        },
      ],
    }).items;
    const card = sessionCard(sessions, 'title_b', 'pc_store_b', 'Wraithling');
    expect(card?.kills).toEqual([3, 2, 4]);
    expect(card?.damage).toEqual([600, null, 900]);
  });
});

describe('a match report’s other real shapes', () => {
  const report = read(StatisticalObjectSchema, {
    attributes: { id: 'r2' },
    metadata: { map: { value: 'Harbor', displayValue: null }, playlist: { displayValue: 'Ranked' }, queue: 'ranked', season: 3 },
    children: [
      { type: 'team', attributes: { id: 1 }, metadata: { isWinner: true }, stats: {} },
      { type: 'team', attributes: { id: 2 }, metadata: { isWinner: false }, stats: {} },
      { type: 'player', attributes: { teamId: 1 }, metadata: { name: 'Nova' }, stats: { kills: st(10), deaths: st(5) } },
      {
        type: 'player',
        attributes: { teamId: 2 },
        metadata: { name: 'Third' },
        stats: {
          kills: { value: null, displayValue: '-' },
          deaths: { value: 3, displayValue: '3', displayName: 'Deaths' },
          score: { value: 120, displayValue: '120', displayName: 'Score' },
        },
      },
      { type: 'player', attributes: { teamId: 2 }, metadata: { name: 'Hidden' }, stats: {} },
    ],
  });
  const r = matchReportReply(report, 'title_a', meta, {});

  it('names numbered teams by their number, shows the figures a player has without kills, and says "no stats" only for none', () => {
    expect(r.embeds[0]?.fields?.map((f) => [f.name, f.value])).toEqual([
      ['🏆 Team 1', 'Nova — 10/5\u00a0· K/D\u00a02.00'],
      // Ordered by score, which only Third has: the others follow, and nobody else is starred.
      ['Team 2', '⭐ Third — Deaths 3 · Score 120\nHidden — no stats'],
      ['\u200b', '-# Players by score, best first · ⭐ the best of the match'],
    ]);
  });

  it('takes a map given by its value, and says a playlist and queue of one name once', () => {
    expect(r.embeds[0]?.title).toBe('Harbor');
    expect(description(r)).toMatch(/^Ranked · Season 3/);
    // A playlist whose name says the queue already ("Ranked Arena" in the ranked queue): once.
    const arena = matchReportReply({ ...report, metadata: { ...report.metadata, playlist: { displayValue: 'Ranked Arena' } } }, 'title_a', meta, {});
    expect(description(arena)).toMatch(/^Ranked Arena · Season 3/);
    // Playlist names come as the service wrote them, untranslated: the German queue's name ("Gewertet") is not said beside them either.
    expect(
      description(
        matchReportReply({ ...report, metadata: { ...report.metadata, playlist: { displayValue: 'Ranked Arena' } } }, 'title_a', meta, { locale: 'de' }),
      ),
    ).toMatch(/^Ranked Arena · Saison 3/);
    expect(
      description(matchReportReply({ ...report, metadata: { ...report.metadata, playlist: { displayValue: 'Arena' } } }, 'title_a', meta, { locale: 'de' })),
    ).toMatch(/^Arena · Gewertet · Saison 3/);
  });
});

describe('a comparison on a phone', () => {
  it('holds each value together: `8h 57m` never breaks between its hours and minutes', () => {
    const p = (handle: string, seconds: number) =>
      read(StatsProfileSchema, {
        platformInfo: { platformUserHandle: handle },
        segments: [{ type: 'overview', stats: { timePlayed: { value: seconds, displayValue: String(seconds) } } }],
      });
    const d = description(compareReply('title_c', { profile: p('A', 39_120), meta }, { profile: p('B', 32_220), meta }));
    expect(d).toContain('Time played · 10h\u00a052m\u00a0vs\u00a08h\u00a057m');
  });
});
