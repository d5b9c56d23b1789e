import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { JsonbWriter, jsonbClose, jsonbHeader, jsonbOpen, JSONB_ARRAY, JSONB_TEXT } from '../../src/service/jsonb.js';

const db = new Database(':memory:');
const render = (b: Uint8Array) => db.prepare('SELECT json(?) AS json, json_valid(?, 8) AS valid').get(b, b) as { json: string; valid: number };
/** The JSONB SQLite itself makes of JSON text. */
const sqliteJsonb = (text: string) => db.prepare('SELECT jsonb(?)').pluck().get(text) as Buffer;

describe('JSONB written for SQLite', () => {
  it('is read back by SQLite as the text JSON.stringify writes, whatever the value (fast-check)', () => {
    const writer = new JsonbWriter();
    fc.assert(
      fc.property(fc.jsonValue({ stringUnit: 'binary', maxDepth: 4 }), (value) => {
        const written = writer.write(value);
        const { json, valid } = render(written);
        expect(valid).toBe(1);
        expect(json).toBe(JSON.stringify(value));
        // Byte for byte what SQLite makes of the text: a store holds the same bytes whichever way a row came.
        expect(Buffer.from(written).equals(sqliteJsonb(JSON.stringify(value)))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('writes strings with escapes, lone surrogates, numbers of every form, and sizes past each header length', () => {
    const writer = new JsonbWriter();
    const values: unknown[] = [
      [
        'tab\there',
        'quote"back\\slash',
        '\u0000\u001f\u007f\u0085',
        '\ud800 lone',
        '😀 é',
        'x'.repeat(11),
        'x'.repeat(12),
        'x'.repeat(255),
        'x'.repeat(256),
        'x'.repeat(70_000),
      ],
      [0, -0, 1, -1, 1.5, 1e21, 1e-7, 5e-324, -1e12, 2 ** 53, 123456789012345680000],
      { kills: 3, 'a b': { c: null }, '': [], nested: [[[]]], t: true, f: false, skipped: undefined },
      Array.from({ length: 3_000 }, (_, i) => ({ [`k${i}`]: i })),
    ];
    for (const value of values) {
      const written = writer.write(value);
      const { json, valid } = render(written);
      expect(valid).toBe(1);
      expect(json).toBe(JSON.stringify(value));
      expect(Buffer.from(written).equals(sqliteJsonb(JSON.stringify(value)))).toBe(true);
    }
  });

  it('opens a container and writes its header in the fewest bytes when it ends, moving its elements to fit', () => {
    for (const large of [false, true])
      for (const length of [0, 9, 10, 253, 254, 65_532, 65_533]) {
        const text = 'x'.repeat(length);
        const out = Buffer.alloc(length + 16);
        let i = jsonbOpen(out, 0, JSONB_ARRAY, large);
        i = jsonbHeader(out, i, JSONB_TEXT, text.length);
        i += out.write(text, i);
        const end = jsonbClose(out, 0, i);
        expect(out.subarray(0, end).equals(sqliteJsonb(JSON.stringify([text])))).toBe(true);
      }
  });
});
