// The second half of an import into SQLite: the stages (src/service/import-stage.ts) attached and
// taken in one transaction, as set work in SQL. Readers see the store as it was until it commits;
// an import that fails changes nothing.
//
// Into a store without matches (a first import), the players' totals are the stages' own: the
// import's workers total their share of the players from the stages (stageTotals) while this
// thread writes the rows, so that more cores help here too. Into a store with matches, the totals
// of the players the import touches are summed again from all their rows here.
import Database from 'better-sqlite3';

import { totalsToValues } from './aggregate.js';
import { MATCH_COLUMNS, PLAYER_COLUMNS, ROW_COLUMNS, stagedSql } from './import-stage.js';
import { addValues, buildRankChunks, sortedLists, type RankValues } from './ranks.js';
import type { TotalsOffer } from './store-api.js';
import { INDEXES } from './store.js';
import { storedValues, type StoredTotals } from './totals.js';

/** The table a part of the totals is written to (stageTotals): made by the store before it attaches the file. */
const TOTALS_TABLE = 'CREATE TABLE IF NOT EXISTS totals (title TEXT, platform TEXT, player TEXT, totals TEXT, player_id TEXT, ord INTEGER)';

type Totals = StoredTotals & { title: string };

/**
 * The aggregate `stored_totals(title, result, duration_s, stats)` for SQL's GROUP BY: a player's
 * StoredTotals as JSON, their values kept in `ranks` for their title's. In SQL alone each player's
 * sums were a correlated query of their own, twice the time over many players with few matches.
 */
function totalsAggregate(db: Database.Database, ranks: Map<string, Map<string, number[]>>): void {
  db.aggregate('stored_totals', {
    varargs: true,
    // Sums without a prototype: a stat may be named `constructor` or `toString`.
    start: (): Totals => ({ title: '', matchesPlayed: 0, wins: 0, losses: 0, timePlayed: 0, sums: Object.create(null) as Record<string, number> }),
    step: (t: Totals, ...row: unknown[]) => {
      const [title, result, duration, stats] = row as [string, string | null, number, string];
      t.title = title;
      t.matchesPlayed++;
      if (result === 'win') t.wins++;
      else if (result === 'loss') t.losses++;
      t.timePlayed += duration;
      const numbers = JSON.parse(stats) as Record<string, number>;
      for (const key in numbers) t.sums[key] = (t.sums[key] ?? 0) + (numbers[key] as number);
      return t;
    },
    result: ({ title, ...totals }: Totals) => {
      let byKey = ranks.get(title);
      if (!byKey) ranks.set(title, (byKey = new Map<string, number[]>()));
      addValues(byKey, totalsToValues({ ...totals, sums: new Map(Object.entries(totals.sums)) }));
      return JSON.stringify(totals);
    },
  });
}

const attach = (db: Database.Database, files: readonly string[], as = 'stage') => files.forEach((file, i) => db.prepare(`ATTACH ? AS ${as}${i}`).run(file));

/**
 * A worker's part of TotalsOffer: the totals of the players of part `part` (partOf) over the
 * stages' rows (those of superseded matches left out), written to `out`, with the id each player's
 * first line gave (their handle if no record names them); their values for the ranks.
 */
export function stageTotals(files: readonly string[], superseded: readonly number[], part: number, out: string): RankValues {
  const db = new Database(out);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    attach(db, files);
    db.exec(`${TOTALS_TABLE}; CREATE TEMP TABLE superseded (ord INTEGER PRIMARY KEY)`);
    const insert = db.prepare('INSERT INTO temp.superseded VALUES (?)');
    for (const ord of superseded) insert.run(ord);
    const lists = new Map<string, Map<string, number[]>>();
    totalsAggregate(db, lists);
    // SQLite takes a bare column (player_id) from the row of the one MIN in the query.
    db.exec(`INSERT INTO totals SELECT title, platform, player, stored_totals(title, result, duration_s, stats), player_id, MIN(ord)
      FROM ${stagedSql(files.length, `rows_${part}`, 'ord, title, platform, player, result, duration_s, stats, player_id')}
      WHERE ord NOT IN (SELECT ord FROM temp.superseded) GROUP BY player, title, platform`);
    return new Map([...lists].map(([title, byKey]) => [title, sortedLists(byKey)]));
  } finally {
    db.close();
  }
}

