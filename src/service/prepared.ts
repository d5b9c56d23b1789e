// A match record turned into what the SQLite store writes: its columns, its players' key list, its
// fingerprint and its rows as one JSON text, from which SQLite takes each row's columns itself (one
// value to hand over and bind instead of a hundred, and no JSON text made per stats object).
// Building this is the import's JavaScript work (with parsing and validation), so it can run in a
// worker thread beside the writer (src/service/parse-worker.ts); the writer then only runs statements.
import { hash } from 'node:crypto';

import type { MatchRecord } from './dataset.js';
import { normalizeIdentifier } from './identifiers.js';
import type { TotalsDeltas } from './totals.js';

/**
 * A prepared match: title, id, platform, start (epoch ms), duration, map, mode, playlist, queue,
 * season, its players' keys as JSON (`[platform, player][]`), its fingerprint, its rows as JSON, or
 * as JSONB from a parse worker (`[platform, player key, team, result, hero, legend, stats,
 * weapons?][]`, stats and weapons as objects: SQLite writes their JSON text; a row without weapons
 * ends after its stats), then the
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
 * JSON text, or bytes: a parse worker hands a batch's keys (their text's UTF-8 bytes) and rows
 * (JSONB) over as views of one buffer (BatchTexts), so that they cross to the writer without being
 * copied and never enter its heap. The writer binds either as it is (the keys' statement casts a
 * blob to text; the rows' reads text as JSON and a blob as JSONB).
 */
export type JsonText = string | Uint8Array;

/** A match's players' keys as a string. */
export const keysText = (keys: JsonText): string =>
  typeof keys === 'string' ? keys : Buffer.from(keys.buffer, keys.byteOffset, keys.byteLength).toString('utf8');

/** Bytes a batch's texts are packed into: a batch of 2,000 generated matches takes 2.9 MB (keys as JSON, rows as JSONB). */
export const BATCH_TEXT_BYTES = 4 << 20;

/**
 * A batch's texts (its matches' keys and rows) packed, as they are made, into one buffer, each
 * match's a view of it, the buffer transferred to the writer with the batch. Handed over as strings,
 * a million matches made about 1.7 GB of strings in the writer's heap, and V8's helper threads (its
 * young-generation collections, mostly) took 12 to 13.5 CPU seconds of the import, against 4.8 to
 * 6.4 this way; in runs back to back the import took 57.7, 58.6, 61.8 and 66.5 s this way, against
 * 60.9 to 69.1 s as strings.
 *
 * The writer gives each buffer back once it has written the batch (`spares`): a batch's texts in
 * fresh memory each time were a tenth of a parse worker's page faults, each about 13 µs on the
 * machines measured.
 */
export class BatchTexts {
  private buffer = Buffer.alloc(0);
  /** Where the next text goes. */
  at = 0;

  /** `spares`: buffers given back by the writer, used again as they come. */
  constructor(
    private readonly spares: ArrayBuffer[] = [],
    private readonly bytes = BATCH_TEXT_BYTES,
  ) {}

  /** The buffer texts are written into, from `at`, once room is reserved. */
  get out(): Buffer {
    return this.buffer;
  }

  /**
   * Makes room for `bytes` more: false when this batch's buffer has not that much left (the batch is
   * to be sent first: take). A batch's first text always fits (its buffer made large enough).
   */
  reserve(bytes: number): boolean {
    if (this.at + bytes <= this.buffer.length) return true;
    if (this.at > 0) return false;
    const spare = this.spares.pop();
    // A buffer of its own (not a slice of Node's shared pool), so that it can be transferred.
    this.buffer = spare && spare.byteLength >= bytes ? Buffer.from(spare) : Buffer.allocUnsafeSlow(Math.max(this.bytes, bytes));
    return true;
  }

  /** The bytes written from `start` to `at`. */
  view(start: number): Uint8Array {
    return new Uint8Array(this.buffer.buffer, this.buffer.byteOffset + start, this.at - start);
  }

  /** Writes `text` as UTF-8 where room was reserved (Buffer.byteLength of it); its view. */
  write(text: string): Uint8Array {
    const start = this.at;
    this.at += this.buffer.write(text, start);
    return this.view(start);
  }

  /** Copies `bytes` where room was reserved; the copy's view. */
  copy(bytes: Uint8Array): Uint8Array {
    const start = this.at;
    this.buffer.set(bytes, start);
    this.at += bytes.length;
    return this.view(start);
  }

  /** The buffer holding this batch's texts, to transfer with it (none when it holds none); the next batch's go into another. */
  take(): ArrayBuffer | undefined {
    if (this.at === 0) return undefined;
    const full = this.buffer.buffer;
    this.buffer = Buffer.alloc(0);
    this.at = 0;
    return full;
  }
}

/**
 * The fingerprint of a dataset line, which an import uses as its match's (cheaper than writing the
 * record out again): the same line imported again is skipped; a changed one replaces the match. A
 * line's text and its UTF-8 bytes have the same fingerprint.
 */
export function textDigest(text: string | Uint8Array): string {
  return hash('sha1', text, 'base64');
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
 * match already stored as it is); its rows as JSON text unless `rowsAs` writes them otherwise (a
 * parse worker's JSONB).
 */
export function prepareMatch(m: MatchRecord, digest: string, deltas: TotalsDeltas, rowsAs: (rows: unknown[][]) => JsonText = JSON.stringify): PreparedMatch {
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
    if (deltas.add(m.title, p.platform, player, { result: p.result ?? null, duration_s: m.durationSeconds, stats: p.stats }, 1))
      implicit.push(p.platform, player, p.id);
  }
  // The record as checked, not the line it came from: the schema trims and drops what it does not
  // know, and a key written twice counts once, as the totals took it.
  return [
    m.title,
    m.id,
    m.platform,
    c.started_at,
    m.durationSeconds,
    c.map,
    c.mode,
    c.playlist,
    c.queue,
    c.season,
    JSON.stringify(keys),
    digest,
    rowsAs(rows),
    implicit,
  ];
}
