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
  keys: string,
  digest: string,
  rows: string,
  implicit: string[],
];

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
