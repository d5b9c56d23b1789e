// A match record turned into what the SQLite store writes: its columns, its players' key list, its
// fingerprint and its players' rows as the JSON the store stages. Building this is the import's
// JavaScript work (with parsing and validation), so it can run in a worker thread beside the
// writer (src/service/parse-worker.ts); the writer then only runs statements.
import { createHash } from 'node:crypto';

import type { MatchRecord } from './dataset.js';
import { normalizeIdentifier } from './identifiers.js';
import type { TotalsDeltas } from './totals.js';

/**
 * A prepared match: title, id, platform, start (epoch ms), duration, map, mode, playlist, queue,
 * season, its players' keys as JSON (`[platform, player][]`), its fingerprint, its players' rows
 * (eight values each: platform, player key, team, result, hero, legend, stats and weapons as JSON
 * text), then the players first seen by the deltas that took its totals, three values
 * each: platform, player key, identifier as written (for their implicit player record).
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
  rows: (string | null)[],
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
  const rows: (string | null)[] = [];
  const implicit: string[] = [];
  for (const p of m.players) {
    const player = normalizeIdentifier(p.id);
    keys.push([p.platform, player]);
    rows.push(p.platform, player, p.team ?? null, p.result ?? null, p.hero ?? null, p.legend ?? null, JSON.stringify(p.stats), p.weapons ? JSON.stringify(p.weapons) : null);
    // A player first seen since the deltas were last drained gets an implicit record (a player record wins over it).
    if (deltas.add(m.title, p.platform, player, { result: p.result ?? null, duration_s: m.durationSeconds, stats: p.stats }, 1)) implicit.push(p.platform, player, p.id);
  }
  return [m.title, m.id, m.platform, c.started_at, m.durationSeconds, c.map, c.mode, c.playlist, c.queue, c.season, JSON.stringify(keys), digest, rows, implicit];
}
