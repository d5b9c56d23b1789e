// A match record turned into what the SQLite store writes: its columns, its players' key list, its
// fingerprint and its rows as one JSON text, from which SQLite takes each row's columns itself (one
// value to hand over and bind instead of a hundred, and no JSON text made per stats object).
// Building this is the import's JavaScript work (with parsing and validation), so it can run in a
// worker thread beside the writer (src/service/parse-worker.ts); the writer then only runs statements.
import { createHash } from 'node:crypto';

import type { MatchRecord } from './dataset.js';
import { normalizeIdentifier } from './identifiers.js';
import type { TotalsDeltas } from './totals.js';

/**
 * A prepared match: title, id, platform, start (epoch ms), duration, map, mode, playlist, queue,
 * season, its players' keys as JSON (`[platform, player][]`), its fingerprint, its rows as JSON
 * (`[platform, player key, team, result, hero, legend, stats, weapons?][]`, stats and weapons as
 * objects: SQLite writes their JSON text; a row without weapons ends after its stats), then the
 * players first seen by the deltas that took its totals, three values each: platform, player key,
 * identifier as written (for their implicit player record).
 */
export type PreparedMatch = [
  title: string,
  id: string,
  platform: string,
  startedAt: number,
  durationSeconds: number,
  map: string | null,
  mode: string | null,
  playlist: string | null,
  queue: string | null,
  season: number | null,
  keys: JsonText,
  digest: string,
  rows: JsonText,
  implicit: string[],
];

/**
 * JSON text, or its UTF-8 bytes: a parse worker hands a batch's keys and rows over as views of one
 * buffer (packTexts), so that they cross to the writer without being copied and never enter its
 * heap. The writer binds either as it is (the statements cast a blob to text).
 */
export type JsonText = string | Uint8Array;

/** A match's players' keys as a string. */
export const keysText = (keys: JsonText): string => (typeof keys === 'string' ? keys : Buffer.from(keys.buffer, keys.byteOffset, keys.byteLength).toString('utf8'));

/**
 * Puts the keys and rows of `matches` into one buffer, each match's now a view of it; returns the
 * buffer to transfer. Handed over as strings, a million matches made about 1.7 GB of strings in
 * the writer's heap, and V8's helper threads (its young-generation collections, mostly) took 12
 * to 13.5 CPU seconds of the import, against 4.8 to 6.4 this way; in runs back to back the import
 * took 57.7, 58.6, 61.8 and 66.5 s this way, against 60.9 to 69.1 s as strings.
 *
 * `spare` is a buffer the writer gave back once it had written a batch packed into it: used again
 * when the texts fit (a batch's texts, about 1.5 MB, in fresh memory each time were a tenth of a
 * parse worker's page faults, each about 13 µs on the machines measured). A new buffer has a
 * quarter more room than the texts, so that the next batches fit in it.
 */
export function packTexts(matches: PreparedMatch[], spare?: ArrayBuffer): ArrayBuffer {
  let size = 0;
  for (const m of matches) size += Buffer.byteLength(m[10]) + Buffer.byteLength(m[12]);
  // A buffer of its own (not a slice of Node's shared pool), so that it can be transferred.
  const packed = spare && spare.byteLength >= size ? Buffer.from(spare) : Buffer.allocUnsafeSlow(size + (size >> 2));
  let at = 0;
  const view = (text: JsonText): Uint8Array => {
    if (typeof text !== 'string') return text;
    const length = packed.write(text, at);
    const v = new Uint8Array(packed.buffer, packed.byteOffset + at, length);
    at += length;
    return v;
  };
  for (const m of matches) {
    m[10] = view(m[10]);
    m[12] = view(m[12]);
  }
  return packed.buffer;
}

/**
 * The fingerprint of a dataset line, which an import uses as its match's (cheaper than writing the
 * record out again): the same line imported again is skipped; a changed one replaces the match.
 */
export function textDigest(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

/** A match record's fingerprint: an identical record imported again is skipped. */
export function matchDigest(m: MatchRecord): string {
  return textDigest(JSON.stringify(m));
}

/** The columns a match's rows share, in insert order after (title, platform, player). */
export function matchColumns(m: MatchRecord) {
  return {
    started_at: Date.parse(m.startedAt),
    map: m.map ?? null,
    mode: m.mode ?? null,
    playlist: m.playlist ?? null,
    queue: m.queue ?? null,
    season: m.season ?? null,
  };
}

/**
 * Prepares a match and adds its rows to `deltas` (the writer takes them out again when it finds the
 * match already stored as it is).
 */
export function prepareMatch(m: MatchRecord, digest: string, deltas: TotalsDeltas): PreparedMatch {
  const c = matchColumns(m);
  const keys: [string, string][] = [];
  const rows: unknown[][] = [];
  const implicit: string[] = [];
  for (const p of m.players) {
    const player = normalizeIdentifier(p.id);
    keys.push([p.platform, player]);
    const row: unknown[] = [p.platform, player, p.team ?? null, p.result ?? null, p.hero ?? null, p.legend ?? null, p.stats];
    if (p.weapons) row.push(p.weapons);
    rows.push(row);
    // A player first seen since the deltas were last drained gets an implicit record (a player record wins over it).
    if (deltas.add(m.title, p.platform, player, { result: p.result ?? null, duration_s: m.durationSeconds, stats: p.stats }, 1)) implicit.push(p.platform, player, p.id);
  }
  // The record as checked, not the line it came from: the schema trims and drops what it does not
  // know, and a key written twice counts once, as the totals took it.
  return [m.title, m.id, m.platform, c.started_at, m.durationSeconds, c.map, c.mode, c.playlist, c.queue, c.season, JSON.stringify(keys), digest, JSON.stringify(rows), implicit];
}
