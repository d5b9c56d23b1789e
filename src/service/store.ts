// The service's SQLite store (better-sqlite3, prepared statements only), the embedded default: the
// lookups' reads. Match rows are found by (player, title, platform, time) through their index, so
// that everything about one player is one index range; overview totals and rank material are kept
// by the import (src/service/sqlite-import.ts), so that the first profile after a start reads no
// population.
import { mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

import type { PlatformSlug, SegmentDimension, TitleSlug } from '../catalog/index.js';
import type { AggregateRow, MatchRow } from './aggregate.js';
import { normalizeIdentifier } from './identifiers.js';
import { placeInChunk } from './ranks.js';
import type { MatchFilter, Place, PlayerRow, PlayerSummary, Store, StoredMatch, StoredMatchPlayer, TotalsOffer } from './store-api.js';
import { MATCH_COLUMNS, MATCH_DECLARATION, ROW_DECLARATION, STORED_PLAYER_DECLARATION } from './import-stage.js';
import { takeStages } from './sqlite-import.js';
import { storedValues } from './totals.js';

export type { MatchFilter, Place, PlayerRow, PlayerSummary, Store, StoredMatch, StoredMatchPlayer } from './store-api.js';

/** How long a statement waits for another connection's write lock before it fails. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The store's indexes, by name. A first import fills the tables without them and builds each once
 * at its end, a sort rather than an insert in a random place per row (src/service/sqlite-import.ts).
 */
export const INDEXES = {
  players_by_handle: 'CREATE INDEX IF NOT EXISTS players_by_handle ON players (title, platform, handle_norm)',
  players_by_vanity: 'CREATE INDEX IF NOT EXISTS players_by_vanity ON players (title, platform, vanity_norm) WHERE vanity_norm IS NOT NULL',
  // The id first: it tells most keys apart, so that the sort building the index mostly compares one column.
  matches_by_id: 'CREATE UNIQUE INDEX IF NOT EXISTS matches_by_id ON matches (id, title)',
  // A player's rows in time order, with the duration: a player's timeline (the sessions' cut) is read from the index alone.
  match_players_by_player:
    'CREATE UNIQUE INDEX IF NOT EXISTS match_players_by_player ON match_players (player, title, platform, started_at, match_id, duration_s)',
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS players (${STORED_PLAYER_DECLARATION}, PRIMARY KEY (title, platform, id_norm)) WITHOUT ROWID;

-- players: the [platform, player] of each row, so that a report reads each by its whole key.
CREATE TABLE IF NOT EXISTS matches (${MATCH_DECLARATION});

-- A player's rows are found through match_players_by_player.
CREATE TABLE IF NOT EXISTS match_players (${ROW_DECLARATION});
${Object.values(INDEXES).join(';\n')};

-- keys: what the player's matches hold (PlayerKeys), read from the rows when first asked for and
-- kept until the player's totals change (writing them leaves it NULL).
CREATE TABLE IF NOT EXISTS player_totals (
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL, totals TEXT NOT NULL, keys TEXT,
  PRIMARY KEY (player, title, platform)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS rank_chunks (
  title TEXT NOT NULL, key TEXT NOT NULL, lo REAL NOT NULL,
  below INTEGER NOT NULL, population INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (title, key, lo)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/** A MatchRow's columns (src/service/aggregate.ts): what a lookup reads of a player's row, in both stores. */
export const MATCH_ROW_COLUMNS = 'match_id, started_at, duration_s, result, hero, legend, map, mode, playlist, queue, season, stats, weapons';

/** The highest code point: `prefix + MAX_CHAR` bounds every string that starts with `prefix`. */
export const MAX_CHAR = '\u{10FFFF}';

/** The layout of a store file, kept in it: a file of another is refused, to be imported again. */
export const STORE_LAYOUT = '6';

/** The hot statements by name, for the plan test: each must find its rows through an index. */
const HOT = {
  playerById: 'SELECT * FROM players WHERE title = ? AND platform = ? AND id_norm = ?',
  playerByVanity: 'SELECT * FROM players INDEXED BY players_by_vanity WHERE title = ? AND platform = ? AND vanity_norm = ? LIMIT 1',
  playersByPrefix: `SELECT * FROM players INDEXED BY players_by_handle WHERE title = ? AND platform = ? AND handle_norm >= ? AND handle_norm < ?
    ORDER BY handle_norm, id_norm LIMIT ?`,
  timeline: 'SELECT match_id, started_at, duration_s FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at, match_id',
  rowsSince: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND started_at >= ? ORDER BY started_at, match_id`,
  ratings: `SELECT season, json_extract(stats, ?) AS rating FROM match_players WHERE title = ? AND platform = ? AND player = ?
    ORDER BY started_at DESC, match_id DESC`,
  newestFirst: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at DESC, match_id DESC LIMIT ?`,
  newestFirstBefore: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND (started_at, match_id) < (?, ?)
    ORDER BY started_at DESC, match_id DESC LIMIT ?`,
  match: `SELECT ${MATCH_COLUMNS} FROM matches WHERE title = ? AND id = ?`,
  keyRows: `SELECT map, mode, playlist, legend, hero, queue, season, weapons IS NOT NULL, COUNT(*)
    FROM match_players WHERE title = ? AND platform = ? AND player = ? GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
  keysOfPlayer: 'SELECT keys FROM player_totals WHERE title = ? AND platform = ? AND player = ?',
  // A match lists its players, so each of its rows is read by its whole key: no index by match to
  // maintain at import, and no walk of the title (which the planner once chose without statistics).
  participant: `SELECT ${MATCH_ROW_COLUMNS}, mp.platform AS platform, mp.player AS player, mp.team AS team, p.handle AS handle, p.id AS player_id,
      p.private AS private, p.handle_norm AS handle_norm
    FROM match_players mp LEFT JOIN players p ON p.title = mp.title AND p.platform = mp.platform AND p.id_norm = mp.player
    WHERE mp.title = ? AND mp.platform = ? AND mp.player = ? AND mp.started_at = ? AND mp.match_id = ?`,
  totalsOfPlayer: 'SELECT totals FROM player_totals WHERE title = ? AND platform = ? AND player = ?',
  rankChunk: 'SELECT below, population, data FROM rank_chunks WHERE title = ? AND key = ? AND lo <= ? ORDER BY lo DESC LIMIT 1',
} as const;

export class StatsStore implements Store {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  /** Bumped by every import; caches derived from the data key on it. */
  generation = 0;
  private readonly s;
  private readonly aggregateStatements = new Map<string, Database.Statement>();

  constructor(path = ':memory:') {
    // A store in a folder that does not exist yet (`.data/` in a fresh clone) makes it.
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // Pages of 16 KB in a new file (a file keeps the size it was made with): fewer, larger pages for
    // the import's sorts and a player's range of rows.
    this.db.pragma('page_size = 16384');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // 64 MB of page cache: an import into a store that holds data writes rows all over the index of rows.
    this.db.pragma('cache_size = -65536');
    // Checkpoints (each one a sync to disk) every 64 MB of log rather than every 4 MB: an import
    // writes a lot between them, and a reader's view is the same either way.
    this.db.pragma('wal_autocheckpoint = 16384');
    const db = this.db;
    const has = (table: string) => db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
    const layout = has('meta') ? db.prepare("SELECT value FROM meta WHERE key = 'layout'").pluck().get() : undefined;
    if (has('matches') && layout !== STORE_LAYOUT) {
      db.close();
      throw new Error(`${path}: a store made by an earlier version of the service, laid out otherwise; delete the file and import the dataset again`);
    }
    if (has('meta') && db.prepare("SELECT 1 FROM meta WHERE key = 'importing'").get() !== undefined) {
      db.close();
      throw new Error(`${path}: the first import into this file stopped half-way, and may have left it broken; delete the file and import again`);
    }
    db.exec(SCHEMA);
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('layout', ?)").run(STORE_LAYOUT);
    const hot = Object.fromEntries(Object.entries(HOT).map(([k, sql]) => [k, db.prepare(sql)])) as Record<keyof typeof HOT, Database.Statement>;
    this.s = {
      ...hot,
      keyRows: hot.keyRows.raw(),
      keysOfPlayer: hot.keysOfPlayer.pluck(),
      putKeys: db.prepare('UPDATE player_totals SET keys = ? WHERE title = ? AND platform = ? AND player = ?'),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
      counts: db.prepare(`SELECT (SELECT COUNT(*) FROM players) AS players, (SELECT COUNT(*) FROM matches) AS matches`),
    };
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }

  async importStages(files: readonly string[], offer?: TotalsOffer): Promise<void> {
    await takeStages(this.db, files, availableParallelism(), offer);
    this.generation++;
  }

  playerById(title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<PlayerRow | undefined> {
    return Promise.resolve(this.s.playerById.get(title, platform, normalizeIdentifier(identifier)) as PlayerRow | undefined);
  }

  playerByVanity(title: TitleSlug, platform: PlatformSlug, vanity: string): Promise<PlayerRow | undefined> {
    return Promise.resolve(this.s.playerByVanity.get(title, platform, normalizeIdentifier(vanity)) as PlayerRow | undefined);
  }

  playersByHandlePrefix(title: TitleSlug, platform: PlatformSlug, prefix: string, limit: number): Promise<PlayerRow[]> {
    const p = normalizeIdentifier(prefix);
    return Promise.resolve(this.s.playersByPrefix.all(title, platform, p, p + MAX_CHAR, limit) as PlayerRow[]);
  }

  aggregateRows(title: TitleSlug, platform: PlatformSlug, player: string, dimension: SegmentDimension, filter: MatchFilter): Promise<AggregateRow[]> {
    const { sql, args } = aggregateSql(title, platform, player, dimension, filter, () => '?');
    return Promise.resolve(this.statement(sql).all(...args) as AggregateRow[]);
  }

  private statement(sql: string): Database.Statement {
    let statement = this.aggregateStatements.get(sql);
    if (!statement) this.aggregateStatements.set(sql, (statement = this.db.prepare(sql).raw()));
    return statement;
  }

  keyCounts(player: PlayerRow, column: 'map' | 'mode' | 'playlist' | 'legend' | 'hero'): Promise<Map<string, number>> {
    return Promise.resolve(new Map(Object.entries(this.playerKeys(player)[column])));
  }

  playerSummary(player: PlayerRow): Promise<PlayerSummary> {
    return Promise.resolve(summaryOfKeys(this.playerKeys(player)));
  }

  /**
   * What a player's matches hold, from the cache in player_totals, or from one pass over their rows
   * (kept there for the next time): a busy player's rows are each a look-up in the row table, and a
   * profile should read one value.
   */
  private playerKeys(player: PlayerRow): PlayerKeys {
    const key = [player.title, player.platform, player.id_norm] as const;
    const cached = this.s.keysOfPlayer.get(...key) as string | null | undefined;
    if (typeof cached === 'string') return JSON.parse(cached) as PlayerKeys;
    const keys = keysOfRows(this.s.keyRows.all(...key) as KeyRow[]);
    // No totals (no match, or an import under way that has not written them yet): nothing to keep.
    if (cached === null) this.keepKeys(JSON.stringify(keys), key);
    return keys;
  }

  /**
   * Keeps a player's keys if the file can be written at once. A lookup does not wait on another
   * process's write (an import into the same file, which holds its lock for a whole batch): the busy
   * timeout would hold the event loop for up to 5 s; the keys are read from the rows again next time.
   */
  private keepKeys(json: string, key: readonly [string, string, string]): void {
    this.db.pragma('busy_timeout = 0');
    try {
      this.s.putKeys.run(json, ...key);
    } catch (err) {
      if (!(err instanceof Database.SqliteError && /^SQLITE_BUSY/.test(err.code))) throw err;
    } finally {
      this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  timeline(player: PlayerRow): Promise<{ match_id: string; started_at: number; duration_s: number }[]> {
    return Promise.resolve(
      this.s.timeline.all(player.title, player.platform, player.id_norm) as { match_id: string; started_at: number; duration_s: number }[],
    );
  }

  matchRowsSince(player: PlayerRow, since: number): Promise<MatchRow[]> {
    return Promise.resolve(this.s.rowsSince.all(player.title, player.platform, player.id_norm, since) as MatchRow[]);
  }

  ratings(player: PlayerRow, key: string): Promise<{ season: number | null; rating: number }[]> {
    const rows = this.s.ratings.all(`$."${key}"`, player.title, player.platform, player.id_norm) as { season: number | null; rating: unknown }[];
    return Promise.resolve(rows.filter((r): r is { season: number | null; rating: number } => typeof r.rating === 'number' && Number.isFinite(r.rating)));
  }

  matchPage(player: PlayerRow, limit: number, before?: { startedAt: number; matchId: string }): Promise<MatchRow[]> {
    const key = [player.title, player.platform, player.id_norm] as const;
    return Promise.resolve(
      (before ? this.s.newestFirstBefore.all(...key, before.startedAt, before.matchId, limit) : this.s.newestFirst.all(...key, limit)) as MatchRow[],
    );
  }

  match(title: TitleSlug, id: string): Promise<{ match: StoredMatch; players: StoredMatchPlayer[] } | undefined> {
    const row = this.s.match.get(title, id) as (StoredMatch & { players: string }) | undefined;
    if (!row) return Promise.resolve(undefined);
    const { players, ...match } = row;
    const listed = JSON.parse(players) as [string, string][];
    const rows = listed.map(([platform, player]) => this.s.participant.get(title, platform, player, match.started_at, id) as ParticipantRow | undefined);
    return Promise.resolve({ match, players: orderParticipants(rows) });
  }

  totalsOf(player: PlayerRow): Promise<Record<string, number>> {
    const row = this.s.totalsOfPlayer.get(player.title, player.platform, player.id_norm) as { totals: string } | undefined;
    return Promise.resolve(row ? storedValues(row.totals) : {});
  }

  places(title: TitleSlug, values: Record<string, number>): Promise<Map<string, Place>> {
    const places = new Map<string, Place>();
    for (const key in values) {
      const value = values[key] ?? 0;
      const chunk = this.s.rankChunk.get(title, key, value) as { below: number; population: number; data: Buffer } | undefined;
      if (chunk) places.set(key, placeInChunk(chunk, value));
    }
    return Promise.resolve(places);
  }

  counts(): Promise<{ players: number; matches: number }> {
    return Promise.resolve(this.s.counts.get() as { players: number; matches: number });
  }

  getMeta(key: string): Promise<string | undefined> {
    return Promise.resolve(this.s.getMeta.get(key) as string | undefined);
  }

  setMeta(key: string, value: string): Promise<void> {
    this.s.setMeta.run(key, value);
    return Promise.resolve();
  }

  sql(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
    const statement = this.db.prepare(text);
    if (!statement.reader) {
      statement.run(...params);
      return Promise.resolve([]);
    }
    return Promise.resolve(statement.all(...params) as Record<string, unknown>[]);
  }

  hotPlans(): Promise<{ name: string; plan: string }[]> {
    const plans = Object.entries(HOT).map(([name, sql]) => {
      const args = sql.split('?').length - 1;
      const rows = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array.from({ length: args }, () => 'x')) as { detail: string }[];
      return { name, plan: rows.map((r) => r.detail).join('\n') };
    });
    return Promise.resolve(plans);
  }
}

/** The aggregation statement of a dimension and filter, with the store's placeholder style and its way to read a JSON column as text. */
export function aggregateSql(
  title: TitleSlug,
  platform: PlatformSlug,
  player: string,
  dimension: SegmentDimension,
  filter: MatchFilter,
  p: (i: number) => string,
  asText: (column: string) => string = (column) => column,
): { sql: string; args: (string | number)[] } {
  const key = dimension === 'overview' ? "''" : dimension === 'weapon' ? 'NULL' : dimension;
  const json = asText(dimension === 'weapon' ? 'weapons' : 'stats');
  const args: (string | number)[] = [title, platform, player];
  let where = `title = ${p(1)} AND platform = ${p(2)} AND player = ${p(3)}`;
  if (filter.queue !== undefined) {
    args.push(filter.queue);
    where += ` AND queue = ${p(args.length)}`;
  }
  if (filter.season !== undefined) {
    args.push(filter.season);
    where += ` AND season = ${p(args.length)}`;
  }
  // Oldest first: a rating is the newest match's (src/service/aggregate.ts).
  return { sql: `SELECT result, duration_s, ${key}, ${json} FROM match_players WHERE ${where} ORDER BY started_at, match_id`, args };
}

export function keyCountsSql(column: 'map' | 'mode' | 'playlist' | 'legend' | 'hero', p: (i: number) => string): string {
  return `SELECT ${column}, COUNT(*) FROM match_players WHERE title = ${p(1)} AND platform = ${p(2)} AND player = ${p(3)} AND ${column} IS NOT NULL GROUP BY ${column}`;
}

/** What a player's matches hold: how many had each map, mode, ..., and how many had weapons. */
export interface PlayerKeys {
  map: Record<string, number>;
  mode: Record<string, number>;
  playlist: Record<string, number>;
  legend: Record<string, number>;
  hero: Record<string, number>;
  queue: Record<string, number>;
  season: Record<string, number>;
  weapons: number;
}

/** A row of HOT.keyRows: map, mode, playlist, legend, hero, queue, season, has weapons, count. */
type KeyRow = [string | null, string | null, string | null, string | null, string | null, string | null, number | null, number, number];

const KEY_COLUMNS = ['map', 'mode', 'playlist', 'legend', 'hero', 'queue', 'season'] as const;

export function keysOfRows(rows: readonly KeyRow[]): PlayerKeys {
  // Counted in maps: a map named "constructor" or "__proto__" is a name like any other.
  const counts = KEY_COLUMNS.map(() => new Map<string, number>());
  let weapons = 0;
  for (const row of rows) {
    const n = row[8];
    counts.forEach((count, i) => {
      const value = row[i];
      if (value !== null && value !== undefined) count.set(String(value), (count.get(String(value)) ?? 0) + n);
    });
    if (row[7]) weapons += n;
  }
  const [map, mode, playlist, legend, hero, queue, season] = counts.map((count) => Object.fromEntries(count));
  return { map: map!, mode: mode!, playlist: playlist!, legend: legend!, hero: hero!, queue: queue!, season: season!, weapons };
}

export function summaryOfKeys(keys: PlayerKeys): PlayerSummary {
  const distinct = (column: keyof PlayerKeys & (typeof KEY_COLUMNS)[number]) => Object.keys(keys[column]).length;
  return {
    distinct: { map: distinct('map'), mode: distinct('mode'), playlist: distinct('playlist'), legend: distinct('legend'), hero: distinct('hero') },
    hasWeapons: keys.weapons > 0,
    queues: Object.keys(keys.queue).sort(),
    seasons: Object.keys(keys.season)
      .map(Number)
      .sort((x, y) => x - y),
  };
}

type ParticipantRow = StoredMatchPlayer & { handle_norm: string | null };

const nullsFirst = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1);

/** A match's players by team, then handle: the order both stores answer in. */
export function orderParticipants(rows: (ParticipantRow | undefined)[]): StoredMatchPlayer[] {
  return rows
    .filter((r): r is ParticipantRow => r !== undefined)
    .sort((a, b) => nullsFirst(a.team, b.team) || nullsFirst(a.handle_norm, b.handle_norm))
    .map(({ handle_norm: _, ...row }) => row);
}

export interface SummaryRow {
  maps: number;
  modes: number;
  playlists: number;
  legends: number;
  heroes: number;
  weapons: number;
  queues: string | null;
  seasons: string | null;
}

export function summaryOf(r: SummaryRow): PlayerSummary {
  return {
    distinct: { map: Number(r.maps), mode: Number(r.modes), playlist: Number(r.playlists), legend: Number(r.legends), hero: Number(r.heroes) },
    hasWeapons: Number(r.weapons) > 0,
    queues: r.queues ? r.queues.split(',').sort() : [],
    seasons: r.seasons
      ? r.seasons
          .split(',')
          .map(Number)
          .sort((x, y) => x - y)
      : [],
  };
}
