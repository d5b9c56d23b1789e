import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { KeyTable } from '../../src/service/key-table.js';

describe('key table', () => {
  it('finds what a Map finds, through growth', () => {
    // Short keys from few characters: many share a hash's low bits, and a few whole hashes.
    const key = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', '\u0000', '😀'), maxLength: 6 });
    const op = fc.oneof(fc.record({ add: key }), fc.record({ get: key }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), (ops) => {
        const table = new KeyTable<number>();
        const map = new Map<string, number>();
        for (const [n, o] of ops.entries()) {
          if ('add' in o) {
            if (map.has(o.add)) continue;
            table.add(o.add, n);
            map.set(o.add, n);
          } else expect(table.get(o.get)).toBe(map.get(o.get));
          expect(table.size).toBe(map.size);
        }
        for (const [k, v] of map) expect(table.get(k)).toBe(v);
        expect([...table.values()]).toEqual([...map.values()]);
      }),
      { numRuns: 200 },
    );
  });

  it('keeps a hundred thousand keys findable, and none it was not given', () => {
    const table = new KeyTable<string>();
    for (let i = 0; i < 100_000; i++) table.add(`p${i}`, `v${i}`);
    expect(table.size).toBe(100_000);
    for (let i = 0; i < 100_000; i += 997) expect(table.get(`p${i}`)).toBe(`v${i}`);
    expect(table.get('p100000')).toBeUndefined();
    expect(table.get('')).toBeUndefined();
  });
});
