// What changed over a period, told from the snapshots kept a day.
import { describe, expect, it } from 'vitest';

import { baseOf, daySnapshotOf, periodLines, weekLines, withDay, type DaySnapshot } from '../../src/embeds/history.js';
import { plain, stat } from '../helpers/stats.js';

const day = (d: string, extra: Partial<DaySnapshot> = {}): DaySnapshot => ({ day: d, ...extra });

describe('a player’s history', () => {
  it('keeps a day once (its latest look), in order, and no day more than 90 before today', () => {
    const days = withDay([day('2026-08-01'), day('2026-11-18', { matches: 1 }), day('2026-11-20', { matches: 2 })], day('2026-11-20', { matches: 3 }));
    expect(days).toEqual([day('2026-11-18', { matches: 1 }), day('2026-11-20', { matches: 3 })]);
  });

  it('measures a period from the newest day at least that long ago, else the oldest kept; a season from its first day', () => {
    const days = [day('2026-11-01', { season: 3 }), day('2026-11-10', { season: 4 }), day('2026-11-13', { season: 4 }), day('2026-11-19', { season: 4 })];
    const today = day('2026-11-20', { season: 4 });
    expect(baseOf(days, 'day', today)?.day).toBe('2026-11-19');
    expect(baseOf(days, 'week', today)?.day).toBe('2026-11-13');
    expect(baseOf(days, 'month', today)?.day).toBe('2026-11-01');
    expect(baseOf(days, 'season', today)?.day).toBe('2026-11-10');
    expect(baseOf([day('2026-11-20')], 'week', today)).toBeUndefined();
  });

  it('tells a week’s matches, wins and kills, K/D and win rate then and now with the week’s own, and the rating’s tiers', () => {
    const before = day('2026-11-13', { matches: 40, wins: 20, kills: 400, deaths: 300, kd: 1.33, winRate: 50, rating: 2400, tier: 'Platinum 2' });
    const today = day('2026-11-20', { matches: 52, wins: 28, kills: 550, deaths: 380, kd: 1.45, winRate: 53.8, rating: 2720, tier: 'Diamond 3' });
    expect(plain(periodLines([before], today, 'week', 'en'))).toEqual([
      `**Last week** · since <t:${Date.parse('2026-11-13') / 1000}:d>`,
      '+12 matches · 8 wins · +150 Kills',
      'K/D 1.33 → **1.45** · in the period 1.88',
      'Win rate 50.0% → **53.8%**',
      'Rating Platinum 2 → **Diamond 3** (+320)',
    ]);
    expect(plain(periodLines([before], today, 'week', 'de'))?.[0]).toBe(`**Letzte Woche** · seit <t:${Date.parse('2026-11-13') / 1000}:d>`);
    expect(periodLines([before], { ...today, matches: 40 }, 'week', 'en')[1]).toBe('No new matches.');
    expect(periodLines([], today, 'week', 'en')[0]).toMatch(/^-# No history of this player yet/);
  });

  it('sums up the last week of a title without a match list, against the career', () => {
    const before = day('2026-11-13', { matches: 40, wins: 20, kills: 400, deaths: 300 });
    const today = day('2026-11-20', { matches: 46, wins: 24, kills: 460, deaths: 330, kd: 1.39 });
    expect(plain(weekLines([before], today, 'en'))).toEqual([
      `**since <t:${Date.parse('2026-11-13') / 1000}:d>** · +6 matches · 4 wins`,
      'K/D 2.00 (career 1.39)',
    ]);
    expect(weekLines([], today, 'en')).toBeNull();
  });

  it('takes today’s snapshot of an overview by meaning, the rating’s tier and the season with it', () => {
    const snapshot = daySnapshotOf(
      { kills: stat(10), deaths: stat(5), wlPercentage: stat(55), rating: stat(2720, { tierName: 'Diamond 3' }) },
      'title_d',
      new Date('2026-11-20T23:59:00Z'),
      4,
    );
    expect(snapshot).toEqual({
      day: '2026-11-20',
      kills: 10,
      deaths: 5,
      kd: 2,
      winRate: 55,
      rating: 2720,
      tier: 'Diamond 3',
      season: 4,
      matches: undefined,
      wins: undefined,
    });
  });
});
