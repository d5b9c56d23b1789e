import { describe, expect, it } from 'vitest';

import { packTexts, type PreparedMatch } from '../../src/service/prepared.js';

const match = (keys: string, rows: string): PreparedMatch => ['title_a', 'm', 'pc_store_a', 0, 600, null, null, null, null, null, keys, 'digest', rows, []];

describe('packTexts', () => {
  it('puts every match’s keys and rows, as UTF-8, into one buffer of exactly their size, each a view of it', () => {
    const texts = ['[["pc_store_a","ana"]]', '[["x"]]', '[["pc_store_a","jöhn"]]', '[["ünï","😀"]]', '', '[["\ud800"]]'];
    const matches = [match(texts[0]!, texts[1]!), match(texts[2]!, texts[3]!), match(texts[4]!, texts[5]!)];
    const packed = packTexts(matches);
    const bytes = texts.map((t) => Buffer.from(t, 'utf8'));
    expect(packed.byteLength).toBe(bytes.reduce((n, b) => n + b.length, 0));
    const views = matches.flatMap((m) => [m[10], m[12]]);
    views.forEach((v, i) => {
      expect(v).toBeInstanceOf(Uint8Array);
      expect((v as Uint8Array).buffer).toBe(packed);
      // A lone surrogate becomes U+FFFD, as Buffer.from writes it.
      expect(Buffer.from(v as Uint8Array).equals(bytes[i]!)).toBe(true);
    });
    // A batch packed after a larger one reuses nothing of it.
    const small = [match('[]', '[1]')];
    const again = packTexts(small);
    expect(again.byteLength).toBe(5);
    expect(Buffer.from(small[0]![12] as Uint8Array).toString()).toBe('[1]');
    expect(Buffer.from(views[3] as Uint8Array).toString()).toBe(texts[3]);
  });
});
