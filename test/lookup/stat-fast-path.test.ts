// The lookup client's fast path for stats (a busy player's sessions carry thousands) must never
// accept what the schema would read differently or note, and must read what it accepts exactly as
// the schema does.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { SessionListSchema, StatInput, plainStat, readPayload } from '../../src/lookup/schemas.js';
import { fullSessions, minimalSessions } from '../fixtures/real-shapes.js';

function agree(raw: unknown): 'fast' | 'schema' {
  const fast = plainStat(raw);
  if (!fast) return 'schema';
  const schema = readPayload(StatInput, raw);
  if (!schema.success) throw new Error(`the fast path read a stat the schema refuses: ${JSON.stringify(raw)}`);
  expect(schema.degraded).toEqual([]);
  expect(fast).toEqual(schema.data);
  return 'fast';
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
    let fast = 0;
    let schema = 0;
    fc.assert(
      fc.property(statFields, fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }), (known, extra) => {
        if (agree({ ...extra, ...known }) === 'fast') fast++;
        else schema++;
      }),
      { numRuns: 3_000 },
    );
    // Both paths were taken many times: the comparison was exercised, not skipped.
    expect(fast).toBeGreaterThan(300);
    expect(schema).toBeGreaterThan(300);
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
