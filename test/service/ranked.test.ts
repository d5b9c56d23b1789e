// Ranked play in the service's answers: a rating is the newest match's, never a sum; its peak is the
// best of that match's season; the tier rides in the stat's metadata as the title's answers name it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { Memo, matchReport, matches, profile, segments, sessions } from '../../src/service/lookups.js';
import type { Store } from '../../src/service/store-api.js';
import { createTestStore } from '../helpers/service.js';

const T0 = Date.parse('2026-10-01T12:00:00Z');
const HOUR = 3_600_000;

/** A title_a match: Nova's rating after it and the change, an opponent's too. */
const a = (n: number, season: number, rating: number | null, change: number, queue = 'ranked') =>
  JSON.stringify({
    type: 'match',
    title: 'title_a',
    platform: 'pc_store_a',
    id: `r-${n}`,
    startedAt: new Date(T0 + n * 20 * HOUR).toISOString(),
    durationSeconds: 600,
    playlist: queue === 'ranked' ? 'Ranked Arena' : 'Casual',
    queue,
    season,
    players: [
      {
        id: '76561198000000001',
        platform: 'pc_store_a',
        team: 'red',
        result: change >= 0 ? 'win' : 'loss',
        stats: { kills: 10, deaths: 5, ...(rating === null ? {} : { rating, ratingChange: change }) },
      },
      { id: '76561198000000002', platform: 'pc_store_a', team: 'blue', result: change >= 0 ? 'loss' : 'win', stats: { kills: 5, deaths: 10, rating: 900 } },
    ],
  });

/** A title_b match minutes after the last: one session. */
const b = (n: number, rankScore: number, change: number) =>
  JSON.stringify({
    type: 'match',
    title: 'title_b',
    platform: 'pc_store_b',
    id: `rb-${n}`,
    startedAt: new Date(T0 + n * 20 * 60_000).toISOString(),
    durationSeconds: 900,
    players: [{ id: 'Wraithling', platform: 'pc_store_b', result: change > 0 ? 'win' : 'loss', stats: { kills: 2, rankScore, rankScoreChange: change } }],
  });

let store: Store;
const ctx = () => ({ store, now: () => T0 + 400 * HOUR });

beforeAll(async () => {
  store = await createTestStore();
  await importLines(store, [
    a(1, 1, 2000, 20),
    a(2, 1, 2600, 600), // season 1's peak
    a(3, 2, 2200, -400),
    a(4, 2, 2350, 150), // season 2's peak
    a(5, 2, 2300, -50), // the newest ranked match
    a(6, 2, null, 0, 'social'), // newer, unranked: says nothing of the rating
    JSON.stringify({
      type: 'match',
      title: 'title_a',
      platform: 'pc_store_a',
      id: 'u-1',
      startedAt: new Date(T0).toISOString(),
      durationSeconds: 600,
      players: [{ id: '76561198000000003', platform: 'pc_store_a', result: 'win', stats: { kills: 3 } }],
    }),
    b(1, 6100, 100),
    b(2, 6050, -50),
    b(3, 6200, 150),
  ]);
});
afterAll(() => store.close());

describe('ranked play', () => {
  it('gives a profile the newest ranked match’s rating and the best of its season, with their tiers, not a sum', async () => {
    const p = await profile(ctx(), new Memo(), 'title_a', 'pc_store_a', '76561198000000001', true);
    const stats = p.segments[0]!.stats;
    expect(stats.rating).toMatchObject({ value: 2300, metadata: { tierName: 'Platinum 2', division: 2, iconUrl: null } });
    expect(stats.peakRating).toMatchObject({ value: 2350, metadata: { tierName: 'Platinum 2' } });
    // A career's sum of changes says nothing: left out.
    expect(stats.ratingChange).toBeUndefined();
  });

  it('names title_b’s tier `rankName`, as its real answers do', async () => {
    const p = await profile(ctx(), new Memo(), 'title_b', 'pc_store_b', 'Wraithling', false);
    expect(p.segments[0]!.stats.rankScore).toMatchObject({ value: 6200, metadata: { rankName: 'Gold 3' } });
    expect(p.segments[0]!.stats.peakRankScore?.value).toBe(6200);
  });

  it('keeps a segment’s rating to its own matches: a season’s newest and best', async () => {
    const [season1] = await segments(ctx(), new Memo(), 'title_a', 'pc_store_a', '76561198000000001', 'overview', { season: 1 });
    expect(season1!.stats.rating?.value).toBe(2600);
    expect(season1!.stats.peakRating?.value).toBe(2600);
    expect(season1!.stats.ratingChange?.value).toBe(620);
    const playlists = await segments(ctx(), new Memo(), 'title_a', 'pc_store_a', '76561198000000001', 'playlist', {});
    expect(playlists.find((s) => s.metadata.name === 'Ranked Arena')?.stats.rating?.value).toBe(2300);
    expect(playlists.find((s) => s.metadata.name === 'Casual')?.stats.rating).toBeUndefined();
  });

  it('gives each match in a list and a report the player’s rating after it and the change, and a team none', async () => {
    const list = await matches(ctx(), 'title_a', 'pc_store_a', '76561198000000001');
    const third = list.matches.find((m) => m.attributes.id === 'r-3')!.segments[0]!.stats;
    expect(third.rating).toMatchObject({ value: 2200, metadata: { tierName: 'Platinum 3' } });
    expect(third.ratingChange?.value).toBe(-400);
    const report = await matchReport(ctx(), 'title_a', 'pc_store_a', 'r-3');
    const teams = report.children.filter((c) => c.type === 'team');
    expect(teams.every((t) => t.stats.rating === undefined)).toBe(true);
    expect(report.children.find((c) => c.type === 'player' && c.attributes.platformUserIdentifier === '76561198000000001')?.stats.rating?.value).toBe(2200);
  });

  it('adds up a session’s changes and ends it at its last rating', async () => {
    const list = await sessions(ctx(), new Memo(), 'title_b', 'pc_store_b', 'Wraithling');
    const stats = list.items[0]!.stats;
    expect(stats.rankScoreChange?.value).toBe(200);
    expect(stats.rankScore).toMatchObject({ value: 6200, metadata: { rankName: 'Gold 3' } });
  });

  it('gives a player whose matches carry no rating none', async () => {
    const p = await profile(ctx(), new Memo(), 'title_a', 'pc_store_a', '76561198000000003', true);
    expect(p.segments[0]!.stats.rating).toBeUndefined();
    expect(p.segments[0]!.stats.peakRating).toBeUndefined();
    // One whose matches carry a rating without a change has that rating, the newest.
    const opponent = await profile(ctx(), new Memo(), 'title_a', 'pc_store_a', '76561198000000002', true);
    expect(opponent.segments[0]!.stats.rating?.value).toBe(900);
  });
});
