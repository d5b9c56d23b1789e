// The second half of an import into SQLite: the stages (src/service/import-stage.ts) attached and
// taken in one transaction, as set work in SQL. Readers see the store as it was until it commits;
// an import that fails changes nothing.
import type Database from 'better-sqlite3';

import { MATCH_COLUMNS, PLAYER_COLUMNS, ROW_COLUMNS } from './import-stage.js';
import { addValues, buildRankChunks } from './ranks.js';
import { totalsToValues } from './aggregate.js';
import { storedValues, type StoredTotals } from './totals.js';

/**
 * A player's StoredTotals from their rows, as an aggregate of SQL's GROUP BY (`stored_totals(title,
 * result, duration_s, stats)`), each player's values kept for their title's ranks. SQL alone made
 * each player's sums a correlated query of its own: about twice the time over a store of many
 * players with few matches each (docs/benchmarks.md).
 */
type Totals = StoredTotals & { title: string };

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
      const json = JSON.stringify(totals);
      let byKey = ranks.get(title);
      if (!byKey) ranks.set(title, (byKey = new Map<string, number[]>()));
      addValues(byKey, totalsToValues({ ...totals, sums: new Map(Object.entries(totals.sums)) }));
      return json;
    },
  });
}

/** Takes the stages in `files` into the store `db`. */
export function takeStages(db: Database.Database, files: readonly string[], cores: number): void {
  // Attached before the transaction (SQLite attaches outside one), detached after it.
  files.forEach((file, i) => db.prepare(`ATTACH ? AS stage${i}`).run(file));
  const staged = (table: string, columns = '*') => `(${files.map((_, i) => `SELECT ${columns} FROM stage${i}.${table}`).join(' UNION ALL ')})`;
  // Matches given again later in the file: only the last of each id is taken.
  const latest = 'ord NOT IN (SELECT ord FROM temp.superseded)';
  const ranks = new Map<string, Map<string, number[]>>();
  totalsAggregate(db, ranks);
  db.pragma(`threads = ${cores}`);
  const fresh = db.prepare('SELECT NOT EXISTS (SELECT 1 FROM matches)').pluck().get() === 1;
  // A file without matches yet is filled without the write-ahead log, which would write each page
  // twice (there, then in the file): the rollback journal kept in memory instead. A crash half-way
  // can leave such a file broken: the mark, kept until the import commits, makes it refuse to open.
  const direct = fresh && !db.memory && db.pragma('journal_mode = MEMORY', { simple: true }) === 'memory';
  if (direct) {
    db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('importing', '1')").run();
    db.pragma('synchronous = OFF');
  }
  try {
    db.transaction(() => {
      db.exec(`
        CREATE TEMP TABLE superseded (ord INTEGER PRIMARY KEY);
        INSERT INTO temp.superseded SELECT ord FROM
          (SELECT ord, row_number() OVER (PARTITION BY title, id ORDER BY ord DESC) AS later FROM ${staged('matches', 'ord, title, id')}) WHERE later > 1;
        -- Players whose totals change: every player of a fresh store, else those of the stored matches replaced and of the new ones.
        CREATE TEMP TABLE touched (title TEXT, platform TEXT, player TEXT, PRIMARY KEY (player, title, platform)) WITHOUT ROWID;
        CREATE TEMP TABLE replaced (rid INTEGER PRIMARY KEY, title TEXT, id TEXT, started_at INTEGER, players TEXT);`);
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
      db.exec(`
        INSERT INTO matches (${MATCH_COLUMNS}) SELECT ${MATCH_COLUMNS} FROM ${staged('matches')} WHERE ${latest};
        -- In the order of the rows' index: it is then written as it grows, and a player's rows lie together.
        INSERT INTO match_players (${ROW_COLUMNS}) SELECT ${ROW_COLUMNS} FROM ${staged('rows')} WHERE ${latest} ORDER BY player, title, platform, started_at, match_id;
        -- A player record given twice: the later one.
        INSERT INTO players (${PLAYER_COLUMNS}, declared) SELECT ${PLAYER_COLUMNS}, 1 FROM ${staged('players')} WHERE true ORDER BY ord
          ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle, handle_norm = excluded.handle_norm,
            avatar_url = excluded.avatar_url, vanity = excluded.vanity, vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1;
        -- A player in a match without a record of their own: their id as first seen is their handle.
        INSERT OR IGNORE INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
          SELECT title, platform, player, player_id, player_id, player, 0 FROM ${staged('rows', 'ord, title, platform, player, player_id')} r
          WHERE NOT EXISTS (SELECT 1 FROM players p WHERE p.title = r.title AND p.platform = r.platform AND p.id_norm = r.player) ORDER BY ord;
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
        const byKey = ranks.get(title) ?? new Map<string, number[]>();
        if (!fresh) for (const json of untouched.iterate(title) as Iterable<string>) addValues(byKey, storedValues(json));
        db.prepare('DELETE FROM rank_chunks WHERE title = ?').run(title);
        for (const c of buildRankChunks(byKey)) insert.run(title, c.key, c.lo, c.below, c.population, c.data);
      }
      db.exec("DROP TABLE temp.superseded; DROP TABLE temp.touched; DROP TABLE temp.replaced; DELETE FROM meta WHERE key = 'importing'");
    })();
  } finally {
    if (direct) {
      // The import committed (and cleared the mark) or was rolled back whole: the file is sound.
      db.prepare("DELETE FROM meta WHERE key = 'importing'").run();
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
    }
    db.pragma('threads = 0');
    files.forEach((_, i) => db.exec(`DETACH stage${i}`));
  }
  // Planner statistics, sampled: the hot statements' plans must not depend on them, but the rest may.
  db.pragma('analysis_limit = 1000');
  db.exec('ANALYZE');
}
