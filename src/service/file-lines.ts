// A dataset file's lines, a chunk at a time. A million-match file is 2 GB: readline (or decoding
// large chunks and cutting the text) cost about 12 µs a line here, as much as parsing it; cutting
// the bytes at each \n and decoding line by line costs about 3. Lines end as readline ends them
// (crlfDelay Infinity): at \n, \r\n or a lone \r.
import { createReadStream } from 'node:fs';

/** Bytes read a chunk. */
const CHUNK = 4 << 20;
const NEWLINE = 0x0a;

/** The file's lines in order, in arrays of whole lines, each with the bytes read so far. */
export async function* fileLineChunks(path: string, chunkBytes = CHUNK): AsyncGenerator<{ lines: string[]; bytesRead: number }> {
  let rest: Buffer | undefined;
  let bytesRead = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes })) {
    const buf = chunk as Buffer;
    bytesRead += buf.length;
    const lines: string[] = [];
    let start = 0;
    // A \n byte is never part of a longer UTF-8 sequence: cutting there never splits a character.
    // The line that straddles two chunks is joined on its own (copying whole chunks to join it cost
    // a memory copy of the file).
    if (rest && rest.length > 0) {
      const nl = buf.indexOf(NEWLINE);
      if (nl === -1) {
        rest = Buffer.concat([rest, buf]);
        yield { lines, bytesRead };
        continue;
      }
      cut(Buffer.concat([rest, buf.subarray(0, nl)]).toString('utf8'), lines);
      start = nl + 1;
    }
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      cut(buf.toString('utf8', start, nl), lines);
      start = nl + 1;
    }
    rest = buf.subarray(start);
    yield { lines, bytesRead };
  }
  const lines: string[] = [];
  if (rest && rest.length > 0) cut(rest.toString('utf8'), lines);
  yield { lines, bytesRead };
}

/** A line up to a \n: a \r before it ends it, one inside it ends a line of its own. */
function cut(line: string, into: string[]): void {
  if (!line.includes('\r')) {
    into.push(line);
    return;
  }
  for (const part of (line.endsWith('\r') ? line.slice(0, -1) : line).split('\r')) into.push(part);
}
