// The top of a profile: rank first, then the last matches at a glance.
import { describe, expect, it } from 'vitest';

import { profileCard } from '../../src/cards/model.js';
import { formLines, formOfMatches, formOfSessions, profileReply, rankLines, signed, type FormMatch } from '../../src/embeds/index.js';
import type { LookupMeta } from '../../src/lookup/client.js';
import { MatchResultSchema, SessionListSchema, StatsProfileSchema } from '../../src/lookup/schemas.js';
import { plain, stat, stats } from '../helpers/stats.js';

const meta: LookupMeta = { source: 'network', fetchedAt: Date.parse('2026-11-20T12:00:00Z'), ageMs: 0 };
const match = (outcome: FormMatch['outcome'], values: Record<string, number>): FormMatch => ({ outcome, stats: stats(values) });
const career = stats({ kills: 100, deaths: 80 });

describe('form lines', () => {
  it('writes the last results as letters, oldest first, with K/D over them against the career’s, the streak and the rating won', () => {
    // Newest first, as answers list them.
    const recent = [
      match('loss', { kills: 2, deaths: 4, ratingChange: -20 }),
      match('loss', { kills: 3, deaths: 3, ratingChange: -15 }),
      match('win', { kills: 9, deaths: 3, ratingChange: 25 }),
    ];
    expect(plain(formLines(recent, career, 'title_a', 'en'))).toEqual(['**Last 3** `WLL` · Rating −10', 'K/D 1.40 (career 1.25) · 2 losses in a row']);
    expect(plain(formLines(recent, career, 'title_a', 'de'))).toEqual([
      '**Letzte 3** `SNN` · Wertung −10',
      'K/D 1,40 (Karriere 1,25) · 2 Niederlagen in Folge',
    ]);
  });

  it('takes at most ten matches, says no streak under two, and nothing when no match has a result or a figure', () => {
    const many = Array.from({ length: 14 }, (_, i) => match(i % 2 ? 'win' : 'loss', { kills: 1, deaths: 1 }));
    const [head, facts] = plain(formLines(many, career, 'title_a', 'en'))!;
    expect(head).toBe('**Last 10** `WLWLWLWLWL`');
    expect(facts).not.toMatch(/in a row/);
    expect(formLines([{ outcome: null, stats: {} }], career, 'title_a', 'en')).toBeNull();
    expect(formLines([], career, 'title_a', 'en')).toBeNull();
  });

  it('reads a match list and a real session list, whatever they call a result (a real session’s "unknown" is no letter)', () => {
    const list = MatchResultSchema.parse({
      matches: [
        { attributes: { id: '1' }, metadata: { result: 'victory' }, segments: [{ type: 'overview', stats: { kills: stat(3), deaths: stat(1) } }] },
        { attributes: { id: '2' }, metadata: { result: 'defeat' }, segments: [{ type: 'overview', stats: {} }] },
      ],
      metadata: { next: null },
    });
    expect(formOfMatches(list.matches).map((m) => m.outcome)).toEqual(['win', 'loss']);
    const sessions = SessionListSchema.parse({
      items: [
        { metadata: {}, stats: {}, matches: [{ id: 'a', metadata: { result: { value: 'unknown' } }, stats: { kills: stat(1) } }] },
        { metadata: {}, stats: {}, matches: [{ id: 'b', metadata: { result: { value: 'win' } }, stats: {} }] },
      ],
    });
    expect(formOfSessions(sessions).map((m) => m.outcome)).toEqual([null, 'win']);
  });

  it('signs a change in the reader’s format', () => {
    expect([signed(1234, 'en'), signed(-1234, 'de'), signed(0, 'en')]).toEqual(['+1,234', '\u22121.234', '±0']);
  });
});

describe('rank first', () => {
  const ranked = stats({ kd: 1.5 });
  ranked.rankScore = stat(11_902, { rankName: 'Diamond 1', iconUrl: 'https://trackercdn.com/rank/diamond1.png' });
  ranked.peakRankScore = stat(12_400, { rankName: 'Diamond 1' });

  it('leads with the tier as the answer names it and the rating, then the peak above it', () => {
    expect(rankLines(ranked, 'title_b', 'en')).toEqual({ heading: 'Diamond 1 · 11,902', peak: 'Peak **Diamond 1** · 12,400' });
    expect(rankLines(ranked, 'title_b', 'de')?.heading).toBe('Diamond 1 · 11.902');
    // A peak no higher than the rating says nothing new.
    expect(rankLines({ ...ranked, peakRankScore: stat(11_902) }, 'title_b', 'en')?.peak).toBeNull();
    // A rating without a tier is no rank: it stays among the figures.
    expect(rankLines(stats({ rating: 2000 }), 'title_a', 'en')).toBeNull();
  });

  it('puts the rank, the form and then K/D at the top of a profile, and draws the emblem, strip and trend on its card', () => {
    const profile = StatsProfileSchema.parse({
      platformInfo: { platformSlug: 'pc_store_b', platformUserHandle: 'Wraithling' },
      segments: [{ type: 'overview', stats: { ...ranked, kills: stat(130), deaths: stat(29), wins: stat(20), matchesPlayed: stat(49) } }],
    });
    const recent = [match('win', { kills: 3, deaths: 1, rankScore: 11_902, rankScoreChange: 40 }), match('loss', { kills: 1, deaths: 1, rankScore: 11_862 })];
    const lines = plain(profileReply(profile, 'title_b', meta, { recent }).embeds[0]!.description!.split('\n'))!;
    expect(lines.slice(0, 5)).toEqual([
      '### Diamond 1 · 11,902',
      'Peak **Diamond 1** · 12,400',
      '**Last 2** `LW` · Rating +40',
      'K/D 2.00 (career 1.50)',
      '**K/D 1.50 · Win 40.8%**',
    ]);
    const card = profileCard(profile, 'title_b', 'en', recent)!;
    expect(card.rank).toMatchObject({ tier: 'Diamond 1', mark: 'D1', rating: '11,902', peak: 'Peak 12,400' });
    expect(card.form).toEqual(['loss', 'win']);
    expect(card.trend).toMatchObject({ label: 'Rating', values: [11_862, 11_902], rise: 1 });
  });
});

describe('a comparison’s verdict', () => {
  it('names who leads on rank, K/D and win rate, not how many figures each is ahead on', async () => {
    const { compareReply } = await import('../../src/embeds/compare.js');
    const side = (handle: string, values: Record<string, number>, tier: string) => {
      const overview = stats(values);
      overview.rankScore = stat(values.rankScore ?? 0, { rankName: tier });
      return {
        profile: StatsProfileSchema.parse({
          platformInfo: { platformSlug: 'pc_store_b', platformUserHandle: handle },
          segments: [{ type: 'overview', stats: overview }],
        }),
        meta,
      };
    };
    // Nova plays far more and kills more a match; Vesper has the better rank and K/D.
    const nova = side('Nova', { rankScore: 6000, kd: 1.2, winRate: 40, killsPerMatch: 5, damagePerMatch: 900, matchesPlayed: 900 }, 'Gold 3');
    const vesper = side('Vesper', { rankScore: 9000, kd: 1.6, winRate: 38, killsPerMatch: 3, damagePerMatch: 600, matchesPlayed: 40 }, 'Platinum 4');
    const text = compareReply('title_b', nova, vesper, 'en').embeds[0]!.description!;
    expect(text).toContain('**Nova** leads on Win rate · **Vesper** on Rating and K/D.');
    expect(text).toContain('Rating · Gold\u00a03\u00a0▸\u00a0**Platinum\u00a04**');
  });
});
