// A large answer read a list entry at a time, each in a turn of the event loop of its own. A busy
// player's sessions run to megabytes (20 sessions of up to 50 matches, each with its stats), and
// JSON.parse and the schema over the whole of one held the bot's event loop for tens of
// milliseconds in one block: every autocomplete typed meanwhile waited. Read in slices, the same answer leaves the loop
// free between entries; what is read is the same (a test holds the two paths to the same data and
// the same notes), and anything the scanner is not sure of is read whole instead.
import { setImmediate as nextTurn } from 'node:timers/promises';

import type { z } from 'zod';

import { MatchSummarySchema, SegmentSchema, SessionSchema, readPayload, type PAYLOAD_SCHEMAS, type PayloadResult } from './schemas.js';

/** Answers at least this long (in characters) are read in slices when their payload has a list to slice. */
export const SLICED_ANSWER_CHARS = 256 * 1024;
/**
 * Text scanned or read in one turn of the event loop, a fraction of a millisecond's work: a slice
 * of a millisecond or more shows in autocomplete's p99 while the busiest players' lookups run
 * (`npm run bench:scale -- --stores bot`).
 */
export const SLICE_CHARS = 32 * 1024;

/**
 * Where a payload's list is: the field of `data` that holds it (null: `data` is the list), the
 * schema of one entry, and the note an unreadable entry gets (`<field>.<index>`, as the whole
 * schema's laxList notes it). The whole schema must read the list as a laxList of `entry` and
 * nothing else of it, so that the payload read with an empty list plus the entries read one by one
 * is what it reads.
 */
export interface ListedPayload {
  field: string | null;
  entry: z.ZodType;
  note: string;
}

/** The payloads that grow with a player's history, by the name the catalog gives them. */
export const PAYLOAD_LISTS: Partial<Record<keyof typeof PAYLOAD_SCHEMAS, ListedPayload>> = {
  SessionList: { field: 'items', entry: SessionSchema, note: 'items' },
  MatchResult: { field: 'matches', entry: MatchSummarySchema, note: 'matches' },
  'Segment[]': { field: null, entry: SegmentSchema, note: 'segments' },
};

