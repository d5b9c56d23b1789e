import { describe, expect, it } from 'vitest';

import { packTexts, type PreparedMatch } from '../../src/service/prepared.js';

const match = (keys: string, rows: string): PreparedMatch => ['title_a', 'm', 'pc_store_a', 0, 600, null, null, null, null, null, keys, 'digest', rows, []];

describe('packTexts', () => {
  it('puts every match’s keys and rows, as UTF-8, into one buffer with a quarter more room than they take, each a view of it', () => {
    const texts = ['[["pc_store_a","ana"]]', '[["x"]]', '[["pc_store_a","jöhn"]]', '[["ünï","😀"]]', '', '[["\ud800"]]'];
    const matches = [match(texts[0]!, texts[1]!), match(texts[2]!, texts[3]!), match(texts[4]!, texts[5]!)];
    const packed = packTexts(matches);
    const bytes = texts.map((t) => Buffer.from(t, 'utf8'));
    const size = bytes.reduce((n, b) => n + b.length, 0);
    expect(packed.byteLength).toBe(size + (size >> 2));
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
    expect(again.byteLength).toBe(6);
    expect(Buffer.from(small[0]![12] as Uint8Array).toString()).toBe('[1]');
    expect(Buffer.from(views[3] as Uint8Array).toString()).toBe(texts[3]);
  });

  it('packs into a spare buffer given back when the texts fit in it, and into a new one when they do not', () => {
    const spare = new ArrayBuffer(64);
    const fits = [match('[["pc_store_a","ana"]]', '[["row"]]')];
    expect(packTexts(fits, spare)).toBe(spare);
    expect(Buffer.from(fits[0]![10] as Uint8Array).toString()).toBe('[["pc_store_a","ana"]]');
    expect(Buffer.from(fits[0]![12] as Uint8Array).toString()).toBe('[["row"]]');
    expect((fits[0]![12] as Uint8Array).buffer).toBe(spare);
    const large = [match('[]', `[${'1,'.repeat(40)}1]`)];
    const packed = packTexts(large, spare);
    expect(packed).not.toBe(spare);
    expect(Buffer.from(large[0]![12] as Uint8Array).toString()).toBe(`[${'1,'.repeat(40)}1]`);
  });
});
