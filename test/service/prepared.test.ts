import { describe, expect, it } from 'vitest';

import { BatchTexts, textDigest } from '../../src/service/prepared.js';

const text = (v: Uint8Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('utf8');

describe('BatchTexts', () => {
  it('writes a batch’s texts as UTF-8 into one buffer, each a view of it, and hands the buffer over once', () => {
    const texts = new BatchTexts([], 64);
    const written = ['[["pc_store_a","ana"]]', '[["ünï","😀"]]', '', '[["\ud800"]]'];
    const views = written.map((t) => {
      expect(texts.reserve(Buffer.byteLength(t))).toBe(true);
      return texts.write(t);
    });
    // A lone surrogate becomes U+FFFD, as Buffer.from writes it.
    expect(views.map(text)).toEqual(written.map((t) => Buffer.from(t).toString('utf8')));
    const buffer = texts.take();
    expect(buffer).toBeInstanceOf(ArrayBuffer);
    expect(buffer?.byteLength).toBe(64);
    for (const v of views) expect(v.buffer).toBe(buffer);
    // Nothing written since: nothing to hand over.
    expect(texts.take()).toBeUndefined();
  });

  it('says when a batch is full, and makes a batch’s first text fit however long it is', () => {
    const texts = new BatchTexts([], 16);
    expect(texts.reserve(10)).toBe(true);
    texts.write('0123456789');
    expect(texts.reserve(7)).toBe(false);
    const first = texts.take();
    const long = 'x'.repeat(40);
    expect(texts.reserve(long.length)).toBe(true);
    const v = texts.write(long);
    expect(text(v)).toBe(long);
    expect(v.buffer).not.toBe(first);
    expect(v.buffer.byteLength).toBe(40);
  });

  it('packs later batches into the buffers given back, when they are large enough', () => {
    const spares: ArrayBuffer[] = [];
    const texts = new BatchTexts(spares, 32);
    texts.reserve(3);
    texts.write('abc');
    const sent = texts.take();
    expect(sent).toBeDefined();
    spares.push(sent as ArrayBuffer);
    texts.reserve(5);
    const v = texts.write('defgh');
    expect(v.buffer).toBe(sent);
    expect(spares).toEqual([]);
    texts.take();
    // Too small for the text: a new buffer.
    spares.push(new ArrayBuffer(4));
    texts.reserve(10);
    expect(texts.write('0123456789').buffer.byteLength).toBe(32);
  });
});

describe('textDigest', () => {
  it('fingerprints a line’s text and its UTF-8 bytes alike', () => {
    for (const line of ['{"type":"match"}', 'Ünïcødé 😀 line']) expect(textDigest(Buffer.from(line))).toBe(textDigest(line));
  });
});
