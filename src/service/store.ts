// The service's store: SQLite through better-sqlite3, prepared statements only. Match rows are
// clustered by (title, platform, player, time) so that everything about one player is one index
// range; per-player overview totals are kept up to date at import for ranking.
import Database from 'better-sqlite3';

import type { PlatformSlug, SegmentDimension, TitleSlug } from '../catalog/index.js';
import { groupRows, totalsToValues, type AggregateRow, type MatchRow } from './aggregate.js';
import type { MatchRecord, PlayerRecord } from './dataset.js';
import { normalizeIdentifier } from './identifiers.js';

export interface PlayerRow {
  title: TitleSlug;
  platform: PlatformSlug;
  id_norm: string;
  id: string;
  handle: string;
  avatar_url: string | null;
  vanity: string | null;
  private: 0 | 1;
}

export interface StoredMatch {
  title: TitleSlug;
  id: string;
  platform: PlatformSlug;
  started_at: number;
  duration_s: number;
  map: string | null;
  mode: string | null;
  playlist: string | null;
  queue: string | null;
  season: number | null;
}

export interface StoredMatchPlayer extends MatchRow {
  platform: PlatformSlug;
  player: string;
  team: string | null;
  handle: string | null;
  player_id: string | null;
}

export interface PlayerSummary {
  /** How many distinct values each column has among the player's matches. */
  distinct: Record<'map' | 'mode' | 'playlist' | 'legend' | 'hero', number>;
  hasWeapons: boolean;
  queues: string[];
  seasons: number[];
}

/** Filters of a player's match rows (title_a's queue and season). */
export interface MatchFilter {
  queue?: string | undefined;
  season?: number | undefined;
}

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

