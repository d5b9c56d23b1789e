// The service's PostgreSQL store (node-postgres): the same tables, answers and import rules as the
// SQLite store, for several service processes on several machines sharing one database. Each
// import batch is one transaction that also brings the totals of its players up to date, so what
// other processes read is always whole; rank material is rebuilt when the import ends, and every
// process notices a new import through the `generation` it polls.
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import type { Logger } from 'pino';

import type { PlatformSlug, SegmentDimension, TitleSlug } from '../catalog/index.js';
import type { AggregateRow, MatchRow } from './aggregate.js';
import { normalizeIdentifier } from './identifiers.js';
import { placeInChunk } from './ranks.js';
import {
  StoreUnavailableError,
  type MatchFilter,
  type Place,
  type PlayerRow,
  type PlayerSummary,
  type Store,
  type StoredMatch,
  type StoredMatchPlayer,
} from './store-api.js';
import { MATCH_COLUMNS, MATCH_DECLARATION, ROW_DECLARATION, STORED_PLAYER_DECLARATION, columnsOf } from './import-stage.js';
import { pgDeclaration, takeStagesPg } from './pg-import.js';
import { INDEXES, MATCH_ROW_COLUMNS, MAX_CHAR, aggregateSql, keyCountsSql, orderParticipants, summaryOf, type SummaryRow } from './store.js';
import { storedValues } from './totals.js';

// Declared in SQLite's words, as the import's declarations are, and read as PostgreSQL takes them (pgDeclaration).
const SCHEMA = pgDeclaration(`
CREATE TABLE IF NOT EXISTS players (${STORED_PLAYER_DECLARATION}, PRIMARY KEY (title, platform, id_norm));
${INDEXES.players_by_handle};
${INDEXES.players_by_vanity};
CREATE TABLE IF NOT EXISTS matches (${MATCH_DECLARATION}, PRIMARY KEY (title, id));
CREATE TABLE IF NOT EXISTS match_players (${ROW_DECLARATION}, PRIMARY KEY (title, platform, player, started_at, match_id));
CREATE TABLE IF NOT EXISTS player_totals (
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL, totals TEXT NOT NULL,
  PRIMARY KEY (title, platform, player)
);
CREATE TABLE IF NOT EXISTS rank_chunks (
  title TEXT NOT NULL, key TEXT NOT NULL, lo DOUBLE PRECISION NOT NULL,
  below INTEGER NOT NULL, population INTEGER NOT NULL, data BYTEA NOT NULL,
  PRIMARY KEY (title, key, lo)
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`);

/** A player record's columns, named: a prepared statement's columns must not change under it (`*` would, with a column added). */
const PLAYER_RECORD_COLUMNS = columnsOf(STORED_PLAYER_DECLARATION);

