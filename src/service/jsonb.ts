// SQLite's binary JSON (JSONB, https://sqlite.org/jsonb.html), written by the parse workers: a
// match's rows reach the writer as JSONB, which its SQLite walks without parsing text. Given the rows
// as JSON text, the writer's SQLite spent about a third of the writer's time in its JSON functions,
// a quarter of that turning the text into JSONB; inserting 20,000 matches' rows took 33 to 44 µs a
// match from text, 21 to 35 from JSONB (a script, one connection, the bulk load's settings).
//
// An element is a header (its type in the low four bits, its payload's size in the high four or in
// the 1, 2 or 4 bytes after) and a payload: a number's or string's text, an array's or object's
// elements one after another. A container's header is written once it ends, in as few bytes as
// its size needs (jsonbClose).

export const JSONB_NULL = 0;
export const JSONB_TRUE = 1;
export const JSONB_FALSE = 2;
/** A number in JSON's form: an integer ... */
export const JSONB_INT = 3;
/** ... or with a fraction or exponent. */
export const JSONB_FLOAT = 5;
/** A string with nothing to escape, as it is. */
export const JSONB_TEXT = 7;
/** A string as JSON writes it between its quotes, escapes included. */
export const JSONB_TEXTJ = 8;
export const JSONB_ARRAY = 11;
export const JSONB_OBJECT = 12;

/** Bytes an element's header takes for a payload of `size` bytes, written in the fewest (as SQLite writes it). */
const headerBytes = (size: number): number => (size <= 11 ? 1 : size <= 0xff ? 2 : size <= 0xffff ? 3 : 5);

/** Writes an element's header for a payload of `size` bytes at `at`; returns where the payload goes. */
export function jsonbHeader(out: Buffer, at: number, type: number, size: number): number {
  switch (headerBytes(size)) {
    case 1:
      out[at] = (size << 4) | type;
      return at + 1;
    case 2:
      out[at] = 0xc0 | type;
      out[at + 1] = size;
      return at + 2;
    case 3:
      out[at] = 0xd0 | type;
      out[at + 1] = size >> 8;
      out[at + 2] = size & 0xff;
      return at + 3;
    default:
      return writeSize(out, at, type, size);
  }
}

/**
 * Opens an array or object at `at`, with room for the header of up to 255 bytes of elements
 * (`large`: 65,535); returns where its elements go. jsonbClose fits the header to their size.
 */
export function jsonbOpen(out: Buffer, at: number, type: typeof JSONB_ARRAY | typeof JSONB_OBJECT, large = false): number {
  out[at] = (large ? 0xd0 : 0xc0) | type;
  return at + (large ? 3 : 2);
}

/**
 * Ends the array or object opened at `start`, its elements ending at `end`, with its header in
 * the fewest bytes, as SQLite writes it (the elements moved when the room left for it was not
 * that); returns where it ends, which may be up to 3 bytes past `end`. A store keeps a row's stats
 * and weapons as they come: each object's 4-byte size, as written before, was 3 bytes too many.
 */
export function jsonbClose(out: Buffer, start: number, end: number): number {
  const head = out[start] ?? 0;
  const room = head >> 4 === 0xd ? 3 : 2;
  const size = end - start - room;
  const fits = headerBytes(size);
  if (fits !== room) out.copyWithin(start + fits, start + room, end);
  jsonbHeader(out, start, head & 0x0f, size);
  return end + fits - room;
}

function writeSize(out: Buffer, at: number, type: number, size: number): number {
  out[at] = 0xe0 | type;
  out[at + 1] = size >>> 24;
  out[at + 2] = (size >>> 16) & 0xff;
  out[at + 3] = (size >>> 8) & 0xff;
  out[at + 4] = size & 0xff;
  return at + 5;
}

const INTEGER = /^-?\d+$/;

/**
 * Writes JSON values as JSONB that SQLite turns back into the text JSON.stringify writes (strings
 * with its escapes, numbers in its form), into a buffer of its own that grows as needed: for values
 * not read from a line's bytes (src/service/match-line.ts).
 */
export class JsonbWriter {
  private out = Buffer.allocUnsafe(64 * 1024);
  private at = 0;

  /** `value` as JSONB: a view of this writer's buffer, valid until the next call. */
  write(value: unknown): Buffer {
    this.at = 0;
    this.value(value);
    return this.out.subarray(0, this.at);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.out.length) return;
    const grown = Buffer.allocUnsafe(Math.max(2 * this.out.length, this.at + bytes));
    this.out.copy(grown, 0, 0, this.at);
    this.out = grown;
  }

  private value(v: unknown): void {
    if (v === null || v === undefined) return this.scalar(JSONB_NULL, '');
    if (v === true) return this.scalar(JSONB_TRUE, '');
    if (v === false) return this.scalar(JSONB_FALSE, '');
    if (typeof v === 'number') {
      const text = JSON.stringify(v);
      return text === 'null' ? this.scalar(JSONB_NULL, '') : this.scalar(INTEGER.test(text) ? JSONB_INT : JSONB_FLOAT, text);
    }
    if (typeof v === 'string') return this.string(v);
    this.room(3);
    const start = this.at;
    if (Array.isArray(v)) {
      this.at = jsonbOpen(this.out, start, JSONB_ARRAY);
      for (const item of v as unknown[]) this.value(item);
    } else {
      this.at = jsonbOpen(this.out, start, JSONB_OBJECT);
      const o = v as Record<string, unknown>;
      for (const key of Object.keys(o)) {
        // As JSON.stringify: a key whose value is undefined is left out.
        if (o[key] === undefined) continue;
        this.string(key);
        this.value(o[key]);
      }
    }
    // Room for the header to grow (jsonbClose).
    this.room(3);
    this.at = jsonbClose(this.out, start, this.at);
  }

  private string(s: string): void {
    const json = JSON.stringify(s);
    const text = json.slice(1, -1);
    this.scalar(json.includes('\\') ? JSONB_TEXTJ : JSONB_TEXT, text);
  }

  private scalar(type: number, text: string): void {
    const size = Buffer.byteLength(text);
    this.room(size + 5);
    this.at = jsonbHeader(this.out, this.at, type, size);
    this.at += this.out.write(text, this.at);
  }
}
