// Forms real answers (or a compatible service's) give fields in that the schemas read as what they
// mean: numbers as text, ids and cursors as numbers, a match list entry in the report's forms, and
// dates without an offset, which are UTC whatever the process's time zone.
import { describe, expect, it } from 'vitest';

import { MatchResultSchema, SegmentListSchema, SessionListSchema, StatisticalObjectSchema, expiryOf, readPayload } from '../../src/lookup/schemas.js';

function read<T>(schema: Parameters<typeof readPayload<T>>[0], input: unknown) {
  const parsed = readPayload(schema, input);
  if (!parsed.success) throw new Error(JSON.stringify(parsed.error.issues));
  return parsed;
}

describe('numbers as text', () => {
  it('reads a stat’s value, rank and percentile sent as numeric text as numbers; other text still falls back', () => {
    const { data, degraded } = read(SegmentListSchema, [
      {
        type: 'overview',
        stats: {
          kills: { value: '1234', rank: '17', percentile: '99.1', displayValue: '1,234' },
          kd: { value: '12.5' },
          odd: { value: 'n/a', rank: '1,000', displayValue: 'n/a' },
        },
      },
    ]);
    const stats = data[0]!.stats;
    expect(stats.kills).toMatchObject({ value: 1234, rank: 17, percentile: 99.1, displayValue: '1,234' });
    expect(stats.kd?.value).toBe(12.5);
    expect(stats.odd).toMatchObject({ value: null, rank: null, displayValue: 'n/a' });
    expect(degraded.map((d) => d.field).sort()).toEqual(['stat.rank', 'stat.value']);
  });
});

describe('matches in other forms', () => {
  it('reads a report child’s isWinner sent as the text "true" or "false"', () => {
    const report = read(StatisticalObjectSchema, {
      attributes: { id: 'm1' },
      children: [
        { type: 'team', attributes: { id: 1 }, metadata: { name: 'Red', isWinner: 'true' }, stats: {} },
        { type: 'team', attributes: { id: 2 }, metadata: { name: 'Blue', isWinner: 'False' }, stats: {} },
      ],
    });
    expect(report.data.children.map((c) => c.metadata.isWinner)).toEqual([true, false]);
    expect(report.degraded).toEqual([]);
  });

  it('keeps match list entries and reports whose id is a number, as text', () => {
    const list = read(MatchResultSchema, { matches: [{ attributes: { id: 123456789 } }, { attributes: { id: 'a-1' } }] });
    expect(list.data.matches.map((m) => m.attributes.id)).toEqual(['123456789', 'a-1']);
    expect(read(StatisticalObjectSchema, { attributes: { id: 123 } }).data.attributes.id).toBe('123');
    const sessions = read(SessionListSchema, { items: [{ matches: [{ attributes: { id: 42 }, metadata: {}, stats: {} }] }] });
    expect(sessions.data.items[0]?.matches[0]?.id).toBe('42');
  });

  it('reads a match list entry’s names as { value, displayValue }, its time as epoch milliseconds and its duration as a TimeSpan', () => {
    const { data, degraded } = read(MatchResultSchema, {
      matches: [
        {
          attributes: { id: 'm1' },
          metadata: {
            timestamp: Date.UTC(2026, 10, 20, 18),
            mapName: { value: 'harbor', displayValue: 'Harbor' },
            modeName: { displayValue: 'Team Deathmatch' },
            playlistName: { value: 'Ranked Arena' },
            queue: 'ranked',
            result: { value: 'win', displayValue: 'Victory' },
            duration: '00:25:00',
          },
        },
        // Seconds, not milliseconds: before 2000 as milliseconds, so not read as a time.
        { attributes: { id: 'm2' }, metadata: { timestamp: 1_763_661_600, duration: 720 } },
      ],
    });
    expect(data.matches[0]?.metadata).toMatchObject({
      timestamp: '2026-11-20T18:00:00.000Z',
      mapName: 'Harbor',
      modeName: 'Team Deathmatch',
      playlistName: 'Ranked Arena',
      queue: 'ranked',
      result: 'Victory',
      duration: 1_500,
    });
    expect(data.matches[1]?.metadata).toMatchObject({ timestamp: null, duration: 720 });
    expect(degraded.map((d) => d.field)).toEqual(['match.timestamp']);
    const report = read(StatisticalObjectSchema, { attributes: { id: 'r1' }, metadata: { timestamp: Date.UTC(2026, 10, 20, 18), duration: '01:02:05' } });
    expect(report.data.metadata).toMatchObject({ timestamp: '2026-11-20T18:00:00.000Z', duration: 3_725 });
  });

  it('reads a numeric cursor as text, and an empty one as no next page', () => {
    expect(read(MatchResultSchema, { matches: [], metadata: { next: 20 } }).data.metadata.next).toBe('20');
    expect(read(MatchResultSchema, { matches: [], metadata: { next: '' } }).data.metadata.next).toBeNull();
    expect(read(MatchResultSchema, { matches: [], metadata: { next: 'cursor-2' } }).data.metadata.next).toBe('cursor-2');
  });
});

describe('dates without an offset', () => {
  it('reads an ISO date-time without an offset as UTC, whatever the process’s time zone', () => {
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      // The zone took: a date without an offset would be read nine hours early.
      expect(new Date(Date.UTC(2024, 4, 1)).getTimezoneOffset()).toBe(-540);
      const { data } = read(SessionListSchema, {
        items: [
          {
            metadata: { startDate: { value: '2024-05-01T10:00:00' } },
            matches: [{ id: 'm', metadata: { endDate: { value: '2024-05-01T10:30:00.5' } }, stats: {} }],
          },
        ],
        expiryDate: '2024-05-01T11:00',
      });
      const session = data.items[0]!;
      expect(Date.parse(session.metadata.startDate!.value)).toBe(Date.UTC(2024, 4, 1, 10));
      expect(Date.parse(session.matches[0]!.metadata.endDate!.value)).toBe(Date.UTC(2024, 4, 1, 10, 30, 0, 500));
      expect(expiryOf(data.expiryDate)).toBe(Date.UTC(2024, 4, 1, 11));
      expect(expiryOf('2024-05-01T11:00:00')).toBe(Date.UTC(2024, 4, 1, 11));
      // Anything else is read as Date.parse reads it.
      expect(expiryOf('2024-05-01T11:00:00+02:00')).toBe(Date.UTC(2024, 4, 1, 9));
      expect(expiryOf('2024-05-01')).toBe(Date.UTC(2024, 4, 1));
      expect(expiryOf('Wed, 01 May 2024 11:00:00 GMT')).toBe(Date.UTC(2024, 4, 1, 11));
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }
  });
});
