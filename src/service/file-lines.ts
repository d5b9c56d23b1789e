// A dataset file's lines, a chunk at a time: the bytes are cut at each \n and decoded a line at a
// time, which costs a fraction of readline's decoding and cutting of large texts. Lines end as
// readline ends them (crlfDelay Infinity): at \n, \r\n or a lone \r. A line longer than
// MAX_LINE_BYTES is skipped without being held, so that no line can run the import out of memory.
//
// An import reads a file through one descriptor opened when it begins (a FileSnapshot), up to the
// size it had then: a file renamed over it meanwhile is not seen, and one written to in place is
// found out at the end (`checkUnchanged`) instead of imported half old, half new, and every worker
// reading it cuts the same chunks.
import { closeSync, fstatSync, openSync, read } from 'node:fs';
import { promisify } from 'node:util';

const readAt = promisify(read);

/** Bytes read a chunk. */
export const CHUNK_BYTES = 4 << 20;
/** Bytes a line may have, its end not counted: a match line is about 2 KB. */
export const MAX_LINE_BYTES = 1 << 20;
/** Bytes read back at a time to find the line that runs into a chunk (a match line is about 2 KB). */
const SKIP_BYTES = 64 << 10;
const NEWLINE = 0x0a;
const RETURN = 0x0d;

/** A line longer than MAX_LINE_BYTES, in place of its text: its bytes were skipped, not kept. */
export interface LongLine {
  /** Its length in bytes. */
  longLine: number;
}

/** Why a long line is refused. */
export const longLineReason = (line: LongLine): string =>
  `longer than ${MAX_LINE_BYTES} bytes (1 MiB), the most a line may have: ${line.longLine} bytes, not read`;

/** A file as an import began to read it: its descriptor (shared by the import's threads), size and time of last change. */
export interface FileSnapshot {
  path: string;
  fd: number;
  size: number;
  mtimeMs: number;
}

/** Opens `path` for an import: every reader of the snapshot reads the same bytes. Close it with closeSnapshot. */
export function openSnapshot(path: string): FileSnapshot {
  const fd = openSync(path, 'r');
  try {
    const { size, mtimeMs } = fstatSync(fd);
    return { path, fd, size, mtimeMs };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}

export function closeSnapshot(snapshot: FileSnapshot): void {
  closeSync(snapshot.fd);
}

/** What an import that read a file being written says. */
export const CHANGED_WHILE_READ =
  'the dataset file changed while it was read (written to, cut short or grown), so what was read is not one version of it: import it again once it is written whole (write the new version beside it and rename it over the old one, which an import in progress does not see)';

export class FileChangedError extends Error {
  constructor() {
    super(CHANGED_WHILE_READ);
    this.name = 'FileChangedError';
  }
}

/**
 * Throws FileChangedError when the file the snapshot reads was written to since it was taken (its
 * size or time of last change differ; a file renamed over its name is another file, not read), or
 * when `bytesRead` is not its size.
 */
export function checkUnchanged(snapshot: FileSnapshot, bytesRead = snapshot.size): void {
  const now = fstatSync(snapshot.fd);
  if (bytesRead !== snapshot.size || now.size !== snapshot.size || now.mtimeMs !== snapshot.mtimeMs) throw new FileChangedError();
}

/**
 * A chunk's whole lines (those whose end, a \n or the \r of a \r\n or a lone \r, is in it; the
 * file's last line, if nothing ends it, is a chunk of its own after the last), with its place in the
 * file.
 */
export interface LineChunk {
  /** The chunk's number, from 0. */
  index: number;
  /** Its lines, decoded; a long one as a LongLine. */
  lines: (string | LongLine)[];
  /** How many lines end in this chunk. */
  count: number;
  /** No line ends before this chunk: its first line, if it has one, is the file's first. */
  first: boolean;
  /** Bytes of the file up to this chunk's end. */
  bytesRead: number;
}

/**
 * The snapshot's lines in order, a chunk at a time. With `keep`, only the chunks it says yes to,
 * the others not even read (each of an import's workers reads its own share of the chunks); the
 * line that runs into a chunk from those before is found by reading back from the chunk's start to
 * its beginning. Lines are numbered by who reads every chunk's count.
 */
export async function* fileLineChunks(
  source: FileSnapshot,
  chunkBytes = CHUNK_BYTES,
  keep: (index: number) => boolean = () => true,
): AsyncGenerator<LineChunk> {
  const straddling = new StraddlingLine();
  /** Where the file was read up to (what straddling holds is the line under way there). */
  let at = 0;
  /** Some line ended before `at`. */
  let ended = false;
  for await (const { index, buf, position } of fileChunks(source, chunkBytes, keep)) {
    if (position > at) ended = (await straddling.skip(source.fd, at, position)) || ended;
    at = position + buf.length;
    const out: LineChunk = { index, lines: [], count: 0, first: !ended, bytesRead: at };
    let start = 0;
    // A \n byte is never part of a longer UTF-8 sequence: cutting there never splits a character.
    // The line that straddles two chunks is gathered on its own (copying whole chunks to join it
    // would copy the file once more), up to MAX_LINE_BYTES.
    if (!straddling.clean()) {
      const nl = buf.indexOf(NEWLINE);
      straddling.feed(buf, 0, nl === -1 ? buf.length : nl, nl !== -1, out);
      start = nl === -1 ? buf.length : nl + 1;
    }
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      if (nl - start > MAX_LINE_BYTES) straddling.feed(buf, start, nl, true, out);
      else out.count += cut(buf.toString('utf8', start, nl), out.lines);
      start = nl + 1;
    }
    if (start < buf.length) straddling.feed(buf, start, buf.length, false, out);
    ended ||= out.count > 0;
    yield out;
  }
  // The last line, if nothing ended it: a chunk of its own, after the file's last.
  const index = Math.ceil(source.size / chunkBytes);
  if (!keep(index)) return;
  if (source.size > at) ended = (await straddling.skip(source.fd, at, source.size)) || ended;
  const out: LineChunk = { index, lines: [], count: 0, first: !ended, bytesRead: source.size };
  straddling.end(out);
  yield out;
}

