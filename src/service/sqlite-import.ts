// The second half of an import into SQLite: the stages (src/service/import-stage.ts) attached and
// taken in one transaction, as set work in SQL. Readers see the store as it was until it commits;
// an import that fails changes nothing.
//
// A player's totals are the aggregate stored_totals of their rows. Into a store without matches (a
// first import) from a file, the import's workers total parts of the players from the stages
// (stageTotals) while this thread writes the rows, and this thread takes each part into the store
// as soon as it is written, totalling itself the parts none has taken yet, so that more cores help
// here too and none waits for the others at the end.
// Otherwise they are totalled here: each touched player's stored totals moved by the rows the
// import brings and by those of the matches it replaces, so that an import costs what it imports.
import Database from 'better-sqlite3';

import { takeNext } from './file-lines.js';
import { MATCH_COLUMNS, PLAYER_COLUMNS, stagedIdSql, stagedRowTables, stagedSql, writeWithoutJournal } from './import-stage.js';
import { addValues, buildRankChunks, sortedLists, type RankValues } from './ranks.js';
import type { TotalsOffer } from './store-api.js';
import { INDEXES } from './store.js';
import { storedValues, type StoredTotals } from './totals.js';

/** The table a part of the totals is written to (stageTotals): made by the store before it attaches the file. */
const TOTALS_TABLE = 'CREATE TABLE IF NOT EXISTS totals (title TEXT, platform TEXT, player TEXT, totals TEXT, first INTEGER)';

/** A player's totals as the aggregate adds them up, with their title (for the ranks). */
interface Totals {
  title: string;
  totals: StoredTotals;
}

/** Adds `sum` over `n` matches to a stat's sum. */
function addSum(sums: StoredTotals['sums'], key: string, sum: number, n: number): void {
  // Its own key only: a stat may be named `constructor` or `toString`.
  const had = Object.hasOwn(sums, key) ? sums[key] : undefined;
  if (!had) sums[key] = [sum, n];
  else {
    had[0] += sum;
    had[1] += n;
  }
}

/**
 * The aggregate `stored_totals(title, seed, sign, result, duration_s, stats)` for SQL's GROUP BY: a
 * player's StoredTotals as JSON, from their stored totals (`seed`, JSON) and rows added (`sign` 1) or
 * taken away (-1: a match replaced), so that an import costs what it imports; null when no match is
 * left. With `lists`, each player's values are kept there for their title's ranks. In SQL alone each
 * player's sums were a correlated query of their own, twice the time over many players.
 */
function totalsAggregate(db: Database.Database, lists?: Map<string, Map<string, number[]>>): void {
  db.aggregate('stored_totals', {
    varargs: true,
    start: (): Totals => ({ title: '', totals: { matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: {} } }),
    step: (t: Totals, ...row: unknown[]) => {
      const [title, seed, sign, result, duration, stats] = row as [string, string | null, number, string | null, number, string | null];
      t.title = title;
      const totals = t.totals;
      if (seed !== null) {
        const stored = JSON.parse(seed) as StoredTotals;
        totals.matchesPlayed += stored.matchesPlayed;
        totals.wins += stored.wins;
        totals.losses += stored.losses;
        totals.timePlayed += stored.timePlayed;
        for (const key in stored.sums) {
          const [sum, n] = stored.sums[key] as [number, number];
          addSum(totals.sums, key, sum, n);
        }
        return t;
      }
      totals.matchesPlayed += sign;
      if (result === 'win') totals.wins += sign;
      else if (result === 'loss') totals.losses += sign;
      totals.timePlayed += sign * duration;
      const numbers = JSON.parse(stats ?? '{}') as Record<string, number>;
      for (const key in numbers) addSum(totals.sums, key, sign * (numbers[key] as number), sign);
      return t;
    },
    result: ({ title, totals }: Totals) => {
      if (totals.matchesPlayed <= 0) return null;
      // A stat none of the player's matches has any more is gone, as from a sum of their rows.
      for (const key in totals.sums) if ((totals.sums[key]?.[1] ?? 0) <= 0) delete totals.sums[key];
      if (lists) {
        let byKey = lists.get(title);
        if (!byKey) lists.set(title, (byKey = new Map<string, number[]>()));
        addValues(byKey, storedValues(totals));
      }
      return JSON.stringify(totals);
    },
  });
}

const attach = (db: Database.Database, files: readonly string[], as = 'stage') => files.forEach((file, i) => db.prepare(`ATTACH ? AS ${as}${i}`).run(file));

/** Totals of the rows in `rows` (title, platform, player, seed, sign, result, duration_s, stats, and `extra` columns), by player. */
const totalsSql = (rows: string, extra = '') =>
  `SELECT title, platform, player, stored_totals(title, seed, sign, result, duration_s, stats) AS totals${extra}
   FROM ${rows} GROUP BY player, title, platform`;

/**
 * A thread's share of TotalsOffer: the parts of the players (partOf) it takes from `parts` (a
 * sharedCounter: each part is taken by one of the threads totalling), until none is left or it has
 * taken `most`. Each part's totals over the stages' rows are written to its file of `outs`, with the
 * rowid of each player's first row (whose id is their handle if no record names them), and the part
 * told to `written`; their values for the ranks.
 */
