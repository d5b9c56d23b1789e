import { describe, expect, it } from 'vitest';

import {
  ENDPOINTS,
  PLATFORMS,
  TITLES,
  buildPath,
  findEndpoint,
  pathParams,
  platformsOfTitle,
  readableStatName,
  formatStatValue,
  formatDuration,
  formatTimeSpan,
  parseTimeSpan,
} from '../../src/catalog/index.js';

describe('catalog', () => {
  it('lists the 15 endpoints of the interface with their exact path shapes', () => {
    expect(ENDPOINTS.map((e) => `${e.title} ${e.kind} ${e.path}`)).toEqual([
      'title_a profile /v2/title_a/standard/profile/{platform}/{platformUserIdentifier}',
      'title_a matches /v2/title_a/standard/matches/{platform}/{platformUserIdentifier}',
      'title_a match /v1/title_a/matches/{platform}/direct/{matchId}',
      'title_a segments /v2/title_a/standard/profile/{platform}/{platformUserIdentifier}/segments/{segmentType}',
      'title_a search /v2/title_a/standard/search',
      'title_b profile /v2/title_b/standard/profile/{platform}/{platformUserIdentifier}',
      'title_b segments /v2/title_b/standard/profile/{platform}/{platformUserIdentifier}/segments/{segmentType}',
      'title_b search /v2/title_b/standard/search',
      'title_b sessions /v2/title_b/standard/profile/{platform}/{platformUserIdentifier}/sessions',
      'title_c profile /v2/title_c/standard/profile/{platform}/{platformUserIdentifier}',
      'title_c segments /v2/title_c/standard/profile/{platform}/{platformUserIdentifier}/segments/{segmentType}',
      'title_c search /v2/title_c/standard/search',
      'title_d profile /v2/title_d/standard/profile/{platform}/{platformUserIdentifier}',
      'title_d segments /v2/title_d/standard/profile/{platform}/{platformUserIdentifier}/segments/{segmentType}',
      'title_d search /v2/title_d/standard/search',
    ]);
  });

  it('allows the platforms of the specification per endpoint', () => {
    const allowed = Object.fromEntries(ENDPOINTS.map((e) => [`${e.title}.${e.kind}`, [...e.platforms].sort()]));
    const A = ['console_a', 'console_b', 'pc_store_a'];
    expect(allowed).toEqual({
      'title_a.profile': A,
      'title_a.matches': A,
      'title_a.match': A,
      'title_a.segments': A,
      'title_a.search': A,
      'title_b.profile': ['console_a', 'console_b', 'pc_store_b'],
      'title_b.sessions': ['console_a', 'console_b', 'pc_store_b'],
      'title_b.search': ['console_a', 'console_b', 'pc_store_b'],
      'title_b.segments': ['console_a', 'console_b', 'pc_store_c'],
      'title_c.profile': ['console_a', 'console_b', 'pc_store_c'],
      'title_c.segments': ['console_a', 'console_b', 'pc_store_c'],
      'title_c.search': ['console_a', 'console_b', 'pc_store_c'],
      'title_d.profile': ['pc_store_a'],
      'title_d.segments': ['pc_store_a'],
      'title_d.search': ['pc_store_a'],
    });
    expect(platformsOfTitle('title_b')).toEqual(['pc_store_b', 'pc_store_c', 'console_a', 'console_b']);
  });

  it('names the segment types and query options of each title', () => {
    expect(TITLES.title_a.segmentTypes.map((s) => s.type).sort()).toEqual(['gamemode', 'map', 'overview', 'playlist', 'weapon']);
    expect(TITLES.title_b.segmentTypes.map((s) => s.type)).toEqual(['legend']);
    expect(TITLES.title_c.segmentTypes.map((s) => s.type)).toEqual(['hero']);
    expect(TITLES.title_d.segmentTypes.map((s) => s.type)).toEqual(['map', 'weapon']);
    expect(TITLES.title_a.lifetimeOnlySegmentTypes).toEqual(['weapon']);
    expect(findEndpoint('title_a', 'segments')?.query.map((q) => [q.name, q.values])).toEqual([
      ['queue', ['ranked', 'social']],
      ['season', undefined],
    ]);
    expect(findEndpoint('title_c', 'segments')?.query).toEqual([]);
    expect(findEndpoint('title_c', 'matches')).toBeUndefined();
    for (const p of Object.values(PLATFORMS)) expect(p.identifier.length).toBeGreaterThan(3);
  });

  it('builds paths with every parameter encoded as one segment', () => {
    const profile = findEndpoint('title_c', 'profile');
    expect(pathParams(profile?.path ?? '')).toEqual(['platform', 'platformUserIdentifier']);
    expect(buildPath(profile?.path ?? '', { platform: 'pc_store_c', platformUserIdentifier: 'Nova#2231' })).toBe(
      '/v2/title_c/standard/profile/pc_store_c/Nova%232231',
    );
    expect(buildPath('/x/{id}', { id: 'a/b?c%d é' })).toBe('/x/a%2Fb%3Fc%25d%20%C3%A9');
    expect(() => buildPath('/x/{id}', {})).toThrow(/missing path parameter id/);
  });
});

describe('stat display', () => {
  it('gives unknown stat keys a readable name', () => {
    expect(readableStatName('longestKillStreak')).toBe('Longest Kill Streak');
    expect(readableStatName('time_alive')).toBe('Time Alive');
    expect(readableStatName('placement')).toBe('Placement');
    expect(readableStatName('MVPCount')).toBe('MVP Count');
  });

  it('formats values by display type', () => {
    expect(formatStatValue(1234567, 'Number')).toBe('1,234,567');
    expect(formatStatValue(1.5, 'NumberPrecision2')).toBe('1.50');
    expect(formatStatValue(54.321, 'NumberPercentage')).toBe('54.3%');
    expect(formatStatValue(93784, 'TimeSeconds')).toBe('1d 2h 3m');
    expect(formatStatValue(null, 'Number')).toBe('-');
    expect(formatDuration(184)).toBe('3m 4s');
    expect(formatDuration(3600)).toBe('1h 0m');
  });

  it('writes and reads .NET TimeSpan durations, with days past a day and fractions of a second', () => {
    expect(formatTimeSpan(3725)).toBe('01:02:05');
    expect(formatTimeSpan(93_784)).toBe('1.02:03:04');
    expect(parseTimeSpan('00:45:06.6886760')).toBeCloseTo(2706.688676, 6);
    expect(parseTimeSpan('1.02:03:04')).toBe(93_784);
    expect(parseTimeSpan('01:05:00')).toBe(3900);
    expect(parseTimeSpan(formatTimeSpan(200_000))).toBe(200_000);
    expect(parseTimeSpan('45 minutes')).toBeNull();
    expect(parseTimeSpan('')).toBeNull();
  });
});