interface ListRanges {
  /** The list's `[` and one past its `]`. */
  list: [number, number];
  /** Each entry's first character and one past its last. */
  entries: [number, number][];
}

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** One past the closing quote of the string that opens at `i`, or -1 when it does not close. */
function stringEnd(text: string, i: number): number {
  for (let q = text.indexOf('"', i + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(q - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return q + 1;
  }
  return -1;
}

interface Level {
  object: boolean;
  /** In an object: the next string is a key. */
  expectKey: boolean;
  /** The key of the value being read in this object. */
  key: string | undefined;
  /** How many steps of the path lead here (-1: off the path). */
  depth: number;
  /** On the path: the path's next key was seen here already (a second one makes the answer ambiguous). */
  seen: boolean;
}

/**
 * The ranges of the list at `path` (keys from the top) in a JSON text, scanned a slice at a time
 * (the generator yields between slices). Undefined when there is none, the text is cut short, or
 * a key on the path is written twice (JSON.parse would take the last; reading it whole decides).
 */
export function* scanList(text: string, path: readonly string[]): Generator<void, ListRanges | undefined> {
  const stack: Level[] = [];
  let list: [number, number] | undefined;
  let listLevel = -1;
  const entries: [number, number][] = [];
  let entryStart = -1;
  /** In the list: what may come next (its separators are checked here; JSON.parse checks each entry). */
  let next = 'first' as 'first' | 'entry' | 'comma';
  let nextYield = SLICE_CHARS;
  /** The container on top of the stack is the list. */
  const inList = () => listLevel >= 0 && stack.length - 1 === listLevel;
  /** A value starts at `i` in the container on top of the stack; false when the list has no room for one. */
  const valueStarts = (i: number): boolean => {
    if (!inList()) return true;
    if (next === 'comma') return false;
    entryStart = i;
    return true;
  };
  /** A value ended just before `end` in the container on top of the stack. */
  const valueEnds = (end: number) => {
    if (inList() && entryStart !== -1) {
      entries.push([entryStart, end]);
      entryStart = -1;
      next = 'comma';
    }
  };
  for (let i = 0; i < text.length;) {
    if (i >= nextYield) {
      nextYield = i + SLICE_CHARS;
      yield;
    }
    const c = text.charCodeAt(i);
    if (isSpace(c) || c === 0x3a /* : */) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      if (end === -1) return undefined;
      if (top?.object && top.expectKey) {
        const raw = text.slice(i + 1, end - 1);
        top.key = raw.includes('\\') ? (JSON.parse(text.slice(i, end)) as string) : raw;
        top.expectKey = false;
        if (top.depth >= 0 && top.key === path[top.depth]) {
          if (top.seen) return undefined;
          top.seen = true;
        }
      } else {
        if (!valueStarts(i)) return undefined;
        valueEnds(end);
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (!valueStarts(i)) return undefined;
      // On the path when the container holding it is and this value sits under the path's next key
      // (the top level is on it at depth 0).
      const depth = !top ? 0 : top.depth >= 0 && top.object && top.key === path[top.depth] ? top.depth + 1 : -1;
      stack.push({ object: c === 0x7b, expectKey: c === 0x7b, key: undefined, depth, seen: false });
      if (depth === path.length) {
        if (c !== 0x5b) return undefined;
        list = [i, -1];
        listLevel = stack.length - 1;
      }
      i++;
      continue;
    }
    if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (!top || top.object !== (c === 0x7d)) return undefined;
      if (inList() && list) {
        if (next === 'entry') return undefined;
        list[1] = i + 1;
        listLevel = -1;
      }
      stack.pop();
      valueEnds(i + 1);
      i++;
      continue;
    }
    if (c === 0x2c /* , */) {
      if (top?.object) top.expectKey = true;
      if (inList()) {
        if (next !== 'comma') return undefined;
        next = 'entry';
      }
      i++;
      continue;
    }
    // A number, true, false or null: up to the next delimiter.
    if (!valueStarts(i)) return undefined;
    let end = i + 1;
    while (end < text.length) {
      const d = text.charCodeAt(end);
      if (d === 0x2c || d === 0x5d || d === 0x7d || isSpace(d)) break;
      end++;
    }
    valueEnds(end);
    i = end;
  }
  if (stack.length > 0 || !list || list[1] === -1) return undefined;
  return { list, entries };
}

/**
 * Reads `data` of an answer's JSON text as `whole` reads it, a slice at a time: the text without
 * the list's entries, then each entry, each slice in a turn of the event loop of its own.
 * Undefined when the text is not one this can read (not JSON, no such list, an ambiguous key):
 * the caller reads it whole, and says what is wrong with it.
 */
export async function readInSlices<T>(text: string, whole: z.ZodType<T>, listed: ListedPayload): Promise<PayloadResult<T> | undefined> {
  const path = listed.field === null ? ['data'] : ['data', listed.field];
  const scan = scanList(text, path);
  let step = scan.next();
  while (!step.done) {
    await nextTurn();
    step = scan.next();
  }
  const ranges = step.value;
  if (!ranges) return undefined;
  let rest: unknown;
  try {
    rest = JSON.parse(text.slice(0, ranges.list[0]) + '[]' + text.slice(ranges.list[1]));
  } catch {
    return undefined;
  }
  const data = rest && typeof rest === 'object' ? (rest as { data?: unknown }).data : undefined;
  const outer = readPayload(whole, data);
  if (!outer.success) return outer;
  const degraded = [...outer.degraded];
  const read: unknown[] = [];
  let sliced = 0;
  for (const [index, [from, to]] of ranges.entries.entries()) {
    sliced += to - from;
    if (sliced >= SLICE_CHARS) {
      sliced = 0;
      await nextTurn();
    }
    let json: unknown;
    try {
      json = JSON.parse(text.slice(from, to));
    } catch {
      return undefined;
    }
    const entry = readPayload(listed.entry, json);
    degraded.push(...entry.degraded);
    if (entry.success) read.push(entry.data);
    else degraded.push({ field: `${listed.note}.${index}`, issue: entry.error.issues[0]?.message ?? 'unreadable entry' });
  }
  if (listed.field === null) return { success: true, data: read as T, degraded };
  (outer.data as Record<string, unknown>)[listed.field] = read;
  return { success: true, data: outer.data, degraded };
}
