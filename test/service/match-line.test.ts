// A match line read from its bytes (MatchLineReader) must give the writer what the line parsed and
// prepared gives it (parseDatasetLine, prepareMatch): the same values, keys and totals, and rows
// (in JSONB) that SQLite reads as the same JSON; or leave the line to them.
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { PLATFORM_SLUGS, TITLE_SLUGS } from '../../src/catalog/index.js';
import { StatNames, parseDatasetLine } from '../../src/service/dataset.js';
import { demoLines } from '../../src/service/demo.js';
import { MatchLineReader } from '../../src/service/match-line.js';
import { prepareMatch, textDigest } from '../../src/service/prepared.js';
import { TotalsDeltas } from '../../src/service/totals.js';
import { scaleLines } from '../../bench/scale-data.js';
import { MUTATIONS, base, player } from '../fixtures/match-mutations.js';
import { smallLines } from '../fixtures/small-dataset.js';

const reader = new MatchLineReader();
const sqlite = new Database(':memory:');
/**
 * JSON (text, or JSONB checked whole) as SQLite writes it back: the rows are stored from what it
 * reads of them. JSONB must be byte for byte what SQLite makes of that text: a row's stats and
 * weapons are stored as they come.
 */
const asSqliteReadsIt = (json: string | Uint8Array): string => {
  const text = sqlite.prepare('SELECT json(?)').pluck().get(json) as string;
  if (typeof json !== 'string') {
    expect(sqlite.prepare('SELECT json_valid(?, 8)').pluck().get(json)).toBe(1);
    expect(Buffer.from(json).equals(sqlite.prepare('SELECT jsonb(?)').pluck().get(text) as Buffer)).toBe(true);
  }
  return text;
};

/** What the writer is given for a line read from its bytes: undefined when the reader leaves it. */
function readBytes(line: string) {
  const bytes = Buffer.from(line);
  if (!reader.read(bytes)) return undefined;
  const deltas = new TotalsDeltas();
  const implicit: string[] = [];
  reader.addTotals(deltas, implicit);
  const out = Buffer.alloc(MatchLineReader.textRoom(bytes.length));
  const keysEnd = reader.writeKeys(out, 0);
  const rowsEnd = reader.writeRows(out, keysEnd);
  const { title, id, platform, startedAt, durationSeconds, map, mode, playlist, queue, season } = reader;
  const keys = out.toString('utf8', 0, keysEnd);
  const rows = asSqliteReadsIt(out.subarray(keysEnd, rowsEnd));
  return {
    prepared: [title, id, platform, startedAt, durationSeconds, map, mode, playlist, queue, season, keys, textDigest(bytes), rows, implicit],
    totals: deltas.take(),
    stats: reader.statsRecord(),
  };
}

/** The same, the line parsed (and checked) first: undefined when it is no match to take. */
function parseText(line: string) {
  const parsed = parseDatasetLine(line);
  if (!('record' in parsed) || parsed.record.type !== 'match') return undefined;
  const deltas = new TotalsDeltas();
  const m = parsed.record;
  const prepared = prepareMatch(m, textDigest(line), deltas);
  prepared[12] = asSqliteReadsIt(prepared[12]);
  return {
    prepared,
    totals: deltas.take(),
    stats: { title: m.title, players: m.players.map((p) => ({ stats: p.stats })) },
  };
}

/** Reads `line` both ways: the reader either leaves it or gives what parsing gives. */
function agree(line: string): 'bytes' | 'parsed' {
  const read = readBytes(line);
  if (!read) return 'parsed';
  const parsed = parseText(line);
  expect(parsed, line.slice(0, 300)).toBeDefined();
  expect(read.prepared, line.slice(0, 300)).toEqual(parsed?.prepared);
  expect(read.totals).toEqual(parsed?.totals);
  expect(read.stats).toEqual(parsed?.stats);
  return 'bytes';
}

const plain = JSON.stringify({ ...base, players: [{ ...base.players[0], id: 'Ash' }, base.players[1]] });

