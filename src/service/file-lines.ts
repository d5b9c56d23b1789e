// A dataset file's lines, a chunk at a time. A million-match file is 2 GB: readline (or decoding
// large chunks and cutting the text) cost about 12 µs a line here, as much as parsing it; cutting
// the bytes at each \n and decoding line by line costs about 3. Lines end as readline ends them
// (crlfDelay Infinity): at \n, \r\n or a lone \r.
import { createReadStream } from 'node:fs';

/** Bytes read a chunk. */
export const CHUNK_BYTES = 4 << 20;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** A chunk's whole lines (those that end in it), with its place in the file. */
export interface LineChunk {
  /** The chunk's number, from 0. */
  index: number;
  /** Its lines, decoded; empty when `keep` said no (they are only counted). */
  lines: string[];
  /** How many lines end in this chunk. */
  count: number;
  /** Bytes read so far, this chunk's included. */
  bytesRead: number;
}

/**
 * The file's lines in order, a chunk at a time. `keep(index)` false: that chunk's lines are
 * counted, not decoded (a parse worker reads the chunks the others parse only to number lines).
 */
export async function* fileLineChunks(path: string, chunkBytes = CHUNK_BYTES, keep: (index: number) => boolean = () => true): AsyncGenerator<LineChunk> {
  let rest: Buffer | undefined;
  let bytesRead = 0;
  let index = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) {
    const buf = chunk as Buffer;
    bytesRead += buf.length;
    const kept = keep(index);
    const lines: string[] = [];
    let count = 0;
    let start = 0;
    // A \n byte is never part of a longer UTF-8 sequence: cutting there never splits a character.
    // The line that straddles two chunks is joined on its own (copying whole chunks to join it cost
    // a memory copy of the file).
    if (rest && rest.length > 0) {
      const nl = buf.indexOf(NEWLINE);
      if (nl === -1) {
        rest = Buffer.concat([rest, buf]);
        yield { index: index++, lines, count, bytesRead };
        continue;
      }
      const line = Buffer.concat([rest, buf.subarray(0, nl)]);
      count += kept ? cut(line.toString('utf8'), lines) : countIn(line);
      start = nl + 1;
    }
    if (kept)
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        count += cut(buf.toString('utf8', start, nl), lines);
        start = nl + 1;
      }
    else {
      // Counted as cut would make them: a \r inside a line (not right before its \n) ends one more.
      let r = buf.indexOf(RETURN, start);
      for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
        count++;
        for (; r !== -1 && r < nl; r = buf.indexOf(RETURN, r + 1)) if (r !== nl - 1) count++;
        start = nl + 1;
      }
    }
    rest = buf.subarray(start);
    yield { index: index++, lines, count, bytesRead };
  }
  const lines: string[] = [];
  const count = rest && rest.length > 0 ? (keep(index) ? cut(rest.toString('utf8'), lines) : countIn(rest)) : 0;
  yield { index, lines, count, bytesRead };
}

/** A line up to a \n: a \r before it ends it, one inside it ends a line of its own. Returns the lines added. */
function cut(line: string, into: string[]): number {
  if (!line.includes('\r')) {
    into.push(line);
    return 1;
  }
  const parts = (line.endsWith('\r') ? line.slice(0, -1) : line).split('\r');
  for (const part of parts) into.push(part);
  return parts.length;
}

/** The lines `cut` would make of one line's bytes, without decoding them. */
function countIn(line: Buffer): number {
  let count = 1;
  for (let r = line.indexOf(RETURN); r !== -1; r = line.indexOf(RETURN, r + 1)) if (r !== line.length - 1) count++;
  return count;
}
