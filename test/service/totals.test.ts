import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { TotalsDeltas, storedValues, type DeltasExport } from '../../src/service/totals.js';

describe('totals deltas', () => {
  it("make room in a player's sums for their own title's stat names only", () => {
    const deltas = new TotalsDeltas();
    const row = (stats: Record<string, number>) => ({ result: 'win', duration_s: 60, stats });
    // A title with many names, then a player of another title with one.
    deltas.add('title_a', 'pc_store_a', 'a', row(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`s${i}`, i]))), 1);
    deltas.add('title_b', 'pc_store_b', 'b', row({ kills: 2 }), 1);
    deltas.add('title_a', 'pc_store_a', 'a2', row({ s199: 5 }), 1);
    const x = deltas.take();
    const sizes = Array.from(x.offsets.subarray(1), (end, i) => end - (x.offsets[i] ?? 0));
    expect(x.groups.map((g) => g.players)).toEqual([['a', 'a2'], ['b']]);
    // Four counts, then a sum and a count a slot up to the player's highest: title_b's kills is its slot 0.
    expect(sizes).toEqual([4 + 400, 4 + 400, 4 + 2]);
    // Taken in by another, and written out, the sums are by name.
    const writer = new TotalsDeltas();
    writer.add('title_b', 'pc_store_b', 'b', row({ deaths: 1 }), 1);
    const written = new Map<string, unknown>();
    writer.drain((title, platform, player, merge) => written.set(`${title} ${player}`, JSON.parse(merge(undefined) ?? 'null')), [x]);
    expect(written.get('title_b b')).toEqual({ matchesPlayed: 2, wins: 2, losses: 0, timePlayed: 120, sums: { deaths: [1, 1], kills: [2, 1] } });
    expect(written.get('title_a a2')).toEqual({ matchesPlayed: 1, wins: 1, losses: 0, timePlayed: 60, sums: { s199: [5, 1] } });
    expect(Object.keys((written.get('title_a a') as { sums: object }).sums)).toHaveLength(200);
  });

  it('give a player the same values from memory as from the totals they write (a bulk load ranks from memory)', () => {
    const stat = fc.constantFrom('kills', 'deaths', 'assists', 'damage', 'shotsFired', 'shotsHit', 'headshots', 'score');
    const row = fc.record({
      result: fc.constantFrom('win', 'loss', 'draw', null),
      duration_s: fc.integer({ min: 0, max: 86_400 }),
      stats: fc.dictionary(stat, fc.oneof(fc.integer({ min: -1e6, max: 1e12 }), fc.double({ min: -1e6, max: 1e6, noNaN: true }))),
    });
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom('p1', 'p2', 'p3'), row, fc.constantFrom(1 as const, -1 as const)), { maxLength: 30 }), (rows) => {
        const deltas = new TotalsDeltas();
        for (const [player, r, sign] of rows) deltas.add('title_a', 'pc_store_a', player, r, sign);
        deltas.drain((_title, _platform, _player, merge, values) => {
          const json = merge(undefined);
          if (json !== null) expect(values()).toEqual(storedValues(json));
        });
      }),
      // A stat given as -0 is 0 once its totals are written as JSON and read back.
      { numRuns: 300, examples: [[[['p1', { result: 'win', duration_s: 0, stats: { kills: -0 } }, 1]]]] },
    );
  });

  it("write a new player's totals as JSON.stringify writes them, whatever the stat names and numbers", () => {
    // Names with quotes, escapes and characters past ASCII, and names that are array indexes (an object puts those first).
    const name = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('kills', '0', '7', '10', '01', '4294967295', '"', '\\', '\u0001', 'é', '𝄞'));
    const value = fc.oneof(fc.integer({ min: -1e6, max: 1e12 }), fc.double({ noNaN: true }), fc.constantFrom(-0, 1e21, 5e-324, Number.MAX_VALUE));
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom('p1', 'p2'), fc.dictionary(name, value), fc.constantFrom('win', 'loss', null)), { maxLength: 12 }),
        (rows) => {
          const deltas = new TotalsDeltas();
          const expected = new Map<string, { matchesPlayed: number; wins: number; losses: number; timePlayed: number; sums: Map<string, [number, number]> }>();
          for (const [player, stats, result] of rows) {
            deltas.add('title_a', 'pc_store_a', player, { result, duration_s: 30, stats }, 1);
            const t = expected.get(player) ?? { matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: new Map<string, [number, number]>() };
            expected.set(player, t);
            t.matchesPlayed++;
            if (result === 'win') t.wins++;
            if (result === 'loss') t.losses++;
            t.timePlayed += 30;
            for (const [k, v] of Object.entries(stats)) {
              const [sum, n] = t.sums.get(k) ?? [0, 0];
              t.sums.set(k, [sum + v, n + 1]);
            }
          }
          const written = new Map<string, string | null>();
          deltas.drain((_title, _platform, player, merge) => written.set(player, merge(undefined)));
          for (const [player, t] of expected) {
            const sums = Object.fromEntries([...t.sums].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
            expect(written.get(player)).toBe(
              JSON.stringify({ matchesPlayed: t.matchesPlayed, wins: t.wins, losses: t.losses, timePlayed: t.timePlayed, sums }),
            );
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('sum a player across exports as one TotalsDeltas would, each player once and in key order', () => {
    const row = fc.record({
      result: fc.constantFrom('win', 'loss', null),
      duration_s: fc.integer({ min: 0, max: 3_600 }),
      stats: fc.dictionary(fc.constantFrom('kills', 'deaths', 'score', 'é', 'Z'), fc.integer({ min: -100, max: 100 })),
    });
    const line = fc.tuple(
      fc.nat({ max: 2 }),
      fc.constantFrom('title_a', 'title_b'),
      fc.constantFrom('pc_store_a', 'console_x'),
      fc.constantFrom('p1', 'p10', 'p2', 'P2', 'ä', 'zz'),
      row,
      fc.constantFrom(1 as const, -1 as const),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 40 }), (lines) => {
        // Two parse workers' deltas and the writer's own, against one that took every row.
        const parts = [new TotalsDeltas(), new TotalsDeltas(), new TotalsDeltas()];
        const whole = new TotalsDeltas();
        for (const [part, title, platform, player, r, sign] of lines) {
          parts[part]?.add(title, platform, player, r, sign);
          whole.add(title, platform, player, r, sign);
        }
        const drained = (deltas: TotalsDeltas, more: DeltasExport[]) => {
          const out: [string, string | null][] = [];
          deltas.drain(
            (title, platform, player, merge) =>
              out.push([`${title} ${platform} ${player}`, merge('{"matchesPlayed":1,"wins":0,"losses":0,"timePlayed":5,"sums":{"kills":[3,1]}}')]),
            more,
          );
          return out;
        };
        const [writer, ...workers] = parts as [TotalsDeltas, TotalsDeltas, TotalsDeltas];
        const merged = drained(
          writer,
          workers.map((w) => w.take()),
        );
        const expected = drained(whole, []);
        expect(merged).toEqual(expected);
        const keys = merged.map(([key]) => key.split(' '));
        for (let i = 1; i < keys.length; i++) {
          const [a, b] = [keys[i - 1] ?? [], keys[i] ?? []];
          const order = a[0] !== b[0] ? a[0]! < b[0]! : a[1] !== b[1] ? a[1]! < b[1]! : a[2]! < b[2]!;
          expect(order).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
