// The import's fast path for plain match records must never accept what the schema refuses, and
// must read what it accepts exactly as the schema does.
import { describe, expect, it } from 'vitest';

import { DatasetRecordSchema, fastMatchRecord } from '../../src/service/dataset.js';
import { demoLines } from '../../src/service/demo.js';
import { scaleLines } from '../../bench/scale-data.js';
import { smallLines } from '../fixtures/small-dataset.js';

function agree(json: unknown): 'fast' | 'schema' {
  const fast = fastMatchRecord(json);
  const schema = DatasetRecordSchema.safeParse(json);
  if (fast) {
    expect(schema.success, JSON.stringify(json).slice(0, 300)).toBe(true);
    expect(fast).toEqual(schema.data);
    return 'fast';
  }
  return 'schema';
}

const base = {
  type: 'match',
  title: 'title_a',
  platform: 'pc_store_a',
  id: 'm-1',
  startedAt: '2026-11-01T18:00:00Z',
  durationSeconds: 600,
  map: 'Harbor',
  mode: 'Domination',
  playlist: 'Unranked',
  queue: 'ranked',
  season: 2,
  players: [
    { id: 'Ash', platform: 'pc_store_a', team: 'red', result: 'win', stats: { kills: 3 }, weapons: { Carbine: { kills: 2 } } },
    { id: 'Bo', platform: 'console_a', team: 'blue', result: 'loss', hero: null, legend: 'Seer', stats: {} },
  ],
};

const player = (patch: Record<string, unknown>) => ({ ...base, players: [{ ...base.players[0], ...patch }] });

const MUTATIONS: Record<string, unknown>[] = [
  {},
  { extra: 1 },
  { title: 'title_z' },
  { title: 'title_d' },
  { platform: 'console_c' },
  { id: '' },
  { id: 'a b' },
  { id: 'x'.repeat(101) },
  { startedAt: '2026-02-30T00:00:00Z' },
  { startedAt: '2026-02-28T24:00:00Z' },
  { startedAt: '2026-11-01T18:00:00.123Z' },
  { startedAt: '2026-11-01T18:00:00+02:00' },
  { startedAt: '2026-11-01t18:00:00z' },
  { startedAt: '2026-11-01' },
  { startedAt: 1 },
  { durationSeconds: -1 },
  { durationSeconds: 86_401 },
  { durationSeconds: 1.5 },
  { durationSeconds: '600' },
  { map: ' Harbor ' },
  { map: '' },
  { map: null },
  { map: 'm'.repeat(101) },
  { mode: 3 },
  { queue: 'casual' },
  { queue: null },
  { season: 0 },
  { season: 10_001 },
  { season: null },
  { season: 2.5 },
  { players: [] },
  { players: {} },
  { players: Array.from({ length: 201 }, (_, i) => ({ id: `p${i}`, platform: 'pc_store_a', stats: {} })) },
  { players: [base.players[0], { ...base.players[0], id: 'ASH' }] },
  { players: [base.players[0], { ...base.players[0], platform: 'console_b' }] },
  player({ id: 'a/b' }),
  player({ id: '..' }),
  player({ id: ' ' }),
  player({ platform: 'pc_store_b' }),
  player({ team: ' red' }),
  player({ team: 't'.repeat(51) }),
  player({ team: null }),
  player({ result: 'won' }),
  player({ result: null }),
  player({ hero: '' }),
  player({ stats: { kills: '3' } }),
  player({ stats: { '': 1 } }),
  player({ stats: { ['k'.repeat(65)]: 1 } }),
  player({ stats: { ' kills': 1 } }),
  player({ stats: [] }),
  player({ stats: null }),
  player({ stats: JSON.parse('{"__proto__": 1}') as unknown }),
  player({ weapons: { ' Carbine': { kills: 1 } } }),
  player({ weapons: { Carbine: { kills: 'x' } } }),
  player({ weapons: [] }),
  player({ weapons: null }),
  player({ extra: true }),
];

describe('the fast path for match records', () => {
  it('agrees with the schema on every mutation of a plain record', () => {
    const taken = MUTATIONS.map((m) => agree({ ...base, ...m }));
    expect(taken[0]).toBe('fast');
    // A key the schema does not know is left to the schema (which drops it): the fast path takes a
    // record as it was parsed, without a copy.
    expect(taken[MUTATIONS.findIndex((m) => 'extra' in m)]).toBe('schema');
    expect(taken.filter((t) => t === 'fast').length).toBeGreaterThan(8);
    expect(taken.filter((t) => t === 'schema').length).toBeGreaterThan(30);
  });

  it('agrees with the schema on the demo, the small dataset and generated data, and takes most of them', () => {
    const lines = [...demoLines(), ...smallLines(), ...scaleLines(400)];
    const taken = lines.map((l) => agree(JSON.parse(l)));
    const matches = lines.filter((l) => l.includes('"type":"match"')).length;
    expect(taken.filter((t) => t === 'fast').length).toBeGreaterThan(matches * 0.9);
  });
});