/** Takes the stages in `files` into the store `db`; into one without matches, with totals from `offer` when there is one. */
export async function takeStages(db: Database.Database, files: readonly string[], cores: number, offer?: TotalsOffer): Promise<void> {
  const fresh = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM matches)').pluck().get() === 1;
  const parts = fresh && offer ? offer.files : [];
  for (const file of parts) new Database(file).exec(TOTALS_TABLE).close();
  // Attached before the transaction (SQLite attaches outside one), detached after it.
  attach(db, files);
  attach(db, parts, 'totals');
  const staged = (table: string, columns = '*') => stagedSql(files.length, table, columns);
  // Matches given again later in the file: only the last of each id is taken.
  const latest = 'ord NOT IN (SELECT ord FROM temp.superseded)';
  const lists = new Map<string, Map<string, number[]>>();
  totalsAggregate(db, lists);
  let offered: RankValues | undefined;
  db.pragma(`threads = ${cores}`);
  // A file without matches yet is filled without the write-ahead log, which would write each page
  // twice (there, then in the file): the rollback journal kept in memory instead. A crash half-way
  // can leave such a file broken: the mark, kept until the import commits, makes it refuse to open.
  const direct = fresh && !db.memory && db.pragma('journal_mode = MEMORY', { simple: true }) === 'memory';
  if (direct) {
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('importing', '1')").run();
    db.pragma('synchronous = OFF');
  }
  db.exec('BEGIN');
  try {
    db.exec(`
      CREATE TEMP TABLE superseded (ord INTEGER PRIMARY KEY);
      INSERT INTO temp.superseded SELECT ord FROM
        (SELECT ord, row_number() OVER (PARTITION BY title, id ORDER BY ord DESC) AS later FROM ${staged('matches', 'ord, title, id')}) WHERE later > 1;
      -- Players whose totals change: every player of a fresh store, else those of the stored matches replaced and of the new ones.
      CREATE TEMP TABLE touched (title TEXT, platform TEXT, player TEXT, PRIMARY KEY (player, title, platform)) WITHOUT ROWID;
      CREATE TEMP TABLE replaced (rid INTEGER PRIMARY KEY, title TEXT, id TEXT, started_at INTEGER, players TEXT);`);
    const totalled = parts.length > 0 ? offer?.start(db.prepare('SELECT ord FROM temp.superseded').pluck().all() as number[]) : undefined;
    // Settled here if this transaction fails first; awaited below otherwise.
    totalled?.catch(() => undefined);
    if (!fresh)
      db.exec(`
        INSERT OR IGNORE INTO temp.replaced SELECT m.rowid, m.title, m.id, m.started_at, m.players
          FROM ${staged('matches', 'title, id')} s JOIN matches m ON m.id = s.id AND m.title = s.title;
        INSERT OR IGNORE INTO temp.touched SELECT r.title, j.value ->> 0, j.value ->> 1 FROM temp.replaced r, json_each(r.players) j;
        INSERT OR IGNORE INTO temp.touched SELECT title, platform, player FROM ${staged('rows', 'title, platform, player')};
        DELETE FROM match_players WHERE rowid IN (SELECT mp.rowid FROM temp.replaced r, json_each(r.players) j JOIN match_players mp
          ON mp.player = j.value ->> 1 AND mp.title = r.title AND mp.platform = j.value ->> 0 AND mp.started_at = r.started_at AND mp.match_id = r.id);
        DELETE FROM matches WHERE rowid IN (SELECT rid FROM temp.replaced);
        DELETE FROM player_totals WHERE (player, title, platform) IN (SELECT player, title, platform FROM temp.touched);`);
    if (totalled)
      db.exec(
        Object.keys(INDEXES)
          .map((name) => `DROP INDEX ${name}`)
          .join('; '),
      );
    const rows = `INSERT INTO match_players (${ROW_COLUMNS}) SELECT ${ROW_COLUMNS} FROM ${staged('rows')} WHERE ${latest}`;
    db.exec(`
      INSERT INTO matches (${MATCH_COLUMNS}) SELECT ${MATCH_COLUMNS} FROM ${staged('matches')} WHERE ${latest};
      ${
        totalled
          ? // Nothing reads the rows in this import: appended, and the indexes built once, at the end.
            rows
          : // Read again for the totals: in the index's order, so that each player's rows lie together.
            `${rows} ORDER BY player, title, platform, started_at, match_id`
      };
      -- A player record given twice: the later one (SQLite takes bare columns from the row of the one MAX), in the key's order.
      INSERT INTO players (${PLAYER_COLUMNS}, declared) SELECT ${PLAYER_COLUMNS}, 1
        FROM (SELECT *, MAX(ord) FROM ${staged('players')} GROUP BY title, platform, id_norm) WHERE true
        ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle, handle_norm = excluded.handle_norm,
          avatar_url = excluded.avatar_url, vanity = excluded.vanity, vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1;`);
    // A player in a match without a record of their own: the id of their first line is their handle.
    const implicit = (from: string) => `INSERT OR IGNORE INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
      SELECT title, platform, player, player_id, player_id, player, 0 FROM ${from} r
      WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.title = r.title AND p.platform = r.platform AND p.id_norm = r.player)`;
    if (totalled) {
      // The indexes while the workers total.
      db.exec(Object.values(INDEXES).join('; '));
      offered = await totalled;
      const totals = `(${parts.map((_, i) => `SELECT * FROM totals${i}.totals`).join(' UNION ALL ')})`;
      db.exec(`INSERT INTO player_totals (title, platform, player, totals) SELECT title, platform, player, totals FROM ${totals};
        ${implicit(totals)}`);
    } else
      db.exec(`
        -- SQLite takes a bare column (player_id) from the row of the one MIN in the query.
        ${implicit(`(SELECT title, platform, player, player_id, MIN(ord) FROM ${staged('rows', 'ord, title, platform, player, player_id')} GROUP BY title, platform, player)`)};
        INSERT INTO player_totals (title, platform, player, totals)
          SELECT mp.title, mp.platform, mp.player, stored_totals(mp.title, mp.result, mp.duration_s, mp.stats)
          FROM ${fresh ? 'match_players mp' : 'temp.touched t JOIN match_players mp ON mp.player = t.player AND mp.title = t.title AND mp.platform = t.platform'}
          GROUP BY mp.player, mp.title, mp.platform;`);
    // The ranks of each title touched: its players' values, those of the players not touched read back.
    const titles = db
      .prepare(`SELECT DISTINCT title FROM ${fresh ? 'player_totals' : 'temp.touched'}`)
      .pluck()
      .all() as string[];
    const untouched = db
      .prepare('SELECT totals FROM player_totals WHERE title = ? AND (player, title, platform) NOT IN (SELECT player, title, platform FROM temp.touched)')
      .pluck();
    const insert = db.prepare('INSERT INTO rank_chunks (title, key, lo, below, population, data) VALUES (?, ?, ?, ?, ?, ?)');
    for (const title of titles) {
      const own = lists.get(title) ?? new Map<string, number[]>();
      if (!fresh) for (const json of untouched.iterate(title) as Iterable<string>) addValues(own, storedValues(json));
      db.prepare('DELETE FROM rank_chunks WHERE title = ?').run(title);
      for (const c of buildRankChunks(offered?.get(title) ?? sortedLists(own))) insert.run(title, c.key, c.lo, c.below, c.population, c.data);
    }
    db.exec("DROP TABLE temp.superseded; DROP TABLE temp.touched; DROP TABLE temp.replaced; DELETE FROM meta WHERE key = 'importing'; COMMIT");
  } catch (e) {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.exec('DROP TABLE IF EXISTS temp.superseded; DROP TABLE IF EXISTS temp.touched; DROP TABLE IF EXISTS temp.replaced');
    throw e;
  } finally {
    if (direct) {
      // The import committed (and cleared the mark) or was rolled back whole: the file is sound.
      db.prepare("DELETE FROM meta WHERE key = 'importing'").run();
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('threads = 0');
    files.forEach((_, i) => db.exec(`DETACH stage${i}`));
    parts.forEach((_, i) => db.exec(`DETACH totals${i}`));
  }
  // Planner statistics, sampled: the hot statements' plans must not depend on them, but the rest may.
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
}
