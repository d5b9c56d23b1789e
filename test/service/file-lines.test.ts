import { createReadStream, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

import { describe, expect, it } from 'vitest';

import { fileLineChunks } from '../../src/service/file-lines.js';

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
      const lines: string[] = [];
      let bytes = 0;
      for await (const chunk of fileLineChunks(path, size)) {
        lines.push(...chunk.lines);
        bytes = chunk.bytesRead;
      }
      expect(lines, `chunks of ${size} bytes`).toEqual(expected);
      expect(bytes).toBe(Buffer.byteLength(text));
    }
  });

  it('numbers the lines of the chunks it only counts as it numbers those it decodes, so readers sharing a file see each line once, at its place', async () => {
    const text = 'a\r\nb\rc\n\nd\r\re\n𝄞 f\n' + 'x'.repeat(50) + '\r\ng\r';
    const path = join(mkdtempSync(join(tmpdir(), 'file-lines-')), 'data.jsonl');
    writeFileSync(path, text);
    const expected = await readlineLines(path);
    for (const size of [1, 2, 3, 5, 16, 64]) {
      for (const readers of [2, 3]) {
        const seen: [number, string][] = [];
        for (let reader = 0; reader < readers; reader++) {
          let n = 0;
          for await (const chunk of fileLineChunks(path, size, (index) => index % readers === reader)) {
            if (chunk.index % readers === reader) {
              expect(chunk.lines).toHaveLength(chunk.count);
              chunk.lines.forEach((line, i) => seen.push([n + i, line]));
            } else expect(chunk.lines).toEqual([]);
            n += chunk.count;
          }
          expect(n, `${readers} readers, chunks of ${size} bytes`).toBe(expected.length);
        }
        expect(seen.sort((a, b) => a[0] - b[0])).toEqual(expected.map((line, i) => [i, line]));
      }
    }
  });
});