export function stageTotals(
  files: readonly string[],
  outs: readonly string[],
  parts: SharedArrayBuffer,
  written: (part: number) => void,
  most = Infinity,
): RankValues {
  const lists = new Map<string, Map<string, number[]>>();
  for (let taken = 0; taken < most; taken++) {
    const part = takeNext(parts);
    if (part >= outs.length) break;
    const db = new Database(outs[part]);
    try {
      writeWithoutJournal(db);
      attach(db, files);
      db.exec(TOTALS_TABLE);
      totalsAggregate(db, lists);
      const rows = `(SELECT *, NULL AS seed, 1 AS sign FROM ${stagedSql(files.length, `rows_${part}`, 'rowid AS rid, *')})`;
      db.exec(`INSERT INTO totals ${totalsSql(rows, ', MIN(rid)')}`);
    } finally {
      db.close();
    }
    written(part);
  }
  return new Map([...lists].map(([title, byKey]) => [title, sortedLists(byKey)]));
}

/**
 * Takes the totals in `totals` (a table of totalsSql's columns and `first`) into the store `db`: each
 * player's, and a record for each player in a match without one (their first row's id is their
 * handle).
 */
function takeTotals(db: Database.Database, stages: number, totals: string): void {
  db.exec(`
    INSERT INTO player_totals (title, platform, player, totals) SELECT title, platform, player, totals FROM ${totals} WHERE totals IS NOT NULL;
    INSERT OR IGNORE INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
      SELECT title, platform, player, id, id, player, 0 FROM (SELECT title, platform, player, ${stagedIdSql(stages, 'r.first', 'r.player')} AS id
        FROM ${totals} r WHERE first IS NOT NULL AND NOT EXISTS (SELECT 1 FROM players p WHERE p.title = r.title AND p.platform = r.platform AND p.id_norm = r.player));`);
}

const DROP_TEMP = ['replaced', 'gone', 'touched', 'changed'].map((t) => `DROP TABLE IF EXISTS temp.${t}`).join('; ');

