import { describe, expect, it } from 'vitest';

import { emptyTotals, addMatch, groupRows, standing, toStats, totalsToValues, type AggregateRow } from '../../src/service/aggregate.js';
import { StatsSchema } from '../../src/lookup/schemas.js';
import { strictly } from '../helpers/schemas.js';

describe('aggregation', () => {
  it('sums matches and derives the ratios', () => {
    const t = emptyTotals();
    addMatch(t, {
      result: 'win',
      duration_s: 600,
      stats: JSON.stringify({ kills: 10, deaths: 4, assists: 2, damage: 1000, shotsFired: 200, shotsHit: 50, headshots: 5 }),
    });
    addMatch(t, { result: 'loss', duration_s: 300, stats: JSON.stringify({ kills: 2, deaths: 4, assists: 0, damage: 500 }) });
    addMatch(t, { result: null, duration_s: 100, stats: JSON.stringify({ kills: 0 }) });
    const v = totalsToValues(t);
    expect(v).toMatchObject({ matchesPlayed: 3, wins: 1, losses: 1, timePlayed: 1000, kills: 12, deaths: 8, assists: 2, damage: 1500 });
    expect(v.kd).toBe(1.5);
    expect(v.kda).toBe(14 / 8);
    expect(v.winRate).toBeCloseTo(100 / 3);
    expect(v.killsPerMatch).toBe(4);
    expect(v.damagePerMatch).toBe(500);
    expect(v.accuracy).toBe(25);
    expect(v.headshotRate).toBeCloseTo((5 / 12) * 100);
  });

  it('treats zero deaths as one for K/D rather than dividing by zero', () => {
    const t = emptyTotals();
    addMatch(t, { result: 'win', duration_s: 60, stats: JSON.stringify({ kills: 7, deaths: 0 }) });
    expect(totalsToValues(t).kd).toBe(7);
  });

  it('groups by a column, and by each weapon a match used', () => {
    const rows: AggregateRow[] = [
      ['win', 60, 'Foundry', JSON.stringify({ kills: 1 })],
      ['loss', 60, 'Foundry', JSON.stringify({ kills: 2 })],
      ['win', 60, 'Harbor', JSON.stringify({ kills: 3 })],
      ['win', 60, null, JSON.stringify({ kills: 4 })],
    ];
    const maps = groupRows(rows, false);
    expect([...maps.keys()]).toEqual(['Foundry', 'Harbor']);
    expect(maps.get('Foundry')?.sums.get('kills')).toBe(3);
    const weapons = groupRows(
      [
        ['win', 60, null, JSON.stringify({ Carbine: { kills: 2, shotsFired: 10, shotsHit: 5 } })],
        ['loss', 60, null, JSON.stringify({ Carbine: { kills: 1 }, Pistol: { kills: 1 } })],
        ['loss', 60, null, null],
      ],
      true,
    );
    expect(weapons.get('Carbine')?.matchesPlayed).toBe(2);
    expect(weapons.get('Carbine')?.sums.get('kills')).toBe(3);
    expect(weapons.get('Pistol')?.losses).toBe(1);
  });

  it('ranks a value among all players, with ties sharing a rank, its percentile the share of the others at or below', () => {
    const population = Float64Array.from([1, 2, 2, 5, 9]);
    // The best of five is the top fifth: four of five at or below it.
    expect(standing(population, 9, true)).toEqual({ rank: 1, percentile: 80 });
    expect(standing(population, 2, true)).toEqual({ rank: 3, percentile: 40 });
    expect(standing(population, 1, true)).toEqual({ rank: 5, percentile: 0 });
    // Fewer deaths is better.
    expect(standing(population, 1, false)).toEqual({ rank: 1, percentile: 80 });
    expect(standing(population, 9, false)).toEqual({ rank: 5, percentile: 0 });
    expect(standing(new Float64Array(0), 1, true)).toBeNull();
  });

  it('renders values as Stat objects with display names, display values and standings', () => {
    const stats = toStats({ kills: 1234, winRate: 51.234, timePlayed: 3700, longestStreak: 9 }, (key) =>
      key === 'kills' ? { rank: 2, percentile: 99.5 } : null,
    );
    expect(strictly(StatsSchema, stats)).toEqual(stats);
    expect(Object.keys(stats)).toEqual(['winRate', 'kills', 'longestStreak', 'timePlayed']);
    expect(stats.kills).toMatchObject({ displayName: 'Kills', displayValue: '1,234', rank: 2, percentile: 99.5, category: 'combat' });
    expect(stats.winRate).toMatchObject({ displayValue: '51.2%', displayType: 'NumberPercentage', rank: null });
    expect(stats.timePlayed?.displayValue).toBe('1h 1m');
    expect(stats.longestStreak).toMatchObject({ displayName: 'Longest Streak', category: 'general', displayType: 'Number' });
  });
});

describe('sums of fractional stats', () => {
  it('are the same whatever order they were added in, and rank alike', () => {
    const healing = [0.1, 0.7, 1.3, 0.2, 0.6, 1.3];
    const sum = (order: number[]) => order.reduce((a, b) => a + b, 0);
    const forwards = sum(healing);
    const inParts = sum([sum(healing.slice(0, 2)), sum(healing.slice(2, 4)), sum(healing.slice(4))]);
    // Raw, the two orders disagree in the last bits (4.2 against 4.199999999999999).
    expect(forwards).not.toBe(inParts);
    const values = (total: number) =>
      totalsToValues({
        matchesPlayed: 6,
        wins: 3,
        losses: 3,
        timePlayed: 3600,
        sums: new Map([
          ['healing', total],
          ['kills', 1e12 + 7],
        ]),
      });
    expect(values(forwards).healing).toBe(4.2);
    expect(values(inParts).healing).toBe(4.2);
    expect(values(forwards).kills).toBe(1e12 + 7);
  });
});
