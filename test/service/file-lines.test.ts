import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  CHUNK_BYTES,
  MAX_LINE_BYTES,
  closeSnapshot,
  evenChunkBytes,
  fileLineChunks,
  openSnapshot,
  type LineChunk,
  type LongLine,
} from '../../src/service/file-lines.js';

/** The chunks of a file holding `text`, read `size` bytes at a time by `readers` readers (each its own share), in order. */
async function chunksOf(text: string, size: number, readers = 1): Promise<LineChunk[]> {
  const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
  writeFileSync(path, text);
  const snapshot = openSnapshot(path);
  const chunks: LineChunk[] = [];
  try {
    for (let reader = 0; reader < readers; reader++)
      for await (const chunk of fileLineChunks(snapshot, size, (index) => index % readers === reader)) {
        expect(chunk.index % readers).toBe(reader);
        chunks.push(chunk);
      }
  } finally {
    closeSnapshot(snapshot);
  }
  return chunks.sort((a, b) => a.index - b.index);
}

/** The lines JSON Lines sees in `text`: cut at each \n, a \r before it left out, none after a last \n; a long one by its length. */
const jsonLines = (text: string): (string | LongLine)[] =>
  (text === '' ? [] : text.replace(/\n$/, '').split('\n'))
    .map((line) => line.replace(/\r$/, ''))
    .map((line) => (Buffer.byteLength(line) > MAX_LINE_BYTES ? { longLine: Buffer.byteLength(line) } : line));

describe('reading a dataset file a chunk at a time', () => {
  it('cuts the lines at \\n whatever the chunk size, characters of several bytes, \\r\\n ends and a last line without an end included', async () => {
    const text = '\uFEFF{"a":"Ünïcødé ✓ 𝄞"}\r\nplain\rlone cr stays\n\n\r\n𝄞𝄞𝄞\r\r\nlast line, no end';
    expect(jsonLines(text)).toEqual(['\uFEFF{"a":"Ünïcødé ✓ 𝄞"}', 'plain\rlone cr stays', '', '', '𝄞𝄞𝄞\r', 'last line, no end']);
    for (const size of [1, 2, 3, 7, 64, 1 << 20])
      expect(
        (await chunksOf(text, size)).flatMap((c) => c.lines),
        `chunks of ${size} bytes`,
      ).toEqual(jsonLines(text));
    expect(await chunksOf('', 4)).toEqual([]);
  });

  it('gives readers sharing a file only their own chunks, which put back in order are every chunk and every line once, the first line in chunk 0', async () => {
    for (const text of ['a\r\nb\rc\n\nd\r\re\n𝄞 f\n' + 'x'.repeat(50) + '\r\ng\r', 'y'.repeat(40) + '\r\r\nz\nno end', 'w'.repeat(30), 'v\n'])
      for (const size of [1, 2, 3, 5, 16, 64])
        for (const readers of [1, 2, 3]) {
          const chunks = await chunksOf(text, size, readers);
          const at = `${JSON.stringify(text.slice(0, 8))}…, ${readers} readers, chunks of ${size} bytes`;
          expect(
            chunks.map((c) => c.index),
            at,
          ).toEqual(Array.from({ length: Math.ceil(Buffer.byteLength(text) / size) }, (_, i) => i));
          expect(
            chunks.flatMap((c) => c.lines),
            at,
          ).toEqual(jsonLines(text));
          expect(chunks[0]?.lines[0], at).toBe(jsonLines(text)[0]);
        }
  });

  it('cuts a file into as many chunks for each reader, of at most CHUNK_BYTES', () => {
    for (const size of [0, 1, 5, CHUNK_BYTES - 1, CHUNK_BYTES, 2 * CHUNK_BYTES + 1, 23_000_000, 230_000_000, 2_300_000_001])
      for (const readers of [1, 2, 3, 8]) {
        const bytes = evenChunkBytes(size, readers);
        const chunks = Math.ceil(size / bytes);
        const at = `${size} bytes, ${readers} readers`;
        expect(bytes, at).toBeLessThanOrEqual(CHUNK_BYTES);
        expect(bytes, at).toBeGreaterThan(0);
        // Each reader's share: chunks i, i + readers, …; the last chunk, shorter, ends one reader's round.
        if (size >= readers * CHUNK_BYTES) expect(chunks % readers, at).toBe(0);
        else expect(chunks, at).toBeLessThanOrEqual(readers);
      }
  });

  it('skips a line longer than MAX_LINE_BYTES without decoding it, in its place a LongLine with its length, and keeps the lines after it in place', async () => {
    const long = (c: string, extra: number) => c.repeat(MAX_LINE_BYTES + extra);
    // Long lines ended by \r\n, \n and the end of the file; one of exactly the most a line may have (kept), one with a \r more; short lines between.
    const text = `{"a":1}\n${long('x', 7)}\r\nb\r\n${long('y', 1)}\nc\n${long('é', -MAX_LINE_BYTES / 2)}\nd\r\n${long('z', 0)}\r\n\ne\n${long('w', 3)}`;
    const expected = jsonLines(text);
    expect(expected.filter((l) => typeof l !== 'string')).toEqual([
      { longLine: MAX_LINE_BYTES + 7 },
      { longLine: MAX_LINE_BYTES + 1 },
      { longLine: MAX_LINE_BYTES + 3 },
    ]);
    expect(expected).toContain('z'.repeat(MAX_LINE_BYTES));
    for (const size of [1000, 65_536, MAX_LINE_BYTES - 1, MAX_LINE_BYTES + 5, 3 << 20])
      for (const readers of [1, 2, 3])
        expect(
          (await chunksOf(text, size, readers)).flatMap((c) => c.lines),
          `${readers} readers, chunks of ${size} bytes`,
        ).toEqual(expected);
  });
});
