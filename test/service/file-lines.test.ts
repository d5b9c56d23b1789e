import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  MAX_LINE_BYTES,
  closeSnapshot,
  exhaust,
  fileLineChunks,
  openSnapshot,
  sharedCounter,
  type LineChunk,
  type LongLine,
} from '../../src/service/file-lines.js';

/**
 * The chunks of a file holding `text`, read `size` bytes at a time by `readers` readers sharing a
 * counter (each its own share), in order. The readers take turns unevenly, reader r asking for r + 1
 * chunks a turn, as workers going at different speeds would.
 */
async function chunksOf(text: string, size: number, readers = 1): Promise<LineChunk[]> {
  const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
  writeFileSync(path, text);
  const snapshot = openSnapshot(path);
  const chunks: LineChunk[] = [];
  try {
    const counter = sharedCounter();
    const each = Array.from({ length: readers }, () => ({ chunks: fileLineChunks(snapshot, size, counter), taken: [] as number[], done: false }));
    while (each.some((r) => !r.done))
      for (const [i, reader] of each.entries())
        for (let turn = 0; turn <= i && !reader.done; turn++) {
          const next = await reader.chunks.next();
          if (next.done) reader.done = true;
          else {
            reader.taken.push(next.value.index);
            chunks.push(next.value);
          }
        }
    // Each reader's chunks come in the file's order.
    for (const reader of each) expect(reader.taken).toEqual([...reader.taken].sort((a, b) => a - b));
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

  it('gives readers sharing a counter each chunk once, in order, which put back in order are every chunk and every line once, the first line in chunk 0', async () => {
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

  it('stops every reader sharing a counter at its next chunk once the counter is exhausted (an import whose thread failed)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
    writeFileSync(path, Array.from({ length: 100 }, (_, i) => `{"line":${i}}`).join('\n'));
    const snapshot = openSnapshot(path);
    try {
      const counter = sharedCounter();
      const [a, b] = [fileLineChunks(snapshot, 64, counter), fileLineChunks(snapshot, 64, counter)];
      expect((await a.next()).value).toMatchObject({ index: 0 });
      expect((await b.next()).value).toMatchObject({ index: 1 });
      exhaust(counter);
      expect((await a.next()).done).toBe(true);
      expect((await b.next()).done).toBe(true);
    } finally {
      closeSnapshot(snapshot);
    }
  });
});