/** The hot statements by name, for the plan test; each is prepared once a connection under its name (PgStore.rows). */
const HOT = {
  playerById: `SELECT ${PLAYER_RECORD_COLUMNS} FROM players WHERE title = $1 AND platform = $2 AND id_norm = $3`,
  playerByVanity: `SELECT ${PLAYER_RECORD_COLUMNS} FROM players WHERE title = $1 AND platform = $2 AND vanity_norm = $3 LIMIT 1`,
  playersByPrefix: `SELECT ${PLAYER_RECORD_COLUMNS} FROM players WHERE title = $1 AND platform = $2 AND handle_norm >= $3 AND handle_norm < $4
    ORDER BY handle_norm, id_norm LIMIT $5`,
  timeline: 'SELECT match_id, started_at, duration_s FROM match_players WHERE title = $1 AND platform = $2 AND player = $3 ORDER BY started_at, match_id',
  rowsSince: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = $1 AND platform = $2 AND player = $3 AND started_at >= $4 ORDER BY started_at, match_id`,
  // Every row of the player, a match without a rating read as null and left out by the caller: a
  // filter here would read the same rows, and the plan test refuses any.
  ratings: `SELECT season, stats::jsonb -> $4::text AS rating FROM match_players WHERE title = $1 AND platform = $2 AND player = $3
    ORDER BY started_at DESC, match_id DESC`,
  newestFirst: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = $1 AND platform = $2 AND player = $3 ORDER BY started_at DESC, match_id DESC LIMIT $4`,
  newestFirstBefore: `SELECT ${MATCH_ROW_COLUMNS} FROM match_players WHERE title = $1 AND platform = $2 AND player = $3 AND (started_at, match_id) < ($4, $5)
    ORDER BY started_at DESC, match_id DESC LIMIT $6`,
  match: `SELECT ${MATCH_COLUMNS} FROM matches WHERE title = $1 AND id = $2`,
  summary: `SELECT COUNT(DISTINCT map) AS maps, COUNT(DISTINCT mode) AS modes, COUNT(DISTINCT playlist) AS playlists,
      COUNT(DISTINCT legend) AS legends, COUNT(DISTINCT hero) AS heroes, COUNT(weapons) AS weapons,
      string_agg(DISTINCT queue, ',') AS queues, string_agg(DISTINCT season::text, ',') AS seasons
    FROM match_players WHERE title = $1 AND platform = $2 AND player = $3`,
  // Each player's row by its whole key (the OR grows with the match's players): a join against
  // the key list let the planner walk the title's rows by time instead.
  participants: participantsSql(2),
  totalsOfPlayer: 'SELECT totals FROM player_totals WHERE title = $1 AND platform = $2 AND player = $3',
  rankChunks: `SELECT k.key, c.below, c.population, c.data FROM unnest($2::text[], $3::float8[]) AS k(key, value)
    CROSS JOIN LATERAL (SELECT below, population, data FROM rank_chunks WHERE title = $1 AND key = k.key AND lo <= k.value ORDER BY lo DESC LIMIT 1) c`,
} as const;

/**
 * Statement names by text: the hot statements, and a match's participants for up to
 * PREPARED_PARTICIPANTS players. A named statement is parsed and planned once a connection rather
 * than at every call, which about halves a match report's time. Bounded: the names are these and no
 * others.
 */
const PREPARED = new Map<string, string>(Object.entries(HOT).map(([name, sql]) => [sql, name]));
const PREPARED_PARTICIPANTS = 32;

/** A match's rows with the players' records, for `players` players ($1 title, $2 start, $3 match id, then platform and player of each). */
function participantsSql(players: number): string {
  const keys = Array.from({ length: players }, (_, i) => `(mp.platform = $${4 + 2 * i} AND mp.player = $${5 + 2 * i})`).join(' OR ');
  return `SELECT ${MATCH_ROW_COLUMNS.split(', ')
    .map((c) => `mp.${c}`)
    .join(', ')}, mp.platform AS platform, mp.player AS player, mp.team AS team,
      p.handle AS handle, p.id AS player_id, p.private AS private, p.handle_norm AS handle_norm
    FROM match_players mp LEFT JOIN players p ON p.title = mp.title AND p.platform = mp.platform AND p.id_norm = mp.player
    WHERE mp.title = $1 AND mp.started_at = $2 AND mp.match_id = $3 AND (${keys})`;
}
for (let n = 1; n <= PREPARED_PARTICIPANTS; n++) PREPARED.set(participantsSql(n), `participants${n}`);

/** Taken by an import's transaction (its schema appended to the key): importers of one store take turns. */
export const IMPORT_LOCK = 'player-stats import ';
const NEXT_GENERATION = `INSERT INTO meta (key, value) VALUES ('generation', '1')
  ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text`;