/**
 * The snapshot's bytes, `chunkBytes` at a time (the last chunk shorter), each read into the same
 * buffer: a chunk's lines are decoded, and the line straddling it copied (StraddlingLine), before
 * the next is read: a new buffer a chunk (as a read stream makes) has the kernel give the process
 * fresh memory for each read, a page fault a page. A snapshot is read by positions (its readers do
 * not move each other) up to its size then, every chunk filled whole, so that every reader cuts it
 * into the same chunks; with `keep`, only the chunks it says yes to. A file that has less than its
 * snapshot's size is one changed since: FileChangedError.
 */
async function* fileChunks(
  source: FileSnapshot,
  chunkBytes: number,
  keep: (index: number) => boolean,
): AsyncGenerator<{ index: number; buf: Buffer; position: number }> {
  const buffer = Buffer.allocUnsafeSlow(chunkBytes);
  for (let index = 0, position = 0; position < source.size; index++, position += chunkBytes) {
    if (!keep(index)) continue;
    const want = Math.min(chunkBytes, source.size - position);
    if ((await readFully(source.fd, buffer, want, position)) < want) throw new FileChangedError();
    yield { index, buf: buffer.subarray(0, want), position };
  }
}

/** Reads up to `want` bytes into the start of `buffer`, from `position`, until the file ends; how many it read. */
async function readFully(fd: number, buffer: Buffer, want: number, position: number): Promise<number> {
  let filled = 0;
  while (filled < want) {
    const { bytesRead } = await readAt(fd, buffer, filled, want - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

/** A line up to a \n: a \r before it ends it, one inside it ends a line of its own. Returns the lines added. */
function cut(line: string, into: LineChunk['lines']): number {
  if (!line.includes('\r')) {
    into.push(line);
    return 1;
  }
  const parts = (line.endsWith('\r') ? line.slice(0, -1) : line).split('\r');
  for (const part of parts) into.push(part);
  return parts.length;
}

/**
 * The line being read where a chunk's whole lines end (the one that goes on into the next chunk,
 * or one too long to cut as a whole): its bytes so far, up to MAX_LINE_BYTES; past that only
 * their count. It ends lines as cut does: at \n, \r\n or a lone \r.
 */
class StraddlingLine {
  private parts: Buffer[] = [];
  private size = 0;
  /** Bytes of a line found too long (its bytes dropped); 0 when it is not. */
  private long = 0;
  /** The last byte fed was a \r, which ended a line: a \n right after it belongs to that end. */
  private afterReturn = false;
  /** Where skip reads back into. */
  private scratch: Buffer | undefined;

  /** Nothing read of a line yet. */
  clean(): boolean {
    return this.size === 0 && this.long === 0 && !this.afterReturn;
  }

  /**
   * Reads `buf` from `from` to `to` (no \n in it), which `ended` says a \n follows; lines that end
   * go to `out`.
   */
  feed(buf: Buffer, from: number, to: number, ended: boolean, out: LineChunk): void {
    let i = from;
    if (this.afterReturn) {
      if (i === to && !ended) return;
      this.afterReturn = false;
      // \r\n: the \n ends nothing more.
      if (i === to) return;
    }
    // Searched up to `to` only: a chunk of lines without \r would be searched to its end each time.
    const range = buf.subarray(0, to);
    for (let r = range.indexOf(RETURN, i); r !== -1; r = range.indexOf(RETURN, i)) {
      this.take(buf, i, r);
      this.emit(out);
      i = r + 1;
      if (i === to) {
        // The \r is this range's last byte: a \n after it (here, or first in the next chunk) goes with it.
        if (!ended) this.afterReturn = true;
        return;
      }
    }
    this.take(buf, i, to);
    if (ended) this.emit(out);
  }

  /**
   * Goes on from `from` to `to` in the file without giving the lines that end there (chunks another
   * reader parses): as if fed, but reading back from `to` to the last line end before it, the only
   * bytes that count. True when a line ends there.
   */
  async skip(fd: number, from: number, to: number): Promise<boolean> {
    const scratch = (this.scratch ??= Buffer.allocUnsafeSlow(SKIP_BYTES));
    /** The bytes after the last line end, last first (dropped once more than a line may have). */
    const tail: Buffer[] = [];
    let tailBytes = 0;
    let lineEnd = -1;
    let endByte = NEWLINE;
    for (let end = to; end > from && lineEnd === -1;) {
      const start = Math.max(from, end - scratch.length);
      const filled = await readFully(fd, scratch, end - start, start);
      if (filled < end - start) throw new FileChangedError();
      const block = scratch.subarray(0, filled);
      const last = Math.max(block.lastIndexOf(NEWLINE), block.lastIndexOf(RETURN));
      if (last !== -1) {
        lineEnd = start + last;
        endByte = block[last] as number;
      }
      const piece = block.subarray(last + 1);
      tailBytes += piece.length;
      if (tailBytes <= MAX_LINE_BYTES) tail.push(Buffer.from(piece));
      else tail.length = 0;
      end = start;
    }
    tail.reverse();
    if (lineEnd === -1) {
      // No line ends in between: the line under way goes on through it.
      if (tailBytes === 0) return false;
      this.afterReturn = false;
      for (const piece of tail) this.take(piece, 0, piece.length);
      if (tailBytes > MAX_LINE_BYTES) this.takeLong(tailBytes);
      return false;
    }
    this.parts = [];
    this.size = 0;
    this.long = 0;
    // A \r last: a \n right after it belongs to its end.
    this.afterReturn = lineEnd === to - 1 && endByte === RETURN;
    if (tailBytes > MAX_LINE_BYTES) this.takeLong(tailBytes);
    else for (const piece of tail) this.take(piece, 0, piece.length);
    return true;
  }

  /** The end of the file: the line read so far, if any, is the last. */
  end(out: LineChunk): void {
    if (this.size > 0 || this.long > 0) this.emit(out);
    this.afterReturn = false;
  }

  private take(buf: Buffer, from: number, to: number): void {
    const n = to - from;
    if (n === 0) return;
    if (this.long > 0) this.long += n;
    else if (this.size + n > MAX_LINE_BYTES) this.takeLong(n);
    else {
      // Copied: the chunk's buffer is read into again for the next.
      this.parts.push(Buffer.from(buf.subarray(from, to)));
      this.size += n;
    }
  }

  /** `n` more bytes of a line that is too long with them: only their count is kept. */
  private takeLong(n: number): void {
    this.long = (this.long > 0 ? this.long : this.size) + n;
    this.parts = [];
    this.size = 0;
  }

  private emit(out: LineChunk): void {
    out.count++;
    const line = this.long > 0 ? undefined : Buffer.concat(this.parts, this.size);
    out.lines.push(line === undefined ? { longLine: this.long } : line.toString('utf8'));
    this.parts = [];
    this.size = 0;
    this.long = 0;
  }
}