CREATE TABLE IF NOT EXISTS matches (
  title TEXT NOT NULL, id TEXT NOT NULL, platform TEXT NOT NULL,
  started_at INTEGER NOT NULL, duration_s INTEGER NOT NULL,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER,
  PRIMARY KEY (title, id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS match_players (
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL,
  started_at INTEGER NOT NULL, match_id TEXT NOT NULL,
  duration_s INTEGER NOT NULL, team TEXT, result TEXT, hero TEXT, legend TEXT,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER,
  stats TEXT NOT NULL, weapons TEXT,
  PRIMARY KEY (title, platform, player, started_at, match_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS match_players_by_match ON match_players (title, match_id);

CREATE TABLE IF NOT EXISTS player_totals (
  title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL, key TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (title, platform, player, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS player_totals_by_key ON player_totals (title, key, value);
`;

const ROW_COLUMNS =
  'match_id, started_at, duration_s, result, hero, legend, map, mode, playlist, queue, season, stats, weapons';

/** The highest code point: `prefix + MAX_CHAR` bounds every string that starts with `prefix`. */
const MAX_CHAR = '\u{10FFFF}';

export class StatsStore {
  readonly db: Database.Database;
  /** Bumped by every import; caches derived from the data key on it. */
  generation = 0;
  private readonly rankIndexes = new Map<TitleSlug, { generation: number; byKey: Map<string, Float64Array> }>();
  private readonly s;
  private readonly aggregateStatements = new Map<string, Database.Statement>();

  constructor(path = ':memory:') {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    const db = this.db;
    this.s = {
      upsertPlayer: db.prepare(`
        INSERT INTO players (title, platform, id_norm, id, handle, handle_norm, avatar_url, vanity, vanity_norm, private, declared)
        VALUES (@title, @platform, @id_norm, @id, @handle, @handle_norm, @avatar_url, @vanity, @vanity_norm, @private, 1)
        ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle,
          handle_norm = excluded.handle_norm, avatar_url = excluded.avatar_url, vanity = excluded.vanity,
          vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1`),
      implicitPlayer: db.prepare(`
        INSERT OR IGNORE INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
        VALUES (?, ?, ?, ?, ?, ?, 0)`),
      participants: db.prepare('SELECT platform, player, started_at FROM match_players WHERE title = ? AND match_id = ?'),
      // By the whole primary key: with only (title, match_id) the planner walks the title's rows.
      deleteParticipant: db.prepare(
        'DELETE FROM match_players WHERE title = ? AND platform = ? AND player = ? AND started_at = ? AND match_id = ?',
      ),
      upsertMatch: db.prepare(`
        INSERT OR REPLACE INTO matches (title, id, platform, started_at, duration_s, map, mode, playlist, queue, season)
        VALUES (@title, @id, @platform, @started_at, @duration_s, @map, @mode, @playlist, @queue, @season)`),
      insertParticipant: db.prepare(`
        INSERT INTO match_players (title, platform, player, started_at, match_id, duration_s, team, result, hero, legend,
          map, mode, playlist, queue, season, stats, weapons)
        VALUES (@title, @platform, @player, @started_at, @match_id, @duration_s, @team, @result, @hero, @legend,
          @map, @mode, @playlist, @queue, @season, @stats, @weapons)`),
      deleteTotals: db.prepare('DELETE FROM player_totals WHERE title = ? AND platform = ? AND player = ?'),
      insertTotal: db.prepare('INSERT INTO player_totals (title, platform, player, key, value) VALUES (?, ?, ?, ?, ?)'),
      playerById: db.prepare('SELECT * FROM players WHERE title = ? AND platform = ? AND id_norm = ?'),
      playerByVanity: db.prepare('SELECT * FROM players WHERE title = ? AND platform = ? AND vanity_norm = ? LIMIT 1'),
      playersByPrefix: db.prepare(`
        SELECT * FROM players WHERE title = ? AND platform = ? AND handle_norm >= ? AND handle_norm < ?
        ORDER BY handle_norm, id_norm LIMIT ?`),
      timeline: db.prepare(
        'SELECT match_id, started_at, duration_s FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at, match_id',
      ),
      rowsSince: db.prepare(
        `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND started_at >= ? ORDER BY started_at, match_id`,
      ),
      newestFirst: db.prepare(
        `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? ORDER BY started_at DESC, match_id DESC LIMIT ?`,
      ),
      newestFirstBefore: db.prepare(
        `SELECT ${ROW_COLUMNS} FROM match_players WHERE title = ? AND platform = ? AND player = ? AND (started_at, match_id) < (?, ?)
         ORDER BY started_at DESC, match_id DESC LIMIT ?`,
      ),
      match: db.prepare('SELECT * FROM matches WHERE title = ? AND id = ?'),
      summary: db.prepare(`
        SELECT COUNT(DISTINCT map) AS maps, COUNT(DISTINCT mode) AS modes, COUNT(DISTINCT playlist) AS playlists,
          COUNT(DISTINCT legend) AS legends, COUNT(DISTINCT hero) AS heroes, COUNT(weapons) AS weapons,
          group_concat(DISTINCT queue) AS queues, group_concat(DISTINCT season) AS seasons
        FROM match_players WHERE title = ? AND platform = ? AND player = ?`),
      matchParticipants: db.prepare(`
        SELECT ${ROW_COLUMNS}, mp.platform AS platform, mp.player AS player, mp.team AS team, p.handle AS handle, p.id AS player_id
        FROM match_players mp LEFT JOIN players p ON p.title = mp.title AND p.platform = mp.platform AND p.id_norm = mp.player
        WHERE mp.title = ? AND mp.match_id = ? ORDER BY mp.team, p.handle_norm`),
      totalsOfTitle: db.prepare('SELECT key, value FROM player_totals WHERE title = ? ORDER BY key, value'),
      totalsOfPlayer: db.prepare('SELECT key, value FROM player_totals WHERE title = ? AND platform = ? AND player = ?'),
      counts: db.prepare(`SELECT (SELECT COUNT(*) FROM players) AS players, (SELECT COUNT(*) FROM matches) AS matches`),
    };
  }

  close(): void {
    this.db.close();
  }

  /**
   * Writes a batch of records in one transaction and rebuilds the overview totals of every player
   * they touch. A match id is a key: importing a match again replaces it, so importing the same
   * file twice changes nothing.
   */
  writeBatch(players: readonly PlayerRecord[], matches: readonly MatchRecord[]): void {
    const touched = new Map<string, [TitleSlug, PlatformSlug, string]>();
    const touch = (title: TitleSlug, platform: PlatformSlug, player: string) =>
      touched.set(`${title}\u0000${platform}\u0000${player}`, [title, platform, player]);
    this.db.transaction(() => {
      for (const p of players) {
        this.s.upsertPlayer.run({
          title: p.title,
          platform: p.platform,
          id_norm: normalizeIdentifier(p.id),
          id: p.id,
          handle: p.handle,
          handle_norm: normalizeIdentifier(p.handle),
          avatar_url: p.avatarUrl ?? null,
          vanity: p.vanity ?? null,
          vanity_norm: p.vanity ? normalizeIdentifier(p.vanity) : null,
          private: p.private ? 1 : 0,
        });
      }
      for (const m of matches) {
        const old = this.s.participants.all(m.title, m.id) as { platform: PlatformSlug; player: string; started_at: number }[];
        for (const o of old) {
          this.s.deleteParticipant.run(m.title, o.platform, o.player, o.started_at, m.id);
          touch(m.title, o.platform, o.player);
        }
        const started = Date.parse(m.startedAt);
        const common = {
          title: m.title,
          started_at: started,
          duration_s: m.durationSeconds,
          map: m.map ?? null,
          mode: m.mode ?? null,
          playlist: m.playlist ?? null,
          queue: m.queue ?? null,
          season: m.season ?? null,
        };
        this.s.upsertMatch.run({ ...common, id: m.id, platform: m.platform });
        for (const p of m.players) {
          const player = normalizeIdentifier(p.id);
          this.s.implicitPlayer.run(m.title, p.platform, player, p.id, p.id, player);
          this.s.insertParticipant.run({
            ...common,
            platform: p.platform,
            player,
            match_id: m.id,
            team: p.team ?? null,
            result: p.result ?? null,
            hero: p.hero ?? null,
            legend: p.legend ?? null,
            stats: JSON.stringify(p.stats),
            weapons: p.weapons ? JSON.stringify(p.weapons) : null,
          });
          touch(m.title, p.platform, player);
        }
      }
      for (const [title, platform, player] of touched.values()) this.rebuildTotals(title, platform, player);
    })();
    this.generation++;
  }

  private rebuildTotals(title: TitleSlug, platform: PlatformSlug, player: string): void {
    const totals = groupRows(this.aggregateRows(title, platform, player, 'overview', {}), false).get('');
    this.s.deleteTotals.run(title, platform, player);
    if (!totals) return;
    for (const [key, value] of Object.entries(totalsToValues(totals))) this.s.insertTotal.run(title, platform, player, key, value);
  }

  /** Looks a player up by exact identifier (case-insensitive). */
  playerById(title: TitleSlug, platform: PlatformSlug, identifier: string): PlayerRow | undefined {
    return this.s.playerById.get(title, platform, normalizeIdentifier(identifier)) as PlayerRow | undefined;
  }

  playerByVanity(title: TitleSlug, platform: PlatformSlug, vanity: string): PlayerRow | undefined {
    return this.s.playerByVanity.get(title, platform, normalizeIdentifier(vanity)) as PlayerRow | undefined;
  }

  /** Players whose handle starts with `prefix` (case-insensitive), in handle order. */
  playersByHandlePrefix(title: TitleSlug, platform: PlatformSlug, prefix: string, limit: number): PlayerRow[] {
    const p = normalizeIdentifier(prefix);
    return this.s.playersByPrefix.all(title, platform, p, p + MAX_CHAR, limit) as PlayerRow[];
  }

  /**
   * A player's rows for aggregation, grouped by `dimension` (see AggregateRow), optionally filtered
   * by queue and season. Reads only the columns the sums need.
   */
  aggregateRows(
    title: TitleSlug,
    platform: PlatformSlug,
    player: string,
    dimension: SegmentDimension,
    filter: MatchFilter,
  ): AggregateRow[] {
    const key = dimension === 'overview' ? "''" : dimension === 'weapon' ? 'NULL' : dimension;
    const json = dimension === 'weapon' ? 'weapons' : 'stats';
    let where = 'title = ? AND platform = ? AND player = ?';
    const args: (string | number)[] = [title, platform, player];
    if (filter.queue !== undefined) {
      where += ' AND queue = ?';
      args.push(filter.queue);
    }
    if (filter.season !== undefined) {
      where += ' AND season = ?';
      args.push(filter.season);
    }
    const sql = `SELECT result, duration_s, ${key}, ${json} FROM match_players WHERE ${where}`;
    let statement = this.aggregateStatements.get(sql);
    if (!statement) this.aggregateStatements.set(sql, (statement = this.db.prepare(sql).raw()));
    return statement.all(...args) as AggregateRow[];
  }

  /** How many of a player's matches have each value of a column (null values left out). */
  keyCounts(player: PlayerRow, column: 'map' | 'mode' | 'playlist' | 'legend' | 'hero'): Map<string, number> {
    const sql = `SELECT ${column}, COUNT(*) FROM match_players WHERE title = ? AND platform = ? AND player = ? AND ${column} IS NOT NULL GROUP BY ${column}`;
    let statement = this.aggregateStatements.get(sql);
    if (!statement) this.aggregateStatements.set(sql, (statement = this.db.prepare(sql).raw()));
    const rows = statement.all(player.title, player.platform, player.id_norm) as [string, number][];
    return new Map(rows);
  }

  /**
   * What a profile says about a player's data beyond the sums, in one pass over their rows: how
   * many distinct values each segment column has, whether any match has weapons, which queues and
   * seasons they played.
   */
  playerSummary(player: PlayerRow): PlayerSummary {
    const r = this.s.summary.get(player.title, player.platform, player.id_norm) as {
      maps: number;
      modes: number;
      playlists: number;
      legends: number;
      heroes: number;
      weapons: number;
      queues: string | null;
      seasons: string | null;
    };
    return {
      distinct: { map: r.maps, mode: r.modes, playlist: r.playlists, legend: r.legends, hero: r.heroes },
      hasWeapons: r.weapons > 0,
      queues: r.queues ? r.queues.split(',').sort() : [],
      seasons: r.seasons ? r.seasons.split(',').map(Number).sort((x, y) => x - y) : [],
    };
  }

  /** Start, duration and id of each of a player's matches, oldest first: enough to cut sessions. */
  timeline(player: PlayerRow): { match_id: string; started_at: number; duration_s: number }[] {
    return this.s.timeline.all(player.title, player.platform, player.id_norm) as {
      match_id: string;
      started_at: number;
      duration_s: number;
    }[];
  }

  /** A player's full match rows from `since` (epoch ms) on, oldest first. */
  matchRowsSince(player: PlayerRow, since: number): MatchRow[] {
    return this.s.rowsSince.all(player.title, player.platform, player.id_norm, since) as MatchRow[];
  }

  /** One page of a player's matches, newest first, strictly before the cursor position. */
  matchPage(player: PlayerRow, limit: number, before?: { startedAt: number; matchId: string }): MatchRow[] {
    const key = [player.title, player.platform, player.id_norm] as const;
    return (
      before
        ? this.s.newestFirstBefore.all(...key, before.startedAt, before.matchId, limit)
        : this.s.newestFirst.all(...key, limit)
    ) as MatchRow[];
  }

  match(title: TitleSlug, id: string): { match: StoredMatch; players: StoredMatchPlayer[] } | undefined {
    const match = this.s.match.get(title, id) as StoredMatch | undefined;
    if (!match) return undefined;
    return { match, players: this.s.matchParticipants.all(title, id) as StoredMatchPlayer[] };
  }

  /** A player's stored overview totals (counts, sums and derived values) by stat key. */
  totalsOf(player: PlayerRow): Record<string, number> {
    const rows = this.s.totalsOfPlayer.all(player.title, player.platform, player.id_norm) as { key: string; value: number }[];
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  /**
   * Every player's value of each stat of a title, sorted ascending: the population that ranks and
   * percentiles are computed against. Built once per import generation.
   */
  rankIndex(title: TitleSlug): Map<string, Float64Array> {
    const cached = this.rankIndexes.get(title);
    if (cached && cached.generation === this.generation) return cached.byKey;
    const lists = new Map<string, number[]>();
    for (const row of this.s.totalsOfTitle.iterate(title) as Iterable<{ key: string; value: number }>) {
      let list = lists.get(row.key);
      if (!list) lists.set(row.key, (list = []));
      list.push(row.value);
    }
    const byKey = new Map([...lists].map(([k, v]) => [k, Float64Array.from(v)]));
    this.rankIndexes.set(title, { generation: this.generation, byKey });
    return byKey;
  }

  counts(): { players: number; matches: number } {
    return this.s.counts.get() as { players: number; matches: number };
  }
}