/** The tables SCHEMA makes. */
const STORE_TABLES = [...SCHEMA.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/** Every table and index SCHEMA makes: when all exist, a process starts without taking a lock on them. */
const SCHEMA_OBJECTS = [...SCHEMA.matchAll(/CREATE (?:TABLE|INDEX) IF NOT EXISTS (\w+)/g)].map((m) => m[1]);

/**
 * Creating what is missing waits this long for a lock another session holds (an import, a LOCK
 * TABLE), this many times, before the start fails: without it the wait lasts the statement timeout.
 */
const DDL_LOCK_TIMEOUT_MS = 2_000;
const DDL_ATTEMPTS = 3;

/** How often a process looks whether another one has imported. */
const GENERATION_POLL_MS = 2_000;

export interface PgStoreOptions {
  /** A postgres:// URL. */
  url: string;
  /** Work in this schema (created if missing); default the connection's search path. */
  schema?: string;
  /** Deadline of one statement of a lookup (an import's statements get longer). */
  statementTimeoutMs?: number;
  poolSize?: number;
  /**
   * Hears what the store cannot tell a caller: an idle connection that failed, the check of other
   * processes' imports failing (they go unseen meanwhile) and coming back.
   */
  logger?: Pick<Logger, 'warn' | 'info'> | undefined;
}

const int8 = (v: string | null) => (v === null ? null : Number(v));

/**
 * Whether a failed statement failed for want of the server, not for what it asked: no SQLSTATE (the
 * connection refused, lost or timed out on this side: node-postgres and Node give none, or an
 * `E...` one), or one of the classes connection exception (08), insufficient resources (53) and
 * operator intervention (57: shutting down, cancelled by the statement timeout).
 */
export function unavailable(e: unknown): boolean {
  const code = (e as { code?: unknown }).code;
  return typeof code !== 'string' || /^(?:08|53|57)/.test(code) || /^E[A-Z]+$/.test(code);
}

export class PgStore implements Store {
  readonly kind = 'postgres';
  generation = 0;
  private readonly pool: pg.Pool;
  private poll: NodeJS.Timeout | undefined;

  /** Whether the last check of the import generation failed (told once when it starts failing, once when it is back). */
  private generationFailing = false;

  private constructor(
    pool: pg.Pool,
    /**
     * A lookup's statement waits at most this long for its answer on this side too: the server's
     * statement_timeout cannot end a wait on a connection that died without a word.
     */
    private readonly readTimeoutMs: number,
    private readonly logger: PgStoreOptions['logger'],
    /** The store's schema ('' for the connection's search path): the import locks are the store's own. */
    private readonly schema: string,
  ) {
    this.pool = pool;
  }

  /** Connects, creates the tables if needed, and starts following other processes' imports. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const types = new pg.TypeOverrides();
    types.setTypeParser(20, int8); // BIGINT and COUNT(*): numbers, as SQLite gives them
    const schema = options.schema;
    const statementTimeoutMs = options.statementTimeoutMs ?? 10_000;
    const connection = {
      connectionString: options.url,
      connectionTimeoutMillis: 5_000,
      statement_timeout: statementTimeoutMs,
      types,
      // Quoted, as CREATE SCHEMA quotes it (unquoted, `My_Stats` was looked for as `my_stats`), and
      // each space or backslash escaped, as the server splits these options at spaces.
      ...(schema ? { options: `-c search_path=${pg.escapeIdentifier(schema).replace(/[\\\s]/g, (c) => `\\${c}`)}` } : {}),
    };
    const pool = new pg.Pool({ ...connection, max: options.poolSize ?? 8, idleTimeoutMillis: 30_000 });
    // An idle client's error (the server restarted) would otherwise end the process; the pool drops that client.
    pool.on('error', (e) => options.logger?.warn({ err: e.message }, 'an idle PostgreSQL connection failed; the pool drops it'));
    const store = new PgStore(pool, statementTimeoutMs + 2_000, options.logger, schema ?? '');
    try {
      await store.createTables(schema);
      await store.readGeneration();
    } catch (e) {
      await pool.end();
      throw e;
    }
    store.poll = setInterval(() => void store.followGeneration(), GENERATION_POLL_MS);
    store.poll.unref();
    return store;
  }

  /**
   * Creates the schema, tables and indexes unless all exist (a look at the catalog, which waits on
   * no lock). Each try waits DDL_LOCK_TIMEOUT_MS for a lock; after DDL_ATTEMPTS it fails saying so.
   */
  private async createTables(schema: string | undefined): Promise<void> {
    const { rows } = await this.pool.query<{ missing: number }>('SELECT COUNT(*) AS missing FROM unnest($1::text[]) AS n WHERE to_regclass(n) IS NULL', [
      SCHEMA_OBJECTS,
    ]);
    if (rows[0]?.missing === 0) return;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.transaction(async (c) => {
          await c.query(`SET LOCAL lock_timeout = ${DDL_LOCK_TIMEOUT_MS}`);
          // Processes starting at once on a new store take turns: CREATE ... IF NOT EXISTS is no
          // guard against another session creating the same thing meanwhile (a duplicate key of
          // the catalog ended all of them but one).
          await c.query("SELECT pg_advisory_xact_lock(hashtext('player-stats schema ' || $1))", [schema ?? '']);
          if (schema) await c.query(`CREATE SCHEMA IF NOT EXISTS ${pg.escapeIdentifier(schema)}`);
          await c.query(SCHEMA);
        });
        return;
      } catch (e) {
        if ((e as { code?: string }).code !== '55P03') throw e; // lock_not_available
        if (attempt === DDL_ATTEMPTS)
          throw new Error(
            `cannot create the store's tables: a lock another PostgreSQL session holds on them (an import, a LOCK TABLE) held them up ` +
              `${DDL_ATTEMPTS} times for ${DDL_LOCK_TIMEOUT_MS / 1000} s; start again when it is let go`,
            { cause: e },
          );
        await sleep(DDL_LOCK_TIMEOUT_MS / 2);
      }
    }
  }

  /** A query whose answer is waited for at most readTimeoutMs (node-postgres' `query_timeout`, which its types leave out). */
  private deadlined<C extends pg.QueryConfig>(config: C): C {
    return Object.assign(config, { query_timeout: this.readTimeoutMs });
  }

  /** The poll's step: a failure is told when it starts and when it ends, not every 2 s. */
  private async followGeneration(): Promise<void> {
    try {
      await this.readGeneration();
      if (this.generationFailing) this.logger?.info("PostgreSQL answers again: other processes' imports are seen again");
      this.generationFailing = false;
    } catch (e) {
      if (!this.generationFailing)
        this.logger?.warn(
          { err: (e as Error).message },
          "cannot read the import generation from PostgreSQL: other processes' imports go unseen until it answers",
        );
      this.generationFailing = true;
    }
  }

  private async readGeneration(): Promise<void> {
    const { rows } = await this.pool.query<{ value: string }>(this.deadlined({ text: "SELECT value FROM meta WHERE key = 'generation'" }));
    const g = Number(rows[0]?.value ?? 0);
    if (g !== this.generation) this.generation = g;
  }

  async close(): Promise<void> {
    clearInterval(this.poll);
    await this.pool.end();
  }

  /**
   * Lends `work` a client of the pool's. The pool stops listening for a client's errors while it is
   * out, so a connection lost meanwhile (the server restarted, the backend terminated) would end
   * the process: here it fails the work instead, and a client whose work failed is dropped, not
   * handed to the next caller.
   */
  private async withClient<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let lost: Error | undefined;
    let onError!: (e: Error) => void;
    const connectionLost = new Promise<never>((_, reject) => {
      onError = (e) => {
        lost ??= e;
        reject(new Error(`lost the connection to PostgreSQL: ${e.message}`, { cause: e }));
      };
    });
    connectionLost.catch(() => undefined);
    client.on('error', onError);
    let failure: Error | undefined;
    try {
      return await Promise.race([work(client), connectionLost]);
    } catch (e) {
      failure = e as Error;
      // The server ending the session fails the statement first; its 'error' comes a moment later.
      if (lost || (e as { severity?: string }).severity === 'FATAL')
        throw new Error(`lost the connection to PostgreSQL: ${(lost ?? failure).message}`, { cause: failure });
      throw e;
    } finally {
      client.release(failure);
      client.off('error', onError);
    }
  }

  private transaction<T>(work: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    return this.withClient(async (client) => {
      try {
        await client.query('BEGIN');
        await client.query("SET LOCAL statement_timeout = '300s'");
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async importStages(files: readonly string[]): Promise<void> {
    await this.transaction(async (c) => {
      await c.query('SELECT pg_advisory_xact_lock(hashtext($1))', [IMPORT_LOCK + this.schema]);
      await takeStagesPg(c, files);
      // Other processes drop what they computed before (their memo follows the generation).
      await c.query(NEXT_GENERATION);
    });
    // The store's own tables only: a database shared through ?schema= holds others' too.
    await this.pool.query(`ANALYZE ${STORE_TABLES.join(', ')}`);
    await this.readGeneration();
  }

  private async rows<R>(sql: string, params: unknown[], arrays = false): Promise<R[]> {
    const name = PREPARED.get(sql);
    try {
      const result = arrays
        ? await this.pool.query(this.deadlined({ text: sql, values: params, rowMode: 'array' as const, ...(name ? { name } : {}) }))
        : await this.pool.query(this.deadlined({ text: sql, values: params, ...(name ? { name } : {}) }));
      return result.rows as R[];
    } catch (e) {
      throw unavailable(e) ? new StoreUnavailableError(`PostgreSQL did not answer: ${(e as Error).message}`, { cause: e }) : e;
    }
  }

  async playerById(title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<PlayerRow | undefined> {
    return (await this.rows<PlayerRow>(HOT.playerById, [title, platform, normalizeIdentifier(identifier)]))[0];
  }

  async playerByVanity(title: TitleSlug, platform: PlatformSlug, vanity: string): Promise<PlayerRow | undefined> {
    return (await this.rows<PlayerRow>(HOT.playerByVanity, [title, platform, normalizeIdentifier(vanity)]))[0];
  }

  playersByHandlePrefix(title: TitleSlug, platform: PlatformSlug, prefix: string, limit: number): Promise<PlayerRow[]> {
    const p = normalizeIdentifier(prefix);
    return this.rows<PlayerRow>(HOT.playersByPrefix, [title, platform, p, p + MAX_CHAR, limit]);
  }

  aggregateRows(title: TitleSlug, platform: PlatformSlug, player: string, dimension: SegmentDimension, filter: MatchFilter): Promise<AggregateRow[]> {
    const { sql, args } = aggregateSql(title, platform, player, dimension, filter, (i) => `$${i}`);
    return this.rows<AggregateRow>(sql, args, true);
  }

  async keyCounts(player: PlayerRow, column: 'map' | 'mode' | 'playlist' | 'legend' | 'hero'): Promise<Map<string, number>> {
    return new Map(
      await this.rows<[string, number]>(
        keyCountsSql(column, (i) => `$${i}`),
        [player.title, player.platform, player.id_norm],
        true,
      ),
    );
  }

  async playerSummary(player: PlayerRow): Promise<PlayerSummary> {
    const [row] = await this.rows<SummaryRow>(HOT.summary, [player.title, player.platform, player.id_norm]);
    return summaryOf(row as SummaryRow);
  }

  timeline(player: PlayerRow): Promise<{ match_id: string; started_at: number; duration_s: number }[]> {
    return this.rows(HOT.timeline, [player.title, player.platform, player.id_norm]);
  }

  matchRowsSince(player: PlayerRow, since: number): Promise<MatchRow[]> {
    return this.rows(HOT.rowsSince, [player.title, player.platform, player.id_norm, since]);
  }

  async ratings(player: PlayerRow, key: string): Promise<{ season: number | null; rating: number }[]> {
    const rows = await this.rows<{ season: number | null; rating: unknown }>(HOT.ratings, [player.title, player.platform, player.id_norm, key]);
    return rows.filter((r): r is { season: number | null; rating: number } => typeof r.rating === 'number' && Number.isFinite(r.rating));
  }

  matchPage(player: PlayerRow, limit: number, before?: { startedAt: number; matchId: string }): Promise<MatchRow[]> {
    const key = [player.title, player.platform, player.id_norm];
    return before ? this.rows(HOT.newestFirstBefore, [...key, before.startedAt, before.matchId, limit]) : this.rows(HOT.newestFirst, [...key, limit]);
  }

  async match(title: TitleSlug, id: string): Promise<{ match: StoredMatch; players: StoredMatchPlayer[] } | undefined> {
    const [row] = await this.rows<StoredMatch & { players: string }>(HOT.match, [title, id]);
    if (!row) return undefined;
    const { players: listed, ...match } = row;
    const keys = JSON.parse(listed) as [string, string][];
    if (keys.length === 0) return { match, players: [] };
    const rows = await this.rows<StoredMatchPlayer & { handle_norm: string | null }>(participantsSql(keys.length), [
      title,
      match.started_at,
      id,
      ...keys.flat(),
    ]);
    return { match, players: orderParticipants(rows) };
  }

  async totalsOf(player: PlayerRow): Promise<Record<string, number>> {
    const [row] = await this.rows<{ totals: string }>(HOT.totalsOfPlayer, [player.title, player.platform, player.id_norm]);
    return row ? storedValues(row.totals) : {};
  }

  async places(title: TitleSlug, values: Record<string, number>): Promise<Map<string, Place>> {
    const keys = Object.keys(values);
    const rows = await this.rows<{ key: string; below: number; population: number; data: Buffer }>(HOT.rankChunks, [
      title,
      keys,
      keys.map((k) => values[k] ?? 0),
    ]);
    return new Map(rows.map((r) => [r.key, placeInChunk(r, values[r.key] ?? 0)]));
  }

  async counts(): Promise<{ players: number; matches: number }> {
    const [row] = await this.rows<{ players: number; matches: number }>(
      'SELECT (SELECT COUNT(*) FROM players) AS players, (SELECT COUNT(*) FROM matches) AS matches',
      [],
    );
    return row ?? { players: 0, matches: 0 };
  }

  async getMeta(key: string): Promise<string | undefined> {
    return (await this.rows<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]))[0]?.value;
  }

  async setMeta(key: string, value: string): Promise<void> {
    await this.pool.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value', [key, value]);
  }

  sql(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
    let i = 0;
    return this.rows(
      text.replace(/\?/g, () => `$${++i}`),
      params,
    );
  }

  /** Plans with sequential scans priced out: what is checked is that an index serves each statement. */
  hotPlans(): Promise<{ name: string; plan: string }[]> {
    return this.withClient(async (client) => {
      await client.query('SET enable_seqscan = off');
      const plans: { name: string; plan: string }[] = [];
      for (const [name, sql] of Object.entries(HOT) as [keyof typeof HOT, string][]) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, SAMPLE_PARAMS[name]);
        plans.push({ name, plan: rows.map((r) => r['QUERY PLAN']).join('\n') });
      }
      await client.query('RESET enable_seqscan');
      return plans;
    });
  }
}

// Real-looking values: with made-up ones the planner knows no row matches and any index looks as good.
const SAMPLE_PARAMS: Record<keyof typeof HOT, unknown[]> = {
  playerById: ['title_a', 'pc_store_a', 'novaplays'],
  playerByVanity: ['title_a', 'pc_store_a', 'novaplays'],
  playersByPrefix: ['title_a', 'pc_store_a', 'a', 'b', 20],
  timeline: ['title_a', 'pc_store_a', 'novaplays'],
  rowsSince: ['title_a', 'pc_store_a', 'novaplays', 0],
  ratings: ['title_a', 'pc_store_a', 'novaplays', 'rating'],
  newestFirst: ['title_a', 'pc_store_a', 'novaplays', 20],
  newestFirstBefore: ['title_a', 'pc_store_a', 'novaplays', 0, 'a-1', 20],
  match: ['title_a', 'a-1'],
  summary: ['title_a', 'pc_store_a', 'novaplays'],
  participants: ['title_a', 0, 'a-1', 'pc_store_a', 'novaplays', 'console_a', 'nova'],
  totalsOfPlayer: ['title_a', 'pc_store_a', 'novaplays'],
  rankChunks: ['title_a', ['kills'], [1]],
};
