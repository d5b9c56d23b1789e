// The dataset's schema: the one definition of a line (src/service/dataset.ts). What it refuses, it
// refuses with the path and reason an operator reads; what it takes, it takes whole.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

import { DatasetRecordSchema, parseDatasetLine } from '../../src/service/dataset.js';
import { demoLines } from '../../src/service/demo.js';
import { scaleLines } from '../../bench/scale-data.js';
import { MUTATIONS, base, player } from '../fixtures/match-mutations.js';
import { smallLines } from '../fixtures/small-dataset.js';

describe('the dataset schema', () => {
  it('takes the demo, the small dataset and generated data of every shape', () => {
    const lines = [...demoLines(), ...smallLines(), ...scaleLines(100, 11, 'long-tail'), ...scaleLines(100, 11, 'corrections')];
    expect(lines.filter((l) => 'reason' in parseDatasetLine(l))).toEqual([]);
  });

  it('answers every mutation of a plain match with a record or a reason, and takes a key it does not know without it', () => {
    const answers = MUTATIONS.map((m) => parseDatasetLine(JSON.stringify({ ...base, ...m })));
    expect(answers.every((a) => 'record' in a || a.reason.length > 0)).toBe(true);
    expect(answers.filter((a) => 'reason' in a).length).toBeGreaterThan(30);
    const extra = parseDatasetLine(JSON.stringify({ ...base, extra: 1 }));
    expect('record' in extra && !('extra' in extra.record)).toBe(true);
  });

  it('answers compiled as the schema itself does: the same record, or the same issues', () => {
    // parseDatasetLine checks lines with the schema as z.compile makes it; strict, a part the
    // compiler cannot model throws here instead of leaving the whole schema to the slower runtime.
    const compiled = z.compile(DatasetRecordSchema, { strict: true });
    const answer = (r: ReturnType<typeof DatasetRecordSchema.safeParse>) => (r.success ? { record: r.data } : { issues: r.error.issues });
    const lines = [...demoLines(), ...smallLines(), ...scaleLines(20, 11, 'long-tail')].map((l) => JSON.parse(l) as unknown);
    const mutated = MUTATIONS.flatMap((a) => MUTATIONS.map((b) => ({ ...base, ...a, ...b })));
    for (const input of [...lines, ...mutated]) expect(answer(compiled.safeParse(input))).toEqual(answer(DatasetRecordSchema.safeParse(input)));
  });

  it('refuses a stat value that is not a number of magnitude at most 1e12 and a control character in any text field, saying where', () => {
    const refusals: [Record<string, unknown>, string][] = [
      [player({ stats: { kills: 0, deaths: 1e308 } }), 'players.0.stats.deaths: must be a number from -1e12 to 1e12'],
      [player({ stats: { deaths: -2e12 } }), 'players.0.stats.deaths: must be a number from -1e12 to 1e12'],
      [player({ stats: { deaths: '3' } }), 'players.0.stats.deaths: must be a number from -1e12 to 1e12'],
      [player({ stats: [1] }), 'players.0.stats: must be an object of stat names to numbers'],
      [player({ weapons: { Carbine: { kills: 1e13 } } }), 'players.0.weapons.Carbine.kills: must be a number from -1e12 to 1e12'],
      [player({ weapons: { Carbine: 3 } }), 'players.0.weapons.Carbine: must be an object of stat names to numbers'],
      [player({ weapons: { ' Carbine': { kills: 1 } } }), 'players.0.weapons. Carbine: must not start or end with a space'],
      [player({ stats: { ['k'.repeat(65)]: 1 } }), `players.0.stats.${'k'.repeat(65)}: must be a name of 1 to 64 characters`],
      [{ map: 'de\u0000dust' }, 'map: contains control characters'],
      [{ mode: 'a\u0085b' }, 'mode: contains control characters'],
      [{ playlist: 'a\u007fb' }, 'playlist: contains control characters'],
      [player({ team: 'r\u0000' }), 'players.0.team: contains control characters'],
      [player({ hero: 'h\u0000' }), 'players.0.hero: contains control characters'],
      [player({ legend: 'l\u0000' }), 'players.0.legend: contains control characters'],
      [player({ stats: { 'k\u0000': 1 } }), 'players.0.stats."k\\u0000": contains control characters'],
      [player({ weapons: { 'C\u0000': { kills: 1 } } }), 'players.0.weapons."C\\u0000": contains control characters'],
    ];
    for (const [patch, reason] of refusals) expect(parseDatasetLine(JSON.stringify({ ...base, ...patch })), reason).toEqual({ reason });
    // A stat or weapon named __proto__ (which a map cannot hold: it was lost without a word) refuses its line.
    const proto = JSON.stringify({ ...base, ...player({ stats: { kills: 3 } }) }).replace('"kills":3', '"kills":3,"__proto__":5');
    expect(parseDatasetLine(proto)).toEqual({ reason: 'players.0.stats: __proto__ cannot be a name' });
    const protoWeapon = JSON.stringify({ ...base, ...player({ stats: { kills: 3 }, weapons: { Carbine: { kills: 3 } } }) }).replace('"Carbine"', '"__proto__"');
    expect(parseDatasetLine(protoWeapon)).toEqual({ reason: 'players.0.weapons: __proto__ cannot be a name' });
    // JSON reads 1e400 as Infinity (and writes it as null).
    const infinite = JSON.stringify({ ...base, ...player({ stats: { deaths: 1 } }) }).replace('"deaths":1', '"deaths":1e400');
    expect(parseDatasetLine(infinite)).toEqual({ reason: 'players.0.stats.deaths: must be a number from -1e12 to 1e12' });
    // The edges themselves are taken, and a stat named like an object's own property is a stat.
    const edges = parseDatasetLine(JSON.stringify({ ...base, ...player({ stats: { kills: 1e12, deaths: -1e12, constructor: 2 } }) }));
    expect('record' in edges && edges.record.type === 'match' && edges.record.players[0]?.stats).toEqual({ kills: 1e12, deaths: -1e12, constructor: 2 });
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
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, avatarUrl: 'https://cdn.example/a\u0085.png' }))).toEqual({
      reason: 'avatarUrl: contains control characters',
    });
    expect(parseDatasetLine(JSON.stringify({ ...playerLine, vanity: 'no\u0000va' }))).toMatchObject({ reason: expect.stringMatching(/^vanity:/) as unknown });
  });
});
