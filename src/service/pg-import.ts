// The second half of an import into PostgreSQL: the stages (src/service/import-stage.ts) read here,
// copied into temporary tables of the import's transaction, and taken as set work in SQL, as
// src/service/sqlite-import.ts does for SQLite. Other processes serving the store see it as it was
// until the transaction commits; an import that fails, or whose process dies, changes nothing.
import Database from 'better-sqlite3';
import type pg from 'pg';

import {
  MATCH_COLUMNS,
  MATCH_DECLARATION,
  PLAYER_COLUMNS,
  ROW_COLUMNS,
  ROW_DECLARATION,
  STAGED_PLAYER_DECLARATION,
  declaredColumns,
  stagedIdSql,
  stagedSql,
} from './import-stage.js';
import { addValues, buildRankChunks, sortedLists } from './ranks.js';
import { storedValues } from './totals.js';

/** Stage rows sent a statement. */
const BATCH = 5_000;

/**
 * Declarations in SQLite's words (those of src/service/import-stage.ts, a store's tables) as
 * PostgreSQL takes them: text compared byte by byte (collation "C"), as SQLite compares it, so that
 * both stores sort and find alike.
 */
export const pgDeclaration = (declaration: string): string => declaration.replace(/\bTEXT\b/g, 'TEXT COLLATE "C"');

/** The array type each declared type is sent as (unnest). */
const ARRAY_TYPES = new Map([
  ['TEXT', 'text'],
  ['INTEGER', 'int4'],
  ['BIGINT', 'int8'],
]);

/** Each staged table as the stages declare it, its columns and their array types; `implicit`: each row's player with the id the row gave. */
const STAGED = Object.entries({
  players: STAGED_PLAYER_DECLARATION,
  implicit: 'rid BIGINT, title TEXT, platform TEXT, player TEXT, player_id TEXT',
  matches: MATCH_DECLARATION,
  rows: ROW_DECLARATION,
}).map(([table, declaration]) => {
  const declared = declaredColumns(declaration);
  const types = declared.map(({ name, type }) => {
    const array = ARRAY_TYPES.get(type);
    if (!array) throw new Error(`staged column ${table}.${name}: no array type for ${type}`);
    return array;
  });
  return { table, declaration, columns: declared.map((d) => d.name).join(', '), types };
});

/** A player's totals from their rows (`mp`, grouped by player): the layout storedValues reads. */
const TOTALS_SQL = `json_build_object('matchesPlayed', COUNT(*), 'wins', COUNT(*) FILTER (WHERE mp.result = 'win'),
  'losses', COUNT(*) FILTER (WHERE mp.result = 'loss'), 'timePlayed', SUM(mp.duration_s),
  'sums', (SELECT COALESCE(json_object_agg(key, json_build_array(total, n)), '{}')
    FROM (SELECT j.key, SUM(j.value::float8) AS total, COUNT(*) AS n FROM match_players r, jsonb_each_text(r.stats::jsonb) j
      WHERE r.title = mp.title AND r.platform = mp.platform AND r.player = mp.player GROUP BY j.key) s))::text`;

