// A dataset file's lines, a chunk at a time: the bytes are cut at each \n and decoded a line at a
// time, which costs a fraction of readline's decoding and cutting of large texts. Lines end as JSON
// Lines says, at \n; a \r before it is left out (JSON reads it as space anyway). A line longer
// than MAX_LINE_BYTES is skipped without being held, so that no line can run the import out of
// memory.
//
// An import reads a file through one descriptor opened when it begins (a FileSnapshot), up to the
// size it had then: a file renamed over it meanwhile is not seen, and one written to in place is
// found out at the end (`checkUnchanged`) instead of imported half old, half new, and every thread
// reading it cuts the same chunks.
import { closeSync, fstatSync, openSync, read } from 'node:fs';
import { promisify } from 'node:util';

const readAt = promisify(read);

/**
 * Bytes read a chunk. An import's threads share a file by taking its chunks one after another as
 * each is free (sharedCounter), so that they end together however fast each goes: a small chunk
 * leaves the last to end little to do alone.
 */
export const CHUNK_BYTES = 1 << 20;

/**
 * A counter shared by an import's threads (shared, not copied, when posted to a worker), from 0:
 * each number is taken once (takeNext), by the first thread to ask.
 */
export const sharedCounter = (): SharedArrayBuffer => new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);

/** The next number of a sharedCounter, taken. */
export const takeNext = (counter: SharedArrayBuffer): number => Atomics.add(new Int32Array(counter), 0, 1);

/** Takes every number of a sharedCounter (far past any chunk of a file): the threads sharing it stop at their next. */
export const exhaust = (counter: SharedArrayBuffer): void => void Atomics.store(new Int32Array(counter), 0, 2 ** 30);

/** Bytes a line may have, its end not counted: a match line is about 2 KB. */
export const MAX_LINE_BYTES = 1 << 20;
/** Bytes read at a time past a chunk's end, for the line that runs on from it (a match line is about 2 KB). */
const RUN_ON_BYTES = 64 << 10;
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
 * size or time of last change differ; a file renamed over its name is another file, not read).
 */
export function checkUnchanged(snapshot: FileSnapshot): void {
  const now = fstatSync(snapshot.fd);
  if (now.size !== snapshot.size || now.mtimeMs !== snapshot.mtimeMs) throw new FileChangedError();
}

/** The lines that start in one chunk of a file (a line that runs on past its end included), with its place. */
export interface LineChunk {
  /** The chunk's number, from 0: the file's first line is the first of chunk 0. */
  index: number;
  /** Its lines, decoded; a long one as a LongLine. */
  lines: (string | LongLine)[];
}

/**
 * The snapshot's lines, `chunkBytes` of the file at a time, in order. With `counter` (sharedCounter),
 * only the chunks this reader takes from it, the next one each time, the others not even read
 * (each of an import's threads reads its own share): a chunk's lines are those that start in it,
 * found from the byte before it, so that a reader needs no other chunk. Every chunk is read into the
 * same buffer: a new buffer a chunk (as a read stream makes) has the kernel give the process fresh
 * memory for each read, a page fault a page.
 */
export async function* fileLineChunks(source: FileSnapshot, chunkBytes = CHUNK_BYTES, counter = sharedCounter()): AsyncGenerator<LineChunk> {
  const buffer = Buffer.allocUnsafeSlow(chunkBytes + 1);
  for (let index = takeNext(counter); index * chunkBytes < source.size; index = takeNext(counter)) {
    const start = index * chunkBytes;
    const end = Math.min(source.size, start + chunkBytes);
    const buf = await readRange(source, buffer, Math.max(0, start - 1), end);
    // A line starts in the chunk after each \n from the byte before it on (a \n is never part of a
    // longer UTF-8 sequence: cutting there never splits a character); none, if it has no \n.
    const ended = start === 0 ? -1 : buf.indexOf(NEWLINE);
    const lines: LineChunk['lines'] = [];
    let at = start > 0 && ended === -1 ? buf.length : ended + 1;
    for (let nl = buf.indexOf(NEWLINE, at); nl !== -1; nl = buf.indexOf(NEWLINE, at)) {
      lines.push(decode(buf, at, nl));
      at = nl + 1;
    }
    if (at < buf.length) lines.push(await runOn(source, buf.subarray(at), end));
    yield { index, lines };
  }
}

/** The line from `from` to `to` in `buf` (its \n not included, a \r before it left out); a LongLine if too long. */
function decode(buf: Buffer, from: number, to: number): string | LongLine {
  const stop = to > from && buf[to - 1] === RETURN ? to - 1 : to;
  return stop - from > MAX_LINE_BYTES ? { longLine: stop - from } : buf.toString('utf8', from, stop);
}

/**
 * The line whose first bytes, `head`, end a chunk: read on from `position` to its \n or the file's
 * end, its bytes held up to MAX_LINE_BYTES (and a \r), past that only counted.
 */
async function runOn(source: FileSnapshot, head: Buffer, position: number): Promise<string | LongLine> {
  const held = (bytes: number) => bytes <= MAX_LINE_BYTES + 1;
  let parts = held(head.length) ? [Buffer.from(head)] : [];
  let bytes = head.length;
  let last = head[head.length - 1];
  const block = Buffer.allocUnsafe(RUN_ON_BYTES);
  for (let at = position; at < source.size; at += RUN_ON_BYTES) {
    const read = await readRange(source, block, at, Math.min(source.size, at + RUN_ON_BYTES));
    const nl = read.indexOf(NEWLINE);
    const piece = nl === -1 ? read : read.subarray(0, nl);
    bytes += piece.length;
    if (piece.length > 0) last = piece[piece.length - 1];
    parts = held(bytes) ? [...parts, Buffer.from(piece)] : [];
    if (nl !== -1) break;
  }
  if (held(bytes)) return decode(Buffer.concat(parts), 0, bytes);
  return { longLine: bytes - (last === RETURN ? 1 : 0) };
}

/**
 * The snapshot's bytes from `from` to `to`, read by position (its readers do not move each other)
 * into the start of `buffer`. A file that has less than its snapshot's size is one changed since:
 * FileChangedError.
 */
async function readRange(source: FileSnapshot, buffer: Buffer, from: number, to: number): Promise<Buffer> {
  for (let filled = 0; filled < to - from;) {
    const { bytesRead } = await readAt(source.fd, buffer, filled, to - from - filled, from + filled);
    if (bytesRead === 0) throw new FileChangedError();
    filled += bytesRead;
  }
  return buffer.subarray(0, to - from);
}
