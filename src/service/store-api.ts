// What the service needs of a store, whichever it is: SQLite (src/service/store.ts, the embedded
// default) or PostgreSQL (src/service/pg-store.ts, shared by several service processes). Every
// read is a promise so that both fit; lookups never see SQL.
import type { PlatformSlug, SegmentDimension, TitleSlug } from '../catalog/index.js';
import type { AggregateRow, MatchRow } from './aggregate.js';
import type { RankValues } from './ranks.js';

/**
 * The store did not answer (its server down or unreachable, a connection lost, a statement over
 * its deadline): the service answers 503 with `Retry-After`, not 500, so that clients and load
 * balancers try again.
 */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

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
  /** 1 when the player keeps their stats private; null for a player the dataset never declared. */
  private: 0 | 1 | null;
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

/** Where a value stands in a stat's population: players below it, at or below it, and in all. */
export interface Place {
  below: number;
  atOrBelow: number;
  population: number;
}

/**
 * A file import's offer to a store: the staged rows totalled, a part of the players into each of
 * `files` (src/service/sqlite-import.ts, stageTotals), by the import's workers once started, and
 * by the store's thread when no part is ready for it. A store uses it or not; one that does asks
 * for `more` until none is left, then for the `values`.
 */
export interface TotalsOffer {
  files: string[];
  /** Starts the workers on the totals. */
  start(): void;
  /**
   * The next parts written: those the workers wrote since last asked, else one this thread totals,
   * else the next a worker writes; none once every part was given. Fails if a worker does.
   */
  more(): Promise<number[]>;
  /** Once `more` gave none: the values of every part's players, for the ranks. */
  values(): Promise<RankValues>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  /** Changes whenever the data does (an import, here or, for PostgreSQL, in another process); caches key on it. */
  readonly generation: number;
  /**
   * Takes an import's stages (SQLite files: src/service/import-stage.ts) in one transaction. A match
   * id is a key: a match imported again replaces the stored one (the stages hold only the last of
   * one given twice in a file), and a player record replaces the one before. Totals and ranks are
   * complete when it resolves; until then lookups see the store as it was.
   */
  importStages(files: readonly string[], offer?: TotalsOffer): Promise<void>;
  /** Looks a player up by exact identifier (case-insensitive). */
  playerById(title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<PlayerRow | undefined>;
  playerByVanity(title: TitleSlug, platform: PlatformSlug, vanity: string): Promise<PlayerRow | undefined>;
  /** Players whose handle starts with `prefix` (case-insensitive), in handle order. */
  playersByHandlePrefix(title: TitleSlug, platform: PlatformSlug, prefix: string, limit: number): Promise<PlayerRow[]>;
  /**
   * A player's rows for aggregation, grouped by `dimension` (see AggregateRow), optionally filtered
   * by queue and season. Reads only the columns the sums need.
   */
  aggregateRows(title: TitleSlug, platform: PlatformSlug, player: string, dimension: SegmentDimension, filter: MatchFilter): Promise<AggregateRow[]>;
  /** How many of a player's matches have each value of a column (null values left out). */
  keyCounts(player: PlayerRow, column: 'map' | 'mode' | 'playlist' | 'legend' | 'hero'): Promise<Map<string, number>>;
  /**
   * What a profile says about a player's data beyond the sums, in one pass over their rows: how
   * many distinct values each segment column has, whether any match has weapons, which queues and
   * seasons they played.
   */
  playerSummary(player: PlayerRow): Promise<PlayerSummary>;
  /** Start, duration and id of each of a player's matches, oldest first: enough to cut sessions. */
  timeline(player: PlayerRow): Promise<{ match_id: string; started_at: number; duration_s: number }[]>;
  /** A player's full match rows from `since` (epoch ms) on, oldest first. */
  matchRowsSince(player: PlayerRow, since: number): Promise<MatchRow[]>;
  /** The ranked rating (stat `key`) of each of a player's matches that has one, with its season, newest first. */
  ratings(player: PlayerRow, key: string): Promise<{ season: number | null; rating: number }[]>;
  /** One page of a player's matches, newest first, strictly before the cursor position. */
  matchPage(player: PlayerRow, limit: number, before?: { startedAt: number; matchId: string }): Promise<MatchRow[]>;
  match(title: TitleSlug, id: string): Promise<{ match: StoredMatch; players: StoredMatchPlayer[] } | undefined>;
  /** A player's overview totals (counts, sums and derived values) by stat key. */
  totalsOf(player: PlayerRow): Promise<Record<string, number>>;
  /** Where each of `values` stands among every player's value of the same stat in the title. */
  places(title: TitleSlug, values: Record<string, number>): Promise<Map<string, Place>>;
  counts(): Promise<{ players: number; matches: number }>;
  /** A note the store keeps about itself (which dataset it was filled from). */
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  /** Rows of a read-only statement with `?` placeholders: for tests and tools, never for lookups. */
  sql(text: string, ...params: unknown[]): Promise<Record<string, unknown>[]>;
  /** Query plans of the hot statements, for the test that refuses a scan of a whole title. */
  hotPlans(): Promise<{ name: string; plan: string }[]>;
  close(): Promise<void>;
}
