// The lookup client's fast paths for stats and session matches (a busy player's sessions carry a
// thousand matches and thousands of stats) must never accept what the schema would read differently
// or note, must read what they accept exactly as the schema does, and must leave what they refuse
// untouched for the schema (they fill what they accept in place).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { SessionListSchema, SessionMatchSchema, StatInput, plainSessionMatch, plainStat, readPayload } from '../../src/lookup/schemas.js';
import { fullSessions, minimalSessions } from '../fixtures/real-shapes.js';

/**
 * Which path read `raw`. The schema reads a copy first, since the fast path fills what it takes in
 * place; both read inside readPayload, so that what they note is compared too.
 */
function agreeOn<T>(schema: z.ZodType<T>, plain: (raw: unknown) => T | undefined, raw: unknown): 'fast' | 'schema' {
  const before = structuredClone(raw);
  const read = readPayload(schema, structuredClone(raw));
  const fast = readPayload(
    z.unknown().transform((v) => plain(v)),
    raw,
  );
  if (!fast.success || fast.data === undefined) {
    expect(raw).toEqual(before);
    return 'schema';
  }
  if (!read.success) throw new Error(`the fast path read what the schema refuses: ${JSON.stringify(before)}`);
  expect(fast.degraded).toEqual(read.degraded);
  expect(fast.data).toEqual(read.data);
  return 'fast';
}
const agree = (raw: unknown) => agreeOn(StatInput, plainStat, raw);

/** `check` over `runs` generated values; each path must have been taken at least `least` times, so that the comparison was exercised, not skipped. */
function agreeOnMany<T>(values: fc.Arbitrary<T>, check: (value: T) => 'fast' | 'schema', runs: number, least: number): void {
  const taken = { fast: 0, schema: 0 };
  fc.assert(
    fc.property(values, (value) => void taken[check(value)]++),
    { numRuns: runs },
  );
  expect(taken.fast).toBeGreaterThan(least);
  expect(taken.schema).toBeGreaterThan(least);
}

const fieldValue = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.double(),
  fc.integer(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0),
  fc.string({ maxLength: 8 }),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null)), { maxKeys: 3 }),
);
const NUMBERS = ['rank', 'percentile', 'value'];
const TEXTS = ['displayName', 'displayCategory', 'category', 'displayValue', 'displayType'];
/** Mostly what the field should hold (or nothing), sometimes anything: so that both paths are taken often. */
const field = (wellFormed: fc.Arbitrary<unknown>) =>
  fc.oneof({ weight: 12, arbitrary: fc.oneof(wellFormed, fc.constant(undefined), fc.constant(null)) }, { weight: 1, arbitrary: fieldValue });
const statFields = fc.record(
  Object.fromEntries<fc.Arbitrary<unknown>>([
    ...NUMBERS.map((f) => [f, field(fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true })))] as const),
    ...TEXTS.map((f) => [f, field(fc.string({ maxLength: 8 }))] as const),
    ['metadata', field(fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }))] as const,
  ]),
  { requiredKeys: [] },
);

describe('stats read without zod', () => {
  it('agree with the schema on any mix of field shapes, and take the fast path only where the schema notes nothing', () => {
    const stat = fc
      .tuple(statFields, fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }))
      .map(([known, extra]) => ({ ...extra, ...known }));
    agreeOnMany(stat, agree, 3_000, 300);
  });

  it('refuses what is not an object, and reads a stat of the service, a real answer and a bare value alike', () => {
    for (const raw of [null, undefined, 3, 'x', [], [1]]) expect(plainStat(raw)).toBeUndefined();
    expect(agree({ value: 12, displayValue: '12', displayType: 'Number', metadata: { tier: 'Gold' }, rank: null, percentile: 88.5 })).toBe('fast');
    expect(agree({ value: 1.5 })).toBe('fast');
    expect(agree({ displayValue: '1.5', extraField: { nested: true } })).toBe('fast');
    expect(agree({ value: '12' })).toBe('schema');
    expect(agree({ value: 1, metadata: [] })).toBe('schema');
  });

  it('reads whole session lists as before: every stat of the real-shaped answers takes the fast path', () => {
    for (const answer of [fullSessions(), minimalSessions()]) {
      const items = (answer as { items?: { stats?: Record<string, unknown>; matches?: { stats?: Record<string, unknown> }[] }[] }).items ?? [];
      const stats = items.flatMap((s) => [...Object.values(s.stats ?? {}), ...(s.matches ?? []).flatMap((m) => Object.values(m.stats ?? {}))]);
      for (const stat of stats) expect(agree(stat)).toBe('fast');
      const read = readPayload(SessionListSchema, answer);
      expect(read.success).toBe(true);
      expect(read.degraded).toEqual([]);
    }
  });
});

/** Nearly always what the field should hold: a match takes the fast path only when every field does. */
const mostly = (wellFormed: fc.Arbitrary<unknown>) => fc.oneof({ weight: 30, arbitrary: wellFormed }, { weight: 1, arbitrary: fieldValue });
const valuedField = (value: fc.Arbitrary<unknown>) =>
  field(fc.record({ value, displayValue: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)) }, { requiredKeys: ['value'] }));
const date = fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
const sessionMatch = fc.record(
  {
    id: mostly(fc.string({ maxLength: 6 })),
    attributes: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.record({ id: fc.string({ maxLength: 4 }) }) }),
    metadata: mostly(
      fc.record(
        {
          // Without an offset the schema gives the date one: the fast path must leave it to the schema.
          startDate: valuedField(fc.oneof({ weight: 10, arbitrary: date }, { weight: 1, arbitrary: fc.constantFrom('yesterday', '', '2024-05-01T10:00:00') })),
          endDate: valuedField(date),
          result: valuedField(fc.oneof(fc.constantFrom('win', 'loss'), fc.constant(null))),
          character: valuedField(fc.string({ maxLength: 6 })),
          legend: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
    ),
    stats: mostly(fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.oneof(statFields, fieldValue), { maxKeys: 4 })),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: [] },
);

describe('session matches read without zod', () => {
  it('agree with the schema on any mix of field shapes, and leave what they refuse untouched', () => {
    agreeOnMany(sessionMatch, (raw) => agreeOn(SessionMatchSchema, plainSessionMatch, raw), 2_000, 200);
  });

  it('note a stat dropped inside a match read by hand, as the schema does', () => {
    const raw = { id: 'm1', metadata: { endDate: { value: '2025-01-01T00:00:00Z' } }, stats: { kills: { value: 3 }, empty: { displayName: 'x' } } };
    const viaList = readPayload(SessionListSchema, { items: [{ matches: [raw] }] });
    const stats = viaList.success ? viaList.data.items[0]?.matches[0]?.stats : undefined;
    expect(Object.keys(stats ?? {})).toEqual(['kills']);
    expect(stats?.kills).toMatchObject({ value: 3, displayValue: '3', displayName: 'Kills' });
    expect(viaList.degraded).toEqual([{ field: 'stats.empty', issue: 'neither a value nor a display value' }]);
  });

  it('read every match of the real-shaped answers by hand', () => {
    const matches = (fullSessions() as { items: { matches?: unknown[] }[] }).items.flatMap((s) => s.matches ?? []);
    expect(matches.length).toBeGreaterThan(0);
    for (const m of matches) expect(agreeOn(SessionMatchSchema, plainSessionMatch, m)).toBe('fast');
  });
});
