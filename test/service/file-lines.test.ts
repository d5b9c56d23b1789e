import { createReadStream, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { describe, expect, it } from 'vitest';

import { MAX_LINE_BYTES, closeSnapshot, fileLineChunks, openSnapshot, type LongLine } from '../../src/service/file-lines.js';

/** The chunks of the file at `path` as it is now (fileLineChunks of a snapshot of it). */
async function* chunksOf(path: string, size: number, keep?: (index: number) => boolean) {
  const snapshot = openSnapshot(path);
  try {
    yield* fileLineChunks(snapshot, size, keep);
  } finally {
    closeSnapshot(snapshot);
  }
}

async function readlineLines(path: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity })) lines.push(line);
  return lines;
}

describe('reading a dataset file a chunk at a time', () => {
  it('cuts the lines readline cuts, whatever the chunk size, characters of several bytes and line ends included', async () => {
    const text = '\uFEFF{"a":"Ünïcødé ✓ 𝄞"}\r\nplain\rlone cr\n\n\r\n𝄞𝄞𝄞\r\r\nlast line, no end';
    const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
    writeFileSync(path, text);
    const expected = await readlineLines(path);
    for (const size of [1, 2, 3, 7, 64, 1 << 20]) {
      const lines: (string | LongLine)[] = [];
      let bytes = 0;
      for await (const chunk of chunksOf(path, size)) {
        lines.push(...chunk.lines);
        bytes = chunk.bytesRead;
      }
      expect(lines, `chunks of ${size} bytes`).toEqual(expected);
      expect(bytes).toBe(Buffer.byteLength(text));
    }
  });

  it('gives readers sharing a file only their own chunks, which put back in order are every line once, and says which chunk holds the first line', async () => {
    const text = 'a\r\nb\rc\n\nd\r\re\n𝄞 f\n' + 'x'.repeat(50) + '\r\ng\r';
    const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
    writeFileSync(path, text);
    const expected = await readlineLines(path);
    // Also a file that starts with a line across many chunks, and one without a line end.
    const long = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'long.jsonl');
    writeFileSync(long, 'y'.repeat(40) + '\r\r\nz\nno end');
    const single = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'single.jsonl');
    writeFileSync(single, 'w'.repeat(30));
    for (const [file, lines] of [
      [path, expected],
      [long, await readlineLines(long)],
      [single, await readlineLines(single)],
    ] as const)
      for (const size of [1, 2, 3, 5, 16, 64]) {
        for (const readers of [1, 2, 3]) {
          const chunks: { index: number; lines: (string | LongLine)[]; first: boolean }[] = [];
          for (let reader = 0; reader < readers; reader++)
            for await (const chunk of chunksOf(file, size, (index) => index % readers === reader)) {
              expect(chunk.index % readers).toBe(reader);
              expect(chunk.lines).toHaveLength(chunk.count);
              chunks.push(chunk);
            }
          chunks.sort((a, b) => a.index - b.index);
          const at = `${readers} readers, chunks of ${size} bytes`;
          // Every chunk, the one after the last included, once.
          expect(
            chunks.map((c) => c.index),
            at,
          ).toEqual(Array.from({ length: Math.ceil(Buffer.byteLength(readFileSync(file)) / size) + 1 }, (_, i) => i));
          expect(
            chunks.flatMap((c) => c.lines),
            at,
          ).toEqual(lines);
          // The chunks before the first line's say they are first; so does the one with it, not those after.
          const withFirst = chunks.findIndex((c) => c.lines.length > 0);
          expect(
            chunks.map((c) => c.first),
            at,
          ).toEqual(chunks.map((_, i) => i <= withFirst));
        }
      }
  });

  it('skips a line longer than MAX_LINE_BYTES without decoding it, in its place a LongLine with its length, and numbers the lines after it as readline does', async () => {
    const long = (c: string, extra: number) => c.repeat(MAX_LINE_BYTES + extra);
    // Long lines ended by \r\n, a lone \r, \n and the end of the file; one of exactly the most a line may have (kept); short lines between.
    const text = `{"a":1}\n${long('x', 7)}\r\nb\r${long('y', 1)}\rc\n${long('é', -MAX_LINE_BYTES / 2)}\nd\r\n${long('z', 0)}\n\ne\n${long('w', 3)}`;
    const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
    writeFileSync(path, text);
    const expected = (await readlineLines(path)).map((line) => (Buffer.byteLength(line) > MAX_LINE_BYTES ? { longLine: Buffer.byteLength(line) } : line));
    expect(expected.filter((l) => typeof l !== 'string')).toEqual([
      { longLine: MAX_LINE_BYTES + 7 },
      { longLine: MAX_LINE_BYTES + 1 },
      { longLine: MAX_LINE_BYTES + 3 },
    ]);
    expect(expected).toContain('z'.repeat(MAX_LINE_BYTES));
    for (const size of [1000, 65_536, MAX_LINE_BYTES - 1, MAX_LINE_BYTES + 5, 3 << 20]) {
      const lines: (string | LongLine)[] = [];
      for await (const chunk of chunksOf(path, size)) lines.push(...chunk.lines);
      expect(lines, `chunks of ${size} bytes`).toEqual(expected);
      // Readers that share the file, each reading only its own chunks, have every line between them.
      for (const readers of [2, 3]) {
        const chunks: { index: number; lines: (string | LongLine)[] }[] = [];
        for (let reader = 0; reader < readers; reader++)
          for await (const chunk of chunksOf(path, size, (index) => index % readers === reader)) chunks.push(chunk);
        expect(
          chunks.sort((a, b) => a.index - b.index).flatMap((c) => c.lines),
          `${readers} readers, chunks of ${size} bytes`,
        ).toEqual(expected);
      }
    }
  });
});