/** Takes the stages in `files` into the store, in the transaction of `c`. */
export async function takeStagesPg(c: pg.ClientBase, files: readonly string[]): Promise<void> {
  const local = new Database(':memory:');
  try {
    files.forEach((file, i) => local.prepare(`ATTACH ? AS stage${i}`).run(file));
    const staged = (table: string, columns: string) => stagedSql(files.length, table, columns);
    for (const { table, declaration, columns, types } of STAGED) {
      await c.query(`CREATE TEMP TABLE staged_${table} (${pgDeclaration(declaration)}) ON COMMIT DROP`);
      const select = local
        .prepare(
          table === 'implicit'
            ? `SELECT r.*, ${stagedIdSql(files.length, 'r.rid', 'r.player')} FROM ${staged('rows', 'rowid AS rid, title, platform, player')} r`
            : `SELECT ${columns} FROM ${staged(table, columns)}`,
        )
        .raw();
      let batch: unknown[][] = [];
      const send = async () => {
        const params = types.map((_, i) => batch.map((row) => row[i]));
        await c.query(`INSERT INTO staged_${table} SELECT * FROM unnest(${types.map((t, i) => `$${i + 1}::${t}[]`).join(', ')})`, params);
        batch = [];
      };
      for (const row of select.iterate() as Iterable<unknown[]>) {
        batch.push(row);
        if (batch.length === BATCH) await send();
      }
      if (batch.length > 0) await send();
    }
  } finally {
    local.close();
  }
  await c.query(`
    CREATE TEMP TABLE replaced ON COMMIT DROP AS SELECT m.title, m.id, m.started_at, m.players FROM matches m JOIN staged_matches s USING (title, id);
    CREATE TEMP TABLE touched ON COMMIT DROP AS
      SELECT r.title, j ->> 0 AS platform, j ->> 1 AS player FROM replaced r, jsonb_array_elements(r.players::jsonb) j
      UNION SELECT title, platform, player FROM staged_rows;
    DELETE FROM match_players mp USING replaced r, jsonb_array_elements(r.players::jsonb) j
      WHERE mp.title = r.title AND mp.platform = j ->> 0 AND mp.player = j ->> 1 AND mp.started_at = r.started_at AND mp.match_id = r.id;
    DELETE FROM matches m USING replaced r WHERE m.title = r.title AND m.id = r.id;
    INSERT INTO matches (${MATCH_COLUMNS}) SELECT ${MATCH_COLUMNS} FROM staged_matches;
    INSERT INTO match_players (${ROW_COLUMNS}) SELECT ${ROW_COLUMNS} FROM staged_rows;
    -- A player record given twice: the later one.
    INSERT INTO players (${PLAYER_COLUMNS}, declared) SELECT DISTINCT ON (title, platform, id_norm) ${PLAYER_COLUMNS}, 1 FROM staged_players
      ORDER BY title, platform, id_norm, ord DESC
      ON CONFLICT (title, platform, id_norm) DO UPDATE SET id = excluded.id, handle = excluded.handle, handle_norm = excluded.handle_norm,
        avatar_url = excluded.avatar_url, vanity = excluded.vanity, vanity_norm = excluded.vanity_norm, private = excluded.private, declared = 1;
    -- A player in a match without a record of their own: their id as first seen is their handle.
    INSERT INTO players (title, platform, id_norm, id, handle, handle_norm, declared)
      SELECT DISTINCT ON (title, platform, player) title, platform, player, player_id, player_id, player, 0 FROM staged_implicit
      ORDER BY title, platform, player, rid
      ON CONFLICT DO NOTHING;
    DELETE FROM player_totals t USING touched u WHERE t.title = u.title AND t.platform = u.platform AND t.player = u.player;
    INSERT INTO player_totals (title, platform, player, totals) SELECT mp.title, mp.platform, mp.player, ${TOTALS_SQL}
      FROM touched u JOIN match_players mp ON mp.title = u.title AND mp.platform = u.platform AND mp.player = u.player
      GROUP BY mp.title, mp.platform, mp.player`);
  const { rows } = await c.query<{ title: string }>('SELECT DISTINCT title FROM touched');
  for (const { title } of rows) await rebuildRanks(c, title);
}

/** Rebuilds one title's rank material from its players' totals. */
async function rebuildRanks(c: pg.ClientBase, title: string): Promise<void> {
  const byKey = new Map<string, number[]>();
  const { rows } = await c.query<{ totals: string }>('SELECT totals FROM player_totals WHERE title = $1', [title]);
  for (const { totals } of rows) addValues(byKey, storedValues(totals));
  await c.query('DELETE FROM rank_chunks WHERE title = $1', [title]);
  const chunks = buildRankChunks(sortedLists(byKey));
  if (chunks.length === 0) return;
  await c.query(
    `INSERT INTO rank_chunks (title, key, lo, below, population, data)
     SELECT $1, * FROM unnest($2::text[], $3::float8[], $4::int4[], $5::int4[], $6::bytea[])`,
    [title, chunks.map((x) => x.key), chunks.map((x) => x.lo), chunks.map((x) => x.below), chunks.map((x) => x.population), chunks.map((x) => x.data)],
  );
}