describe('reading a match line from its bytes', () => {
  it('gives the writer what the parsed record gives it, for every mutation the schema is tested with', () => {
    const taken = MUTATIONS.map((m) => agree(JSON.stringify({ ...base, ...m })));
    expect(taken[0]).toBe('bytes');
    expect(taken.filter((t) => t === 'bytes').length).toBeGreaterThan(8);
    expect(taken.filter((t) => t === 'parsed').length).toBeGreaterThan(40);
  });

  it('leaves to the parser every line it is not sure of, and reads the rest as parsing does', () => {
    const cases: [string, 'bytes' | 'parsed'][] = [
      [plain, 'bytes'],
      // Whitespace between tokens: read, the rows written without it (as JSON.stringify writes them).
      [JSON.stringify(JSON.parse(plain), null, 2), 'bytes'],
      [plain.replaceAll('":', '": ').replaceAll(',"', ', "'), 'bytes'],
      [` ${plain}\t`, 'bytes'],
      // Keys in another order.
      [
        JSON.stringify({
          players: base.players,
          season: 2,
          queue: 'ranked',
          playlist: 'x',
          mode: 'y',
          map: 'z',
          durationSeconds: 5,
          startedAt: base.startedAt,
          id: 'm',
          platform: 'pc_store_a',
          title: 'title_a',
          type: 'match',
        }),
        'bytes',
      ],
      // A key twice, at each depth: JSON.parse keeps the last.
      [plain.replace('"map":"Harbor"', '"map":"Harbor","map":"Port"'), 'parsed'],
      [plain.replace('"team":"red"', '"team":"red","team":"blue"'), 'parsed'],
      [plain.replace('"kills":3', '"kills":3,"kills":4'), 'parsed'],
      [plain.replace('"Carbine":{"kills":2}', '"Carbine":{"kills":2},"Carbine":{"kills":5}'), 'parsed'],
      [plain.replace('"Carbine":{"kills":2}', '"Carbine":{"kills":2,"kills":7}'), 'parsed'],
      // Escapes, and characters past ASCII.
      [plain.replace('"Ash"', '"\\u0041sh"'), 'parsed'],
      [plain.replace('"Harbor"', '"Har\\"bor"'), 'parsed'],
      [plain.replace('"Harbor"', '"Härbor"'), 'parsed'],
      [plain.replace('"Ash"', '"Åsh"'), 'parsed'],
      // Numbers JSON.stringify would write otherwise.
      [plain.replace('"kills":3', '"kills":3.0'), 'parsed'],
      [plain.replace('"kills":3', '"kills":3e0'), 'parsed'],
      [plain.replace('"kills":3', '"kills":-0'), 'parsed'],
      [plain.replace('"kills":3', '"kills":1E2'), 'parsed'],
      [plain.replace('"kills":3', '"kills":0.5'), 'bytes'],
      [plain.replace('"kills":3', '"kills":-2.25'), 'bytes'],
      [plain.replace('"kills":3', '"kills":1.5e-7'), 'bytes'],
      [plain.replace('"kills":3', '"kills":999999999999'), 'bytes'],
      [plain.replace('"kills":3', '"kills":1000000000001'), 'parsed'],
      [plain.replace('"durationSeconds":600', '"durationSeconds":600.0'), 'parsed'],
      [plain.replace('"durationSeconds":600', '"durationSeconds":0600'), 'parsed'],
      // Names an object puts first, whatever their place in the line.
      [plain.replace('"kills":3', '"kills":3,"7":1'), 'parsed'],
      [plain.replace('"Carbine"', '"12"'), 'parsed'],
      // Not JSON, or not a whole record.
      [`${plain}x`, 'parsed'],
      [plain.slice(0, -1), 'parsed'],
      [plain.replace('"season":2', '"season":2,'), 'parsed'],
      [plain.replace('"queue":"ranked"', '"queue":nul'), 'parsed'],
      ['{}', 'parsed'],
      ['{"type":"match"}', 'parsed'],
      [JSON.stringify({ type: 'player', title: 'title_a', platform: 'pc_store_a', id: 'x', handle: 'X' }), 'parsed'],
      // A capital in an id: the key is in lower case, the id as written.
      [plain.replace('"Ash"', '"ASH-Über"'), 'parsed'],
      [plain.replace('"Ash"', '"ASH_x"'), 'bytes'],
      [plain.replace('"weapons":{"Carbine":{"kills":2}}', '"weapons":{}'), 'bytes'],
      [plain.replace('"stats":{"kills":3}', '"stats":{}'), 'bytes'],
      [plain.replace('"map":"Harbor"', '"map":null'), 'bytes'],
      [plain.replace('"id":"m-1"', '"id":"m\\t1"'), 'parsed'],
      [plain.replace('"Ash"', '"a..b"'), 'parsed'],
      [plain.replace('"Ash"', '"  "'), 'parsed'],
    ];
    // Starts: read from their digits where they are plain, each agreeing with Date.parse and the schema.
    const start = (at: string) => plain.replace('"2026-11-01T18:00:00Z"', `"${at}"`);
    for (const at of [
      '2024-02-29T00:00:00Z',
      '2000-02-29T12:30:45Z',
      '2026-12-31T23:59:59Z',
      '2026-11-01T18:00:00.5Z',
      '2026-11-01T18:00:00.05Z',
      '2026-11-01T18:00:00.123Z',
      '0100-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
    ])
      cases.push([start(at), 'bytes']);
    for (const at of [
      '2023-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-11-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-11-00T00:00:00Z',
      '2026-11-01T24:00:00Z',
      '2026-11-01T12:60:00Z',
      '2026-11-01T12:00:60Z',
      '2026-11-01T18:00:00.1234Z',
      '2026-11-01T18:00:00.Z',
      '2026-11-01T18:00:00z',
      '2026-11-01 18:00:00Z',
      '2026-11-01T18:00:00+00:00',
      '0099-12-31T00:00:00Z',
      '2026-1-01T18:00:00Z',
      '+02026-11-01T18:00:00Z',
    ])
      cases.push([start(at), 'parsed']);
    for (const [line, way] of cases) expect(agree(line), line.slice(0, 200)).toBe(way);
  });

  it('gives what parsing gives for any record and any spacing (fast-check)', () => {
    const text = (chars: string, max: number) => fc.string({ unit: fc.constantFrom(...chars), minLength: 1, maxLength: max });
    // Mostly what a line may hold (so that many are read), now and then what it may not.
    const mostly = <T, U>(good: fc.Arbitrary<T>, odd: fc.Arbitrary<U>) => fc.oneof({ arbitrary: good, weight: 12 }, { arbitrary: odd, weight: 1 });
    const name = mostly(fc.constantFrom('kills', 'deaths', 'score', 'x y', 'K'), fc.constantFrom('__proto__', '0', '12', '', 'é'));
    const value = mostly(
      fc.oneof(
        fc.integer({ min: -2_000, max: 2_000 }),
        fc.constantFrom(0.5, 1e12, -1e12, 1.5e-7, 123456789012, 0.1 + 0.2),
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      ),
      fc.oneof(fc.constantFrom(-0, 1e12 + 1, 1e300), fc.double({ noNaN: true, noDefaultInfinity: true })),
    );
    const numbers = fc.dictionary(name, value, { maxKeys: 4 });
    const label = fc.option(mostly(fc.oneof(fc.constantFrom('red', 'Harbor', 'x y'), text('aZ-', 4)), fc.constantFrom(' x', 'x ', 'é', '', 'a\u0000')), {
      nil: undefined,
    });
    const playerRecord = fc.record(
      {
        id: mostly(fc.oneof(fc.constantFrom('Ash', 'ash', 'Bo', 'bo'), text('aAzZ09._', 5)), fc.constantFrom('a..b', 'x/y', ' ', 'Åsh')),
        platform: mostly(fc.constantFrom('pc_store_a', 'console_a', 'console_b'), fc.constantFrom(...PLATFORM_SLUGS)),
        team: label,
        result: fc.option(mostly(fc.constantFrom('win', 'loss', 'draw', null), fc.constant('won')), { nil: undefined }),
        hero: label,
        legend: fc.option(fc.constant(null), { nil: undefined }),
        stats: numbers,
        weapons: fc.option(fc.dictionary(mostly(fc.constantFrom('Carbine', 'SMG'), fc.constantFrom(' Bow', '7')), numbers, { maxKeys: 2 }), { nil: undefined }),
      },
      { requiredKeys: ['id', 'platform', 'stats'] },
    );
    const record = fc.record({
      type: mostly(fc.constant('match'), fc.constant('player')),
      title: mostly(fc.constant('title_a'), fc.constantFrom(...TITLE_SLUGS)),
      platform: mostly(fc.constant('pc_store_a'), fc.constantFrom(...PLATFORM_SLUGS)),
      id: mostly(text('m-1x', 4), fc.constantFrom('M 2', '', 'a/b')),
      startedAt: mostly(
        fc.constantFrom('2026-11-01T18:00:00Z', '2026-11-01T18:00:00.5Z'),
        fc.constantFrom('2026-02-30T00:00:00Z', '2026-11-01T18:00:00+01:00'),
      ),
      durationSeconds: mostly(fc.integer({ min: 0, max: 86_400 }), fc.constantFrom(-1, 86_401, 1.5)),
      map: label,
      queue: fc.option(mostly(fc.constantFrom('ranked', 'social', null), fc.constant('casual')), { nil: undefined }),
      season: fc.option(mostly(fc.integer({ min: 1, max: 10_000 }), fc.constantFrom(0, null, 2.5)), { nil: undefined }),
      players: fc.array(playerRecord, { minLength: 1, maxLength: 4 }),
    });
    let read = 0;
    fc.assert(
      fc.property(record, fc.constantFrom(0, 1, '\t'), (r, space) => {
        if (agree(JSON.stringify(r, null, space)) === 'bytes') read++;
      }),
      { numRuns: 1_000 },
    );
    // Enough of them valid and plain to be read, or the property says little.
    expect(read).toBeGreaterThan(20);
  });

  it('reads generated, demo and small-dataset lines as parsing does, most of them from their bytes', () => {
    const lines = [...demoLines(), ...smallLines(), ...scaleLines(300)].filter((l) => l.includes('"type":"match"'));
    const taken = lines.map(agree);
    expect(taken.filter((t) => t === 'bytes').length).toBeGreaterThan(lines.length * 0.9);
  });

  it('lists a line’s stat names for StatNames as the parsed record does', () => {
    const line = JSON.stringify({ ...base, ...player({ stats: { kills: 1, assists: 2 } }) });
    expect(reader.read(Buffer.from(line))).toBe(true);
    const names = new StatNames();
    expect(names.knowsNames(reader.title, reader.statNames, reader.statCount)).toBe(false);
    names.add('title_a', ['kills', 'assists']);
    expect(names.knowsNames(reader.title, reader.statNames, reader.statCount)).toBe(true);
    names.add('title_a', ['deaths']);
    expect(reader.read(Buffer.from(line.replace('"assists"', '"headshots"')))).toBe(true);
    expect(names.knowsNames(reader.title, reader.statNames, reader.statCount)).toBe(false);
  });
});
