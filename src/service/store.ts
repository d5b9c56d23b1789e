// The service's SQLite store (better-sqlite3, prepared statements only), the embedded default.
// Match rows are kept in arrival order and found by (title, platform, player, time) through their
// index, so that everything about one player is one index range; overview totals and rank material
// are kept up to date by the import (src/service/totals.ts, src/service/ranks.ts), so an import
// costs what it imports and the first profile after a start reads no population.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

import type { PlatformSlug, SegmentDimension, TitleSlug } from '../catalog/index.js';
import type { AggregateRow, MatchRow } from './aggregate.js';
import type { MatchRecord, PlayerRecord } from './dataset.js';
import { normalizeIdentifier } from './identifiers.js';
import { addValues, buildRankChunks, placeInChunk } from './ranks.js';
import type { MatchFilter, Place, PlayerRow, PlayerSummary, Store, StoredMatch, StoredMatchPlayer } from './store-api.js';
import { keysText, matchDigest, prepareMatch, type PreparedMatch } from './prepared.js';
import { TotalsDeltas, storedValues, type DeltasExport, type TotalsRow } from './totals.js';

export type { MatchFilter, Place, PlayerRow, PlayerSummary, Store, StoredMatch, StoredMatchPlayer } from './store-api.js';
export { matchColumns, matchDigest, textDigest } from './prepared.js';

const ROW_TABLE_COLUMNS = `
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL,
  started_at INTEGER NOT NULL, match_id TEXT NOT NULL,
  duration_s INTEGER NOT NULL, team TEXT, result TEXT, hero TEXT, legend TEXT,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER,
  stats BLOB NOT NULL, weapons BLOB`;

/** How long a statement waits for another connection's write lock before it fails. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * The key of matches, a table an import appends to (its index is built at the end of a bulk load).
 * Every look-up gives both columns; the id comes first because it tells most keys apart, and the
 * sort that builds the index compares the first column alone whenever it differs.
 */
const MATCH_INDEX = 'CREATE UNIQUE INDEX IF NOT EXISTS matches_by_id ON matches (id, title)';
/**
 * The key of match rows, likewise: a player's rows in time order. It carries the duration too, so
 * that a player's timeline (the sessions' cut, every match of the player) is read from the index
 * alone: through the table, the busiest player's 91,000 rows took three times as long. The player
 * comes first for the same reason as a match's id: every look-up gives player, title and platform,
 * and the sort that builds the index then ends most comparisons at the first column.
 */
