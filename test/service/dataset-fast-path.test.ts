// The import's fast path for plain match records must never accept what the schema refuses, and
// must read what it accepts exactly as the schema does.
import { describe, expect, it } from 'vitest';

import { DatasetRecordSchema, fastMatchRecord, parseDatasetLine } from '../../src/service/dataset.js';
import { demoLines } from '../../src/service/demo.js';
import { scaleLines } from '../../bench/scale-data.js';
import { MUTATIONS, base, player } from '../fixtures/match-mutations.js';
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

  it('refuses, schema and fast path alike, a stat value that is not a number of magnitude at most 1e12 and a control character in any text field', () => {
    const refusals: [Record<string, unknown>, string][] = [
      [player({ stats: { kills: 0, deaths: 1e308 } }), 'players.0.stats.deaths: must be a number from -1e12 to 1e12'],
      [player({ stats: { deaths: -2e12 } }), 'players.0.stats.deaths: must be a number from -1e12 to 1e12'],
      [player({ weapons: { Carbine: { kills: 1e13 } } }), 'players.0.weapons.Carbine.kills: must be a number from -1e12 to 1e12'],
      [{ map: 'de\u0000dust' }, 'map: contains control characters'],
      [{ mode: 'a\u0085b' }, 'mode: contains control characters'],
      [{ playlist: 'a\u007fb' }, 'playlist: contains control characters'],
      [player({ team: 'r\u0000' }), 'players.0.team: contains control characters'],
      [player({ hero: 'h\u0000' }), 'players.0.hero: contains control characters'],
      [player({ legend: 'l\u0000' }), 'players.0.legend: contains control characters'],
      [player({ stats: { 'k\u0000': 1 } }), 'players.0.stats."k\\u0000": contains control characters'],
      [player({ weapons: { 'C\u0000': { kills: 1 } } }), 'players.0.weapons."C\\u0000": contains control characters'],
    ];
    for (const [patch, reason] of refusals) {
      const json = { ...base, ...patch };
      expect(fastMatchRecord(json), reason).toBeUndefined();
      expect(parseDatasetLine(JSON.stringify(json))).toEqual({ reason });
    }
    // A stat or weapon named __proto__ (which a map cannot hold: it was lost without a word) refuses its line.
    const proto = JSON.stringify({ ...base, ...player({ stats: { kills: 3 } }) }).replace('"kills":3', '"kills":3,"__proto__":5');
    expect(fastMatchRecord(JSON.parse(proto))).toBeUndefined();
    expect(parseDatasetLine(proto)).toEqual({ reason: 'players.0.stats: __proto__ cannot be a name' });
    const protoWeapon = JSON.stringify({ ...base, ...player({ stats: { kills: 3 }, weapons: { Carbine: { kills: 3 } } }) }).replace('"Carbine"', '"__proto__"');
    expect(parseDatasetLine(protoWeapon)).toEqual({ reason: 'players.0.weapons: __proto__ cannot be a name' });
    // JSON reads 1e400 as Infinity (and writes it as null).
    const infinite = JSON.stringify({ ...base, ...player({ stats: { deaths: 1 } }) }).replace('"deaths":1', '"deaths":1e400');
    expect(fastMatchRecord(JSON.parse(infinite))).toBeUndefined();
    expect(parseDatasetLine(infinite)).toEqual({ reason: 'players.0.stats.deaths: Invalid input: expected number, received Infinity' });
    const playerLine = {
      type: 'player',
      title: 'title_a',
      platform: 'pc_store_a',
      id: 'nova',
      handle: 'Nova',
      avatarUrl: 'https://cdn.example/a.png',
      vanity: 'nova',
    };
    expect(parseDatasetLine(JSON.stringify(playerLine))).toHaveProperty('record');
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, handle: 'No\u0000va' }))).toEqual({ reason: 'handle: contains control characters' });
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, avatarUrl: 'https://cdn.example/a\u0000.png' }))).toEqual({
      reason: 'avatarUrl: contains control characters',
    });
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, avatarUrl: 'https://cdn.example/a\u0085.png' }))).toEqual({
      reason: 'avatarUrl: contains control characters',
    });
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, vanity: 'no\u0000va' }))).toMatchObject({ reason: expect.stringMatching(/^vanity:/) as unknown });
    // The edges themselves are taken, by the fast path.
    expect(fastMatchRecord({ ...base, ...player({ stats: { kills: 1e12, deaths: -1e12 } }) })).toBeDefined();
  });

  it('agrees with the schema on the demo, the small dataset and generated data, and takes most of them', () => {
    const lines = [...demoLines(), ...smallLines(), ...scaleLines(400)];
    const taken = lines.map((l) => agree(JSON.parse(l)));
    const matches = lines.filter((l) => l.includes('"type":"match"')).length;
    expect(taken.filter((t) => t === 'fast').length).toBeGreaterThan(matches * 0.9);
  });
});