/** Takes the stages in `files` into the store `db`; into one without matches, with totals from `offer` when there is one. */
export async function takeStages(db: Database.Database, files: readonly string[], cores: number, offer?: TotalsOffer): Promise<void> {
  const fresh = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM matches)').pluck().get() === 1;
  const parts = fresh && offer ? offer.files : [];
  for (const file of parts) {
    const out = new Database(file);
    writeWithoutJournal(out);
    out.exec(TOTALS_TABLE).close();
  }
  // Attached before the transaction (SQLite attaches outside one), detached after it.
  attach(db, files);
  attach(db, parts, 'totals');
  const staged = (table: string, columns = '*') => stagedSql(files.length, table, columns);
  totalsAggregate(db);
  db.pragma(`threads = ${cores}`);
  // SQLite sorts for an index or an ORDER BY in runs the size of the page cache, each handed to one
  // of `threads` while the next is read. Into a store without matches every index is built whole:
  // the store's large cache (for imports into a full one) made each a single run, sorted at the end
  // by this thread alone. Runs of SQLite's default cache instead, until the transaction ends.
  const cacheSize = db.pragma('main.cache_size', { simple: true }) as number;
  if (fresh) db.pragma('main.cache_size = -2000');
  // A file without matches yet is filled without the write-ahead log, which would write each page
  // twice (there, then in the file): the rollback journal kept in memory instead. A crash half-way
  // can leave such a file broken: the mark, kept until the import commits, makes it refuse to open.
  // The store's modes only (`main.`): without a name, a journal mode is set on every attached file,
  // and turning the stages to the write-ahead log at the end had each written to disk to be deleted.
  const direct = fresh && !db.memory && db.pragma('main.journal_mode = MEMORY', { simple: true }) === 'memory';
  if (direct) {
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('importing', '1')").run();
    db.pragma('main.synchronous = OFF');
  }
  db.exec('BEGIN');
  try {
    db.exec(`
      -- The stored matches this import replaces, their rows, and the players whose totals change.
      CREATE TEMP TABLE replaced (rid INTEGER PRIMARY KEY, title TEXT, id TEXT, started_at INTEGER, players TEXT);
      CREATE TEMP TABLE gone (rid INTEGER PRIMARY KEY, title TEXT, platform TEXT, player TEXT, result TEXT, duration_s INTEGER, stats TEXT);
      CREATE TEMP TABLE touched (title TEXT, platform TEXT, player TEXT, PRIMARY KEY (player, title, platform)) WITHOUT ROWID;`);
    const offered = parts.length > 0 ? offer : undefined;
    offered?.start();
    if (fresh)
      // Rows, matches and players appended, and each index built once, at the end.
      db.exec(
        Object.keys(INDEXES)
          .map((name) => `DROP INDEX ${name}`)
          .join('; '),
      );
    else
      db.exec(`
        INSERT OR IGNORE INTO temp.replaced SELECT m.rowid, m.title, m.id, m.started_at, m.players
          FROM ${staged('matches', 'title, id')} s JOIN matches m ON m.id = s.id AND m.title = s.title;
        INSERT INTO temp.gone SELECT mp.rowid, mp.title, mp.platform, mp.player, mp.result, mp.duration_s, mp.stats
          FROM temp.replaced r, json_each(r.players) j JOIN match_players mp
          ON mp.player = j.value ->> 1 AND mp.title = r.title AND mp.platform = j.value ->> 0 AND mp.started_at = r.started_at AND mp.match_id = r.id;
        DELETE FROM match_players WHERE rowid IN (SELECT rid FROM temp.gone);
        DELETE FROM matches WHERE rowid IN (SELECT rid FROM temp.replaced);
        INSERT OR IGNORE INTO temp.touched SELECT title, platform, player FROM temp.gone;
        INSERT OR IGNORE INTO temp.touched SELECT title, platform, player FROM ${staged('rows', 'title, platform, player')};`);
    db.exec(`
      INSERT INTO matches (${MATCH_COLUMNS}) SELECT ${MATCH_COLUMNS} FROM ${staged('matches')};
      -- A table at a time, all its columns: into a store without the table's index, SQLite copies each row whole.
      ${stagedRowTables(files.length)
        .map((table) => `INSERT INTO match_players SELECT * FROM ${table}`)
        .join(';\n')};
      -- In the key's order, a player record given twice the later one last: it replaces the one before.
      INSERT INTO players (${PLAYER_COLUMNS}, declared) SELECT ${PLAYER_COLUMNS}, 1 FROM ${staged('players')} WHERE true ORDER BY title, platform, id_norm, ord
        ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle, handle_norm = excluded.handle_norm,
          avatar_url = excluded.avatar_url, vanity = excluded.vanity, vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1;
      ${Object.values(INDEXES).join(';\n')};`);
    // Each changed player's totals (and the rowid of their first row), taken into the store (takeTotals):
    // the offer's parts, each as soon as it is written, or here, from their stored totals, the new
    // rows and the rows of the matches replaced.
    let values: RankValues | undefined;
    if (offered) {
      for (let ready = await offered.more(); ready.length > 0; ready = await offered.more())
        for (const part of ready) takeTotals(db, files.length, `totals${part}.totals`);
      values = await offered.values();
    } else {
      db.exec(
        `CREATE TEMP TABLE changed AS ${totalsSql(
          `(SELECT title, platform, player, NULL AS seed, 1 AS sign, result, duration_s, stats, rid FROM ${staged('rows', 'rowid AS rid, *')}
          UNION ALL SELECT title, platform, player, NULL, -1, result, duration_s, stats, NULL FROM temp.gone
          UNION ALL SELECT t.title, t.platform, t.player, t.totals, 0, NULL, 0, NULL, NULL
            FROM player_totals t JOIN temp.touched u ON u.player = t.player AND u.title = t.title AND u.platform = t.platform)`,
          ', MIN(rid) AS first',
        )}`,
      );
      if (!fresh) db.exec('DELETE FROM player_totals WHERE (player, title, platform) IN (SELECT player, title, platform FROM temp.changed)');
      takeTotals(db, files.length, 'temp.changed');
    }
    // The ranks of each title touched: the offer's values, or every player's read back.
    const titles = values ? [...values.keys()] : (db.prepare('SELECT DISTINCT title FROM temp.changed').pluck().all() as string[]);
    const insert = db.prepare('INSERT INTO rank_chunks (title, key, lo, below, population, data) VALUES (?, ?, ?, ?, ?, ?)');
    for (const title of titles) {
      let ranked = values?.get(title);
      if (!ranked) {
        const lists = new Map<string, number[]>();
        for (const json of db.prepare('SELECT totals FROM player_totals WHERE title = ?').pluck().iterate(title) as Iterable<string>)
          addValues(lists, storedValues(json));
        ranked = sortedLists(lists);
      }
      db.prepare('DELETE FROM rank_chunks WHERE title = ?').run(title);
      for (const c of buildRankChunks(ranked)) insert.run(title, c.key, c.lo, c.below, c.population, c.data);
    }
    db.exec(`${DROP_TEMP}; DELETE FROM meta WHERE key = 'importing'; COMMIT`);
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.exec(DROP_TEMP);
    throw e;
  } finally {
    if (direct) {
      // The import committed (and cleared the mark) or was rolled back whole: the file is sound.
      db.prepare("DELETE FROM meta WHERE key = 'importing'").run();
      db.pragma('main.journal_mode = WAL');
      db.pragma('main.synchronous = NORMAL');
    }
    db.pragma('threads = 0');
    db.pragma(`main.cache_size = ${cacheSize}`);
    files.forEach((_, i) => db.exec(`DETACH stage${i}`));
    parts.forEach((_, i) => db.exec(`DETACH totals${i}`));
  }
  // Planner statistics, sampled: the hot statements' plans must not depend on them, but the rest may.
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
}