const ROW_INDEX = 'CREATE UNIQUE INDEX IF NOT EXISTS match_players_by_player ON match_players (player, title, platform, started_at, match_id, duration_s)';
/** The rows in the order of ROW_INDEX, by their position in the table. */
const ROW_INDEX_ORDER = 'ORDER BY 3, 1, 2, 4, 5';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS players (
  title TEXT NOT NULL, platform TEXT NOT NULL, id_norm TEXT NOT NULL,
  id TEXT NOT NULL, handle TEXT NOT NULL, handle_norm TEXT NOT NULL,
  avatar_url TEXT, vanity TEXT, vanity_norm TEXT, private INTEGER NOT NULL DEFAULT 0,
  declared INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (title, platform, id_norm)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS players_by_handle ON players (title, platform, handle_norm);
CREATE INDEX IF NOT EXISTS players_by_vanity ON players (title, platform, vanity_norm) WHERE vanity_norm IS NOT NULL;

-- Matches in arrival order, found through their index by (title, id): a dataset's ids need not
-- come in key order, and inserting each into its place cost a bulk load more than an append and
-- one sort of the keys at its end.
CREATE TABLE IF NOT EXISTS matches (
  title TEXT NOT NULL, id TEXT NOT NULL, platform TEXT NOT NULL,
  started_at INTEGER NOT NULL, duration_s INTEGER NOT NULL,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER,
  players TEXT NOT NULL DEFAULT '[]', digest TEXT NOT NULL DEFAULT ''
);

-- Match rows in arrival order, found through their index by player (ROW_INDEX). A bulk load appends
-- them and builds the index once at its end: the ten million rows of a million matches cost 10 to 11
-- s to index where sorting them whole into a table clustered by player (the layout before) took 23
-- to 27 s; a player's rows are then read one look-up each instead of one range.
CREATE TABLE IF NOT EXISTS match_players (${ROW_TABLE_COLUMNS});

-- An import into a store that holds data stages its new rows here in arrival order (a cheap append,
-- while the parse workers read on), and they join match_players in key order at the end, so its
-- index is written in order.
CREATE TABLE IF NOT EXISTS match_rows_stage (${ROW_TABLE_COLUMNS});

-- keys: what the player's matches hold (PlayerKeys), read from the rows when first asked for and
-- kept until the player's totals change (writing them leaves it NULL).
CREATE TABLE IF NOT EXISTS player_totals (
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL, totals TEXT NOT NULL, keys TEXT,
  PRIMARY KEY (title, platform, player)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS rank_chunks (
  title TEXT NOT NULL, key TEXT NOT NULL, lo REAL NOT NULL,
  below INTEGER NOT NULL, population INTEGER NOT NULL, data BLOB NOT NULL,
  PRIMARY KEY (title, key, lo)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
`;

/** A JSON column of the rows (stats, weapons) read as text: stored as JSONB (stageSql), or as text by a file of before. */
const jsonText = (column: string): string => `json(${column}) AS ${column}`;
const STATS_TEXT = jsonText('stats');
const WEAPONS_TEXT = jsonText('weapons');
const ROW_COLUMNS = `match_id, started_at, duration_s, result, hero, legend, map, mode, playlist, queue, season, ${STATS_TEXT}, ${WEAPONS_TEXT}`;

/** The highest code point: `prefix + MAX_CHAR` bounds every string that starts with `prefix`. */
export const MAX_CHAR = '\u{10FFFF}';

/**
 * Players whose totals changes are held in memory before they are written, in an import into a
 * store that holds data: about 300 bytes each, so ~90 MB at most, and a million-match import (half
 * a million players) writes them two or three times rather than thirty. A bulk load (a fresh file)
 * holds them all and writes each player's totals once, at its end.
 */
export const TOTALS_FLUSH_PLAYERS = 300_000;
/** Matches staged before their rows join the table (bounds the import's memory). */
export const STAGE_LIMIT = 2_000_000;
/** Players an import remembers having given a record (StatsStore.recorded): about 60 bytes each. */
const RECORDED_PLAYERS = 2_000_000;
/**
 * Matches whose rows one statement stages. A multi-row statement inside a transaction first copies
 * each page it changes that was there before it (SQLite's statement journal): with one statement a
 * match, the stage's last page (16 KB) was copied once a match, and once a statement's copies
 * outgrew 64 KiB the journal was a temporary file: about 15 GiB written in a million-match import.
 * Sixteen matches a statement: 5.2 GiB written by the whole import until its last batch instead of
 * 20.4, and the writer's thread 7.47 to 7.63 CPU seconds for 200,000 prepared matches against 8.15
 * to 8.43.
 */
const STAGE_MATCHES_A_STATEMENT = 16;
/** The values a match's rows are staged with (title, start, id, duration, map, mode, playlist, queue, season, rows). */
const STAGE_VALUES = 10;

/**
 * The statement staging the rows of `matches` matches, their STAGE_VALUES values one after the
 * other. A match's rows are taken from their JSON by SQLite (src/service/prepared.ts): binding 17
 * values a row from here cost more. The rows come as JSON text, or as JSONB (the parse workers'),
 * which SQLite walks without parsing. A row's stats and weapons are kept as the JSONB they are
 * there (read back as text: STATS_TEXT): rendered as text, the rows of 20,000 matches took 13.3 to
 * 14.4 µs a match to write, against 11.0 to 11.5, and their stats and weapons 19 % more bytes.
 */
const stageSql = (matches: number, table: 'match_rows_stage' | 'match_players'): string => `INSERT INTO ${table}
  SELECT m.column1, r.value ->> 0, r.value ->> 1, m.column2, m.column3, m.column4, r.value ->> 2, r.value ->> 3, r.value ->> 4,
    r.value ->> 5, m.column5, m.column6, m.column7, m.column8, m.column9, jsonb_extract(r.value, '$[6]'), jsonb_extract(r.value, '$[7]')
  FROM (VALUES ${Array.from({ length: matches }, () => `(${Array(STAGE_VALUES).fill('?').join(', ')})`).join(', ')}) m,
    jsonb_each(m.column10) r`;

/** Page cache while a fresh file is bulk loaded (the totals use it), in KiB. */
const BULK_CACHE_KIB = 262_144;
/**
 * Page cache while a bulk load sorts (the staged rows into match_players, the index of matches), in
 * KiB: it bounds SQLite's sorter, which then sorts runs that fit the CPU's caches on its helper
 * threads and merges them. The rows of 100,000 matches took 2.6 to 2.8 s with 4 MB, 6.4 s with the
 * bulk load's 256 MB (one run sorted in memory), 3 s with 16 MB.
 */
const SORT_CACHE_KIB = 4_096;

/** The hot statements by name, for the plan test: each must find its rows through an index. */
const HOT = {
  playerById: 'SELECT * FROM players WHERE title = ? AND platform = ? AND id_norm = ?',
  playerByVanity: 'SELECT * FROM players INDEXED BY players_by_vanity WHERE title = ? AND platform = ? AND vanity_norm = ? LIMIT 1',
  playersByPrefix: `SELECT * FROM players INDEXED BY players_by_handle WHERE title = ? AND platform = ? AND handle_norm >= ? AND handle_norm < ?
    ORDER BY handle_norm, id_norm LIMIT ?`,
  timeline: 'SELECT match_id, started_at, duration_s FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at, match_id',
  rowsSince: `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND started_at >= ? ORDER BY started_at, match_id`,
  ratings: `SELECT season, json_extract(stats, ?) AS rating FROM match_players WHERE title = ? AND platform = ? AND player = ?
    ORDER BY started_at DESC, match_id DESC`,
  newestFirst: `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at DESC, match_id DESC LIMIT ?`,
  newestFirstBefore: `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND (started_at, match_id) < (?, ?)
    ORDER BY started_at DESC, match_id DESC LIMIT ?`,
  match: 'SELECT title, id, platform, started_at, duration_s, map, mode, playlist, queue, season FROM matches WHERE title = ? AND id = ?',
  keyRows: `SELECT map, mode, playlist, legend, hero, queue, season, weapons IS NOT NULL, COUNT(*)
    FROM match_players WHERE title = ? AND platform = ? AND player = ? GROUP BY 1, 2, 3, 4, 5, 6, 7, 8`,
  keysOfPlayer: 'SELECT keys FROM player_totals WHERE title = ? AND platform = ? AND player = ?',
  // A match lists its players, so each of its rows is read by its whole key: no index by match to
  // maintain at import, and no walk of the title (which the planner once chose without statistics).
  participant: `SELECT ${ROW_COLUMNS}, mp.platform AS platform, mp.player AS player, mp.team AS team, p.handle AS handle, p.id AS player_id,
      p.private AS private, p.handle_norm AS handle_norm
    FROM match_players mp LEFT JOIN players p ON p.title = mp.title AND p.platform = mp.platform AND p.id_norm = mp.player
    WHERE mp.title = ? AND mp.platform = ? AND mp.player = ? AND mp.started_at = ? AND mp.match_id = ?`,
  matchPlayers: 'SELECT started_at, players, digest FROM matches WHERE title = ? AND id = ?',
  totalsOfPlayer: 'SELECT totals FROM player_totals WHERE title = ? AND platform = ? AND player = ?',
  rankChunk: 'SELECT below, population, data FROM rank_chunks WHERE title = ? AND key = ? AND lo <= ? ORDER BY lo DESC LIMIT 1',
  oldParticipant: `SELECT result, duration_s, ${STATS_TEXT} FROM match_players
    WHERE title = ? AND platform = ? AND player = ? AND started_at = ? AND match_id = ?`,
} as const;

/** The steps of an import timed apart (StatsStore.importSteps). */
export type ImportStep = 'sorts' | 'totals' | 'ranks' | 'statistics';

export class StatsStore implements Store {
  readonly kind = 'sqlite';
  readonly db: Database.Database;
  /** Bumped by every import; caches derived from the data key on it. */
  generation = 0;
  private readonly s;
  private readonly aggregateStatements = new Map<string, Database.Statement>();
  private readonly deltas = new TotalsDeltas();
  private readonly touchedTitles = new Set<string>();
  /** Matches whose rows are staged (title and id). */
  private readonly staged = new Set<string>();
  /** During a bulk load, every match written so far (title and id): any other is not stored yet. */
  private readonly written = new Set<string>();
  /**
   * Players the import under way has given a record (title, platform and normalised id): an
   * implicit record for any of them is not asked of SQLite again. Each parse worker asks once for
   * each player it meets, and a look-up in the players' key cost 4 to 5 µs where it found the player
   * (a million-match import: a million look-ups, every one of them finding a declared player).
   * This costs less but not nothing: a 200,000-match import's 285,000 calls of `record` took 579
   * ms of the writer's time (CPU profile), the 185,000 asks it saved 997 ms. Forgotten when it
   * reaches RECORDED_PLAYERS: SQLite is asked again then.
   */
  private readonly recorded = new Map<string, Map<string, Set<string>>>();
  private recordedCount = 0;
  /** Between an import's first batch and its finishImport. */
  private importing = false;
  /** The file's rows are clustered by their key (a layout before): nothing is bulk loaded into it. */
  private readonly clustered: boolean;
  /** The import is a bulk load into a fresh file (see beginImport). */
  private bulk = false;
  /** During a bulk load: the indexes of matches and of their rows are built (they are dropped at its start, see beginImport). */
  private indexed = true;
  /**
   * During a bulk load: some players' totals are written. The first drain found nothing stored and
   * left each title's values in `rankLists`, so that the ranks are built from them rather than from
   * the totals read back; a later drain leaves none (see flushTotals).
   */
  private bulkDrained = false;
  private rankLists: Map<string, Map<string, number[]>> | undefined;
  /**
   * Milliseconds the import under way (or the last one) has spent so far in each of the steps that
   * are not writing its batches: the sorts into the tables (most of them at its end), the players'
   * totals, the rank material and the planner's statistics. `npm run bench:scale` prints them.
   */
  readonly importSteps = new Map<ImportStep, number>();

  constructor(path = ':memory:') {
    // A store in a folder that does not exist yet (`.data/` in a fresh clone) makes it.
    if (path !== ':memory:' && path !== '') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    // Pages of 16 KB in a new file (a file keeps the size it was made with): a bulk load's sort (of the
    // layout before) wrote the million-match row table in 20 s instead of 28 to 33 with SQLite's default 4 KB.
    this.db.pragma('page_size = 16384');
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    // 64 MB of page cache: an import into a store that holds data writes rows all over the index of rows.
    this.db.pragma('cache_size = -65536');
    // Checkpoints (each one a sync to disk) every 64 MB of log rather than every 4 MB: an import
    // writes a lot between them, and a reader's view is the same either way.
    this.db.pragma('wal_autocheckpoint = 16384');
    this.db.exec(SCHEMA);
    const db = this.db;
    // A file of a layout before (matches or rows clustered by their key, WITHOUT ROWID) needs no
    // index; it is imported again (STORE_LAYOUT) rather than changed here.
    const schemaSql = (name: string) => db.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name) as string | undefined;
    const clustered = (table: string) => /WITHOUT ROWID/i.test(String(schemaSql(table)));
    // A file whose indexes have their columns in the order of before (title first): built again,
    // once, in one transaction (a million matches' rows: about 10 s). A file another process is
    // writing (building them too, or importing) keeps the old index until a later open: it gives
    // the same answers, only its sort costs more.
    const stale = (
      [
        ['matches_by_id', MATCH_INDEX],
        ['match_players_by_player', ROW_INDEX],
      ] as const
    ).filter(([name, sql]) => {
      const now = schemaSql(name);
      return now !== undefined && now !== sql.replace('IF NOT EXISTS ', '');
    });
    try {
      if (stale.length > 0) db.transaction(() => db.exec(stale.map(([name, sql]) => `DROP INDEX ${name}; ${sql}`).join('; '))).immediate();
    } catch (err) {
      if (!(err instanceof Database.SqliteError && /^SQLITE_BUSY/.test(err.code))) throw err;
    }
    if (!clustered('matches')) db.exec(MATCH_INDEX);
    this.clustered = clustered('match_players');
    if (!this.clustered) db.exec(ROW_INDEX);
    const hot = Object.fromEntries(Object.entries(HOT).map(([k, sql]) => [k, db.prepare(sql)])) as Record<keyof typeof HOT, Database.Statement>;
    // A file of layout 4 or before has no cache of players' keys.
    if (!(db.pragma('table_info(player_totals)') as { name: string }[]).some((c) => c.name === 'keys'))
      db.exec('ALTER TABLE player_totals ADD COLUMN keys TEXT');
    this.s = {
      ...hot,
      keyRows: hot.keyRows.raw(),
      keysOfPlayer: hot.keysOfPlayer.pluck(),
      putKeys: db.prepare('UPDATE player_totals SET keys = ? WHERE title = ? AND platform = ? AND player = ?'),
      // Before staged rows join the table: their players' keys are read again when next asked for.
      forgetStagedKeys: db.prepare(`UPDATE player_totals SET keys = NULL
        WHERE keys IS NOT NULL AND (title, platform, player) IN (SELECT title, platform, player FROM match_rows_stage)`),
      upsertPlayer: db.prepare(`
        INSERT INTO players (title, platform, id_norm, id, handle, handle_norm, avatar_url, vanity, vanity_norm, private, declared)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
        ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle,
          handle_norm = excluded.handle_norm, avatar_url = excluded.avatar_url, vanity = excluded.vanity,
          vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1`),
      implicitPlayer: db.prepare(`
        INSERT OR IGNORE INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
        VALUES (?, ?, ?, ?, ?, ?, 0)`),
      // By the whole primary key: with only (title, match_id) the planner walks the title's rows.
      deleteParticipant: db.prepare('DELETE FROM match_players WHERE title = ? AND platform = ? AND player = ? AND started_at = ? AND match_id = ?'),
      upsertMatch: db.prepare(`
        INSERT OR REPLACE INTO matches (title, id, platform, started_at, duration_s, map, mode, playlist, queue, season, players, digest)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?)`),
      // One match staged (a batch's last few), and STAGE_MATCHES_A_STATEMENT at once.
      insertStage: db.prepare(stageSql(1, 'match_rows_stage')),
      insertStageMany: db.prepare(stageSql(STAGE_MATCHES_A_STATEMENT, 'match_rows_stage')),
      // A bulk load's rows, straight into the table.
      insertRows: db.prepare(stageSql(1, 'match_players')),
      insertRowsMany: db.prepare(stageSql(STAGE_MATCHES_A_STATEMENT, 'match_players')),
      totalsJson: db.prepare('SELECT totals FROM player_totals WHERE title = ? AND platform = ? AND player = ?').pluck(),
      putTotals: db.prepare('INSERT OR REPLACE INTO player_totals (title, platform, player, totals) VALUES (?, ?, ?, ?)'),
      deleteTotals: db.prepare('DELETE FROM player_totals WHERE title = ? AND platform = ? AND player = ?'),
      totalsOfTitle: db.prepare('SELECT totals FROM player_totals WHERE title = ?').pluck(),
      deleteRankChunks: db.prepare('DELETE FROM rank_chunks WHERE title = ?'),
      insertRankChunk: db.prepare('INSERT INTO rank_chunks (title, key, lo, below, population, data) VALUES (?, ?, ?, ?, ?, ?)'),
      mergeStage: db.prepare(`INSERT INTO match_players SELECT * FROM match_rows_stage ${ROW_INDEX_ORDER}`),
      clearStage: db.prepare('DELETE FROM match_rows_stage'),
      anyData: db.prepare('SELECT EXISTS (SELECT 1 FROM matches) OR EXISTS (SELECT 1 FROM players)').pluck(),
      getMeta: db.prepare('SELECT value FROM meta WHERE key = ?').pluck(),
      setMeta: db.prepare('INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)'),
      counts: db.prepare(`SELECT (SELECT COUNT(*) FROM players) AS players, (SELECT COUNT(*) FROM matches) AS matches`),
    };
    // A file of an earlier layout: its staged rows (only there if an import stopped half-way) join
    // the table, and the old stage goes (rows in one layout, a match a row with JSONB in the next).
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'match_players_stage'").get() !== undefined)
      db.exec(`INSERT OR REPLACE INTO match_players SELECT * FROM match_players_stage ${ROW_INDEX_ORDER};
        DROP TABLE match_players_stage`);
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'match_stage'").get() !== undefined)
      db.exec(`INSERT OR REPLACE INTO match_players
          SELECT s.title, r.value ->> 0, r.value ->> 1, s.started_at, s.id, s.duration_s, r.value ->> 2, r.value ->> 3, r.value ->> 4,
            r.value ->> 5, s.map, s.mode, s.playlist, s.queue, s.season, r.value ->> 6, r.value ->> 7
          FROM match_stage s, jsonb_each(s.rows) r ${ROW_INDEX_ORDER};
        DROP TABLE match_stage`);
    if (this.s.getMeta.get('bulk-load') !== undefined) {
      this.db.close();
      throw new Error(`${path}: an import into this new file stopped half-way (see "At scale" in the README); delete the file and import again`);
    }
    // An import that stopped half-way left totals behind its rows: they are rebuilt from the rows.
    if (this.s.getMeta.get('importing') !== undefined) {
      this.db.transaction(() => this.mergeStage())();
      this.rebuildAllTotals();
    }
  }

  close(): Promise<void> {
    this.db.close();
    return Promise.resolve();
  }

  writeBatch(players: readonly PlayerRecord[], matches: readonly MatchRecord[], digests?: readonly string[]): Promise<void> {
    const prepared = matches.map((m, n) => prepareMatch(m, digests?.[n] ?? matchDigest(m), this.deltas));
    this.writePrepared(players, prepared);
    if (!this.bulk && this.deltas.size >= TOTALS_FLUSH_PLAYERS) this.db.transaction(() => this.flushTotals())();
    return Promise.resolve();
  }

  /**
   * Writes player records and prepared matches (src/service/prepared.ts) whose rows are already in
   * the totals deltas (this store's, or a parse worker's given to absorbTotals): a match stored
   * as it is has its rows taken out of the deltas again and is skipped; a changed one replaces
   * the stored one, whose rows leave the totals first.
   */
  writePrepared(players: readonly PlayerRecord[], matches: readonly PreparedMatch[]): void {
    const s = this.s;
    const deltas = this.deltas;
    if (!this.importing) this.beginImport();
    // Matches to stage, STAGE_VALUES values each, staged STAGE_MATCHES_A_STATEMENT at a time: a bulk
    // load's into the table itself, another import's into the stage.
    const [one, many] = this.bulk ? [s.insertRows, s.insertRowsMany] : [s.insertStage, s.insertStageMany];
    const pending: unknown[] = [];
    const stagePending = () => {
      for (let i = 0; i < pending.length; i += STAGE_VALUES) one.run(pending.slice(i, i + STAGE_VALUES));
      pending.length = 0;
    };
    const write = this.db.transaction(() => {
      s.setMeta.run('importing', '1');
      for (const p of players) {
        const player = normalizeIdentifier(p.id);
        this.record(p.title, p.platform, player);
        s.upsertPlayer.run(
          p.title,
          p.platform,
          player,
          p.id,
          p.handle,
          normalizeIdentifier(p.handle),
          p.avatarUrl ?? null,
          p.vanity ?? null,
          p.vanity ? normalizeIdentifier(p.vanity) : null,
          p.private ? 1 : 0,
        );
      }
      for (const m of matches) {
        const [title, id, platform, startedAt, duration, map, mode, playlist, queue, season, keys, digest, rows, implicit] = m;
        const key = `${title}\u0000${id}`;
        // Into a fresh file a match this import has not written cannot be stored yet: no look-up.
        // A match twice in one file (rare): the indexes are built now, for this look-up and the
        // old rows' (with its rows still pending written first).
        const again = this.bulk && this.writtenBefore(key);
        if (again && !this.indexed) {
          stagePending();
          this.buildIndexes();
        }
        const stored = this.bulk && !again ? undefined : (s.matchPlayers.get(title, id) as { started_at: number; players: string; digest: string } | undefined);
        if (stored) {
          // Its rows may still be pending (a bulk load's) or staged (another import's): they join
          // the table first, to be read or taken out by key.
          if (this.bulk) stagePending();
          else if (this.staged.has(key)) {
            stagePending();
            this.mergeStage();
          }
          const same = stored.digest === digest;
          for (const [pf, player] of JSON.parse(same ? keysText(keys) : stored.players) as [string, string][]) {
            const old = s.oldParticipant.get(title, pf, player, stored.started_at, id) as TotalsRow | undefined;
            if (!old) continue;
            if (!same) s.deleteParticipant.run(title, pf, player, stored.started_at, id);
            deltas.add(title, pf, player, old, -1);
          }
          if (same) continue;
        }
        this.touchedTitles.add(title);
        if (!this.bulk) this.staged.add(key);
        s.upsertMatch.run(title, id, platform, startedAt, duration, map, mode, playlist, queue, season, keys, digest);
        for (let i = 0; i + 2 < implicit.length; i += 3) {
          const player = implicit[i + 1] as string;
          const pf = implicit[i] as string;
          if (this.record(title, pf, player)) s.implicitPlayer.run(title, pf, player, implicit[i + 2], implicit[i + 2], player);
        }
        pending.push(title, startedAt, id, duration, map, mode, playlist, queue, season, rows);
        if (pending.length === STAGE_MATCHES_A_STATEMENT * STAGE_VALUES) {
          many.run(pending);
          pending.length = 0;
        }
      }
      stagePending();
      if (this.staged.size >= STAGE_LIMIT) this.mergeStage();
    });
    try {
      write();
    } catch (err) {
      // The records this batch gave are rolled back with it.
      this.forgetRecorded();
      throw err;
    }
  }

  /**
   * Whether the import under way, or the next one, is a bulk load into a fresh file (see
   * beginImport): its totals are then held until its end, each player's written once.
   */
  bulkLoads(): boolean {
    return this.importing ? this.bulk : !this.db.memory && !this.clustered && this.s.anyData.get() === 0;
  }

  /**
   * Remembers that a player has a record now: false when the import under way gave them one
   * already. By title and platform, then player: a key joined into one string cost twice as much
   * (1.4 to 1.9 µs against 0.7 to 0.8 a call, a script with 450,000 players).
   */
  private record(title: string, platform: string, player: string): boolean {
    let platforms = this.recorded.get(title);
    if (!platforms) this.recorded.set(title, (platforms = new Map<string, Set<string>>()));
    let players = platforms.get(platform);
    if (!players) platforms.set(platform, (players = new Set<string>()));
    if (players.has(player)) return false;
    if (this.recordedCount >= RECORDED_PLAYERS) this.forgetRecorded();
    players.add(player);
    this.recordedCount++;
    return true;
  }

  private forgetRecorded(): void {
    for (const platforms of this.recorded.values()) for (const players of platforms.values()) players.clear();
    this.recordedCount = 0;
  }

  /** Whether the bulk load under way wrote this match (its title and id) before; it is remembered as written now. */
  private writtenBefore(key: string): boolean {
    // One look-up, not a look-up and an add: a million in a million-match load.
    const size = this.written.size;
    this.written.add(key);
    return this.written.size === size;
  }

  /** Writes parse workers' totals deltas (for matches already written) with this store's own, each player's summed across them. */
  absorbTotals(xs: readonly DeltasExport[]): void {
    this.db.transaction(() => this.flushTotals(xs))();
  }

  /**
   * Every row of the import under way is written (only totals are to come): its rows' work is done
   * now, the staged rows joining the table, a bulk load's indexes built. A file import's parse
   * workers put their totals in key order meanwhile (1 to 2 s of a million-match load).
   */
  rowsWritten(): void {
    this.db.transaction(() => this.finishRows())();
  }

  /** The rows' work at an import's end: the staged rows join the table, a bulk load's indexes are built (nothing when done already). */
  private finishRows(): void {
    this.mergeStage();
    if (!this.indexed) this.buildIndexes();
  }

  /** Moves the staged rows into match_players in key order. */
  private mergeStage(): void {
    this.s.forgetStagedKeys.run();
    this.sorting(() => this.s.mergeStage.run());
    this.s.clearStage.run();
    this.staged.clear();
  }

  /** Builds the indexes of matches and of their rows, dropped for a bulk load: one sort of the keys each. */
  private buildIndexes(): void {
    this.sorting(() => this.db.exec(`${MATCH_INDEX}; ${ROW_INDEX}`));
    this.indexed = true;
  }

  /** Runs a large sort; in a bulk load with the small page cache that suits SQLite's sorter (SORT_CACHE_KIB). */
  private sorting(sort: () => void): void {
    this.step('sorts', () => {
      if (!this.bulk) return sort();
      this.db.pragma(`cache_size = -${SORT_CACHE_KIB}`);
      sort();
      this.db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
    });
  }

  /** Runs `f`, its time added to `step` in importSteps. */
  private step<T>(step: ImportStep, f: () => T): T {
    const started = performance.now();
    try {
      return f();
    } finally {
      this.importSteps.set(step, (this.importSteps.get(step) ?? 0) + performance.now() - started);
    }
  }

  /**
   * Writes the held totals deltas. A bulk load's first drain knows nothing is stored (the file was
   * empty): it looks nothing up, and it keeps each player's values for the ranks (a million-match
   * load read its half a million totals back and parsed them again, about half of the ranks' 3 s).
   * A later drain in the same load reads what the first wrote, and the ranks are read back instead.
   */
  private flushTotals(more: readonly DeltasExport[] = []): void {
    if (this.deltas.size === 0 && more.every((x) => x.groups.length === 0)) return;
    const fresh = this.bulk && !this.bulkDrained;
    this.bulkDrained = this.bulk;
    const lists = fresh ? new Map<string, Map<string, number[]>>() : undefined;
    this.rankLists = lists;
    this.step('totals', () =>
      this.deltas.drain((title, platform, player, merge, values) => {
        const next = merge(fresh ? undefined : (this.s.totalsJson.get(title, platform, player) as string | undefined));
        if (next === null) this.s.deleteTotals.run(title, platform, player);
        else this.s.putTotals.run(title, platform, player, next);
        if (!lists || next === null) return;
        let byKey = lists.get(title);
        if (!byKey) lists.set(title, (byKey = new Map<string, number[]>()));
        addValues(byKey, values());
      }, more),
    );
  }

  /**
   * The first batch of an import. Into a fresh file (no player, no match), the import is a bulk
   * load: the rollback journal kept in memory rather than the write-ahead log (every page would be
   * written twice), no syncs, a larger page cache, helper threads for the sorts, and the rows
   * written straight into their table with the indexes of matches and rows dropped, to be built once
   * at the end from the appended rows. A crash then
   * leaves a file to delete (the embedded service imports into a new file and only keeps it once
   * whole); finishImport switches back to the write-ahead log.
   */
  private beginImport(): void {
    this.bulk = this.bulkLoads();
    this.importing = true;
    this.importSteps.clear();
    if (!this.bulk) return;
    this.db.pragma('journal_mode = MEMORY');
    this.db.pragma('synchronous = OFF');
    this.db.pragma(`cache_size = -${BULK_CACHE_KIB}`);
    this.db.pragma('threads = 2');
    // The mark makes a file whose load stopped half-way refuse to open.
    this.db.exec('DROP INDEX IF EXISTS matches_by_id; DROP INDEX IF EXISTS match_players_by_player');
    this.indexed = false;
    this.s.setMeta.run('bulk-load', '1');
  }

  finishImport(): Promise<void> {
    this.db.transaction(() => {
      this.finishRows();
      this.flushTotals();
      for (const title of this.touchedTitles) this.step('ranks', () => this.rebuildRanks(title, this.rankLists?.get(title)));
      this.db.prepare("DELETE FROM meta WHERE key IN ('importing', 'bulk-load')").run();
    })();
    this.touchedTitles.clear();
    this.written.clear();
    this.forgetRecorded();
    this.bulkDrained = false;
    this.rankLists = undefined;
    if (this.bulk) {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('cache_size = -65536');
      this.db.pragma('threads = 0');
    }
    this.importing = false;
    this.bulk = false;
    // Planner statistics, sampled: the hot statements' plans must not depend on them, but the rest may.
    this.db.pragma('analysis_limit = 1000');
    this.step('statistics', () => this.db.exec('ANALYZE'));
    this.generation++;
    return Promise.resolve();
  }

  /** Rebuilds one title's rank material from its players' totals (read back, unless a bulk load kept their values: flushTotals). */
  private rebuildRanks(title: string, kept?: Map<string, number[]>): void {
    let byKey = kept;
    if (!byKey) {
      byKey = new Map<string, number[]>();
      for (const json of this.s.totalsOfTitle.iterate(title) as Iterable<string>) addValues(byKey, storedValues(json));
    }
    this.s.deleteRankChunks.run(title);
    for (const c of buildRankChunks(byKey)) this.s.insertRankChunk.run(title, c.key, c.lo, c.below, c.population, c.data);
  }

  /** Every total rebuilt from the match rows: the way back after an import that stopped half-way. */
  rebuildAllTotals(): void {
    this.db.transaction(() => {
      this.db.exec('DELETE FROM player_totals');
      const rows = this.db.prepare(`SELECT title, platform, player, result, duration_s, ${STATS_TEXT} FROM match_players`).iterate() as Iterable<{
        title: string;
        platform: string;
        player: string;
        result: string | null;
        duration_s: number;
        stats: string;
      }>;
      for (const r of rows) {
        this.deltas.add(r.title, r.platform, r.player, r, 1);
        this.touchedTitles.add(r.title);
        if (this.deltas.size >= TOTALS_FLUSH_PLAYERS) this.flushTotals();
      }
    })();
    void this.finishImport();
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
    const { sql, args } = aggregateSql(title, platform, player, dimension, filter, () => '?', jsonText);
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
   * (kept there for the next time): the busiest generated player's 91,000 rows, each a look-up in
   * the row table, take a few hundred milliseconds; a profile then reads one value.
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
    const match = this.s.match.get(title, id) as StoredMatch | undefined;
    if (!match) return Promise.resolve(undefined);
    const listed = JSON.parse((this.s.matchPlayers.get(title, id) as { players: string }).players) as [string, string][];
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
