// The first half of an import: dataset lines checked against the schema (src/service/dataset.ts)
// and written, as rows, to a stage: an SQLite file of the import's own. A file is staged by several
// threads at once (the import's and worker threads: src/service/import-worker.ts), each into a
// stage of its own, so that more cores stage faster. Once every stage is written, the import takes
// out of them the matches it refuses late and all but the last of a match given twice
// (dropMatchLines); a store then takes every stage in one transaction (src/service/sqlite-import.ts,
// src/service/pg-import.ts), where SQL does the set work: the rows in key order, the totals by
// GROUP BY.
//
// Each line has an order (`ord`): its chunk of the file times CHUNK_LINES, plus its place in the
// chunk. Stages read chunks out of file order, so a line's number is only known once every chunk's
// lines are counted (import.ts); its order is known at once and sorts as the lines do.
import Database from 'better-sqlite3';

import { MAX_MATCH_PLAYERS, MAX_STAT_NAMES, parseDatasetLine, type MatchRecord, type PlayerRecord } from './dataset.js';
import { MAX_LINE_BYTES, longLineReason, type LongLine } from './file-lines.js';
import { normalizeIdentifier } from './identifiers.js';

/** More lines than a chunk of the file can hold (a line has at least its end, one byte). */
export const CHUNK_LINES = 2 ** 23;

/** Refused lines a stage keeps (the import reports the first few of all, and counts the rest). */
export const REFUSED_KEPT = 100;

/**
 * The stage's tables: what the store's tables take, with each line's order. A match's rows go to one
 * table of partsOf(stages) by their player (partOf), so that an import's threads can each total a
 * part of the players from every stage without reading the others' (src/service/sqlite-import.ts).
 * A row is declared as the store declares it, so that SQLite copies it into a new store whole,
 * without reading its values; its rowid is its line's order and its place in the match (rowIdOf).
 * Players and matches are declared with the store's columns, after their line's order. ids: the
 * player's id as the line gives it, where it is not already their key (a player without a record
 * is shown by the id of their first row).
 */
const schema = (stages: number) => `
CREATE TABLE players (${STAGED_PLAYER_DECLARATION});
CREATE TABLE matches (ord INTEGER PRIMARY KEY, ${MATCH_DECLARATION});
CREATE TABLE ids (rid INTEGER PRIMARY KEY, id TEXT NOT NULL);
${rowTables(stages)
  .map((table) => `CREATE TABLE ${table} (${ROW_DECLARATION})`)
  .join(';\n')};
`;

/** A staged row's rowid: its match line's order and the player's place (seat) in the match's list. */
export const rowIdOf = (ord: number, seat: number): number => ord * MAX_MATCH_PLAYERS + seat;

/** The line's order and the seat of a staged row's rowid (rowIdOf). */
export const placeOfRow = (rid: number): { ord: number; seat: number } => ({ ord: Math.floor(rid / MAX_MATCH_PLAYERS), seat: rid % MAX_MATCH_PLAYERS });

/**
 * The parts of the players an import of `stages` stages totals (the row tables of each stage):
 * twice as many as its threads, so that a thread free early (the store's own is busy with its
 * statements first) takes parts another would have had to total alone, within the ten databases
 * SQLite attaches to a connection (each stage, and a file of totals a part).
 */
export const partsOf = (stages: number): number => Math.min(2 * stages, 10 - stages);

/** The tables of a stage's rows, one a part, in an import of `stages` stages. */
const rowTables = (stages: number) => Array.from({ length: partsOf(stages) }, (_, part) => `rows_${part}`);

/** Which of `parts` parts a player's rows go to: a hash of their normalised id (FNV-1a). */
export function partOf(player: string, parts: number): number {
  let h = 2166136261;
  for (let i = 0; i < player.length; i++) h = Math.imul(h ^ player.charCodeAt(i), 16777619);
  return (h >>> 0) % parts;
}

/**
 * The stages (attached as stage0, stage1, ...) read as one table: `rows` all the row tables of
 * each (as many as there are stages: see Stage), `rows_<part>` one part.
 */
export function stagedSql(stages: number, table: string, columns = '*'): string {
  const tables = table === 'rows' ? rowTables(stages) : [table];
  return `(${Array.from({ length: stages }, (_, i) => tables.map((t) => `SELECT ${columns} FROM stage${i}.${t}`))
    .flat()
    .join(' UNION ALL ')})`;
}

/** Each row table of the stages (`stage<i>.rows_<part>`), for a statement of its own. */
export const stagedRowTables = (stages: number): string[] => Array.from({ length: stages }, (_, i) => rowTables(stages).map((t) => `stage${i}.${t}`)).flat();

/**
 * The id a staged row gave, from its rowid and its player's key (SQL, each qualified by its table's
 * name): from the stages' `ids`, or the key, where it was the same.
 */
export const stagedIdSql = (stages: number, row: string, player: string): string =>
  `COALESCE(${Array.from({ length: stages }, (_, i) => `(SELECT i.id FROM stage${i}.ids i WHERE i.rid = ${row})`).join(', ')}, ${player})`;

/**
 * Sets `db` to write the database `schema` (a file of the import's own: a stage, a part's totals,
 * thrown away after it, and a failed import starts over) without a rollback journal and without
 * waiting for the disk. better-sqlite3's default (defensive) mode refuses `journal_mode = OFF`
 * without a word, and each transaction wrote and deleted a journal beside the file: its unsafe mode
 * allows it, on this connection.
 */
export function writeWithoutJournal(db: Database.Database, schema = 'main'): void {
  db.unsafeMode(true);
  db.pragma(`${schema}.journal_mode = OFF`);
  db.pragma(`${schema}.synchronous = OFF`);
}

/** Takes the match lines of order `ords`, their rows and ids, out of the stages attached to `db` (stage0, stage1, ...). */
export function dropMatchLines(db: Database.Database, stages: number, ords: Iterable<number>): void {
  const drops = Array.from({ length: stages }, (_, i) => {
    writeWithoutJournal(db, `stage${i}`);
    return [
      db.prepare(`DELETE FROM stage${i}.matches WHERE ord = ?`),
      ...[...rowTables(stages), 'ids'].map((t) => db.prepare(`DELETE FROM stage${i}.${t} WHERE rowid BETWEEN ? AND ?`)),
    ] as const;
  });
  db.transaction(() => {
    for (const ord of ords)
      for (const [match, ...rows] of drops) {
        match.run(ord);
        for (const row of rows) row.run(rowIdOf(ord, 0), rowIdOf(ord, MAX_MATCH_PLAYERS - 1));
      }
  })();
}

/** Matches given again later in the file (the same title and id): all but the last of each are taken out of the stages attached to `db`. */
export function dropSuperseded(db: Database.Database, stages: number): void {
  const superseded = db
    .prepare(
      `SELECT ord FROM (SELECT ord, row_number() OVER (PARTITION BY title, id ORDER BY ord DESC) AS later FROM ${stagedSql(stages, 'matches', 'ord, title, id')}) WHERE later > 1`,
    )
    .pluck()
    .all() as number[];
  if (superseded.length > 0) dropMatchLines(db, stages, superseded);
}

/**
 * The columns of the store's tables as it declares them (src/service/store.ts), and a stage's the
 * same: a match row's (the stage's rows declared alike, so that SQLite copies one into a new store
 * whole), a match's, and a player record's (the store's adds whether a record named the player).
 * PostgreSQL declares its tables from these too (pgDeclaration, src/service/pg-import.ts): only
 * TEXT, INTEGER and BIGINT (a time in milliseconds, eight bytes there; an integer to SQLite).
 */
export const ROW_DECLARATION = `title TEXT NOT NULL, platform TEXT NOT NULL, player TEXT NOT NULL,
  started_at BIGINT NOT NULL, match_id TEXT NOT NULL,
  duration_s INTEGER NOT NULL, team TEXT, result TEXT, hero TEXT, legend TEXT,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER,
  stats TEXT NOT NULL, weapons TEXT`;
export const MATCH_DECLARATION = `title TEXT NOT NULL, id TEXT NOT NULL, platform TEXT NOT NULL,
  started_at BIGINT NOT NULL, duration_s INTEGER NOT NULL,
  map TEXT, mode TEXT, playlist TEXT, queue TEXT, season INTEGER, players TEXT NOT NULL`;
export const PLAYER_DECLARATION = `title TEXT NOT NULL, platform TEXT NOT NULL, id_norm TEXT NOT NULL,
  id TEXT NOT NULL, handle TEXT NOT NULL, handle_norm TEXT NOT NULL,
  avatar_url TEXT, vanity TEXT, vanity_norm TEXT, private INTEGER NOT NULL DEFAULT 0`;

/** A stored player: the record's columns, and whether a record named the player (else they were seen in a match only). */
export const STORED_PLAYER_DECLARATION = `${PLAYER_DECLARATION}, declared INTEGER NOT NULL DEFAULT 0`;

/** A staged player record: its line's order, then the store's columns. */
export const STAGED_PLAYER_DECLARATION = `ord BIGINT NOT NULL, ${PLAYER_DECLARATION}`;

/** A declaration's columns, in its order: each one's name and type. */
export const declaredColumns = (declaration: string): { name: string; type: string }[] =>
  declaration.split(',').map((column) => {
    const [name = '', type = ''] = column.trim().split(' ');
    return { name, type };
  });

/** A declaration's column names, in its order. */
export const columnsOf = (declaration: string): string =>
  declaredColumns(declaration)
    .map((c) => c.name)
    .join(', ');
export const ROW_COLUMNS = columnsOf(ROW_DECLARATION);
export const MATCH_COLUMNS = columnsOf(MATCH_DECLARATION);
export const PLAYER_COLUMNS = columnsOf(PLAYER_DECLARATION);

/** A refused line by its order. */
export interface StagedRefusal {
  ord: number;
  reason: string;
}

/** What a stage tells the import when it is done. */
export interface StageReport {
  /** The first REFUSED_KEPT refused lines, in order, and how many in all. */
  refused: StagedRefusal[];
  refusedCount: number;
  players: number;
  matches: number;
  /** Per title, the first MAX_STAT_NAMES stat names this stage met, each with the order of the line it first came in (Stage.takeNames). */
  names: Record<string, [name: string, ord: number][]>;
}

/** Lines checked and written to a stage file; `add` them in order, then `close`. */
export class Stage {
  private readonly db: Database.Database;
  private readonly insert;
  private readonly report: StageReport = { refused: [], refusedCount: 0, players: 0, matches: 0, names: {} };
  private readonly names = new Map<string, Map<string, number>>();
  private open = false;

  /** A stage in `file`: one of an import's `stages`. */
  constructor(
    readonly file: string,
    stages: number,
  ) {
    this.db = new Database(file);
    writeWithoutJournal(this.db);
    this.db.exec(schema(stages));
    const insert = (table: string, columns: string) => this.db.prepare(`INSERT INTO ${table} (${columns}) VALUES (${columns.replace(/\w+/g, '?')})`);
    this.insert = {
      player: insert('players', columnsOf(STAGED_PLAYER_DECLARATION)),
      match: insert('matches', `ord, ${MATCH_COLUMNS}`),
      id: insert('ids', 'rid, id'),
      rows: rowTables(stages).map((table) => insert(table, `rowid, ${ROW_COLUMNS}`)),
    };
  }

  /** Checks one line (its text, or a LongLine when it was too long to read) and stages what it gives. */
  add(ord: number, line: string | LongLine): void {
    // A character is at most 3 bytes in UTF-8 a UTF-16 unit: most lines need no count.
    const bytes = typeof line !== 'string' ? line.longLine : line.length * 3 > MAX_LINE_BYTES ? Buffer.byteLength(line) : 0;
    if (typeof line !== 'string' || bytes > MAX_LINE_BYTES) return this.refuse(ord, longLineReason({ longLine: bytes }));
    // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
    const text = ord === 0 ? line.replace(/^\uFEFF/, '') : line;
    if (text.trim().length === 0) return;
    const parsed = parseDatasetLine(text);
    if ('reason' in parsed) return this.refuse(ord, parsed.reason);
    if (!this.open) {
      this.db.exec('BEGIN');
      this.open = true;
    }
    if (parsed.record.type === 'player') this.player(ord, parsed.record);
    else this.match(ord, parsed.record);
  }

  /** Ends a transaction of the stage (a chunk's lines): what was staged is on disk for the store to read. */
  commit(): void {
    if (this.open) this.db.exec('COMMIT');
    this.open = false;
  }

  close(): StageReport {
    this.commit();
    this.db.close();
    for (const [title, names] of this.names) this.report.names[title] = [...names];
    return this.report;
  }

  private refuse(ord: number, reason: string): void {
    if (this.report.refused.length < REFUSED_KEPT) this.report.refused.push({ ord, reason });
    this.report.refusedCount++;
  }

  private player(ord: number, p: PlayerRecord): void {
    const vanity = p.vanity ?? null;
    this.insert.player.run(
      ord,
      p.title,
      p.platform,
      normalizeIdentifier(p.id),
      p.id,
      p.handle,
      normalizeIdentifier(p.handle),
      p.avatarUrl ?? null,
      vanity,
      vanity && normalizeIdentifier(vanity),
      p.private ? 1 : 0,
    );
    this.report.players++;
  }

  private match(ord: number, m: MatchRecord): void {
    this.takeNames(ord, m);
    const startedAt = Date.parse(m.startedAt);
    const [map, mode, playlist, queue, season] = [m.map ?? null, m.mode ?? null, m.playlist ?? null, m.queue ?? null, m.season ?? null];
    const keys: [string, string][] = [];
    for (const [seat, p] of m.players.entries()) {
      const player = normalizeIdentifier(p.id);
      const row = rowIdOf(ord, seat);
      keys.push([p.platform, player]);
      if (player !== p.id) this.insert.id.run(row, p.id);
      (this.insert.rows[partOf(player, this.insert.rows.length)] as Database.Statement).run(
        row,
        m.title,
        p.platform,
        player,
        startedAt,
        m.id,
        m.durationSeconds,
        p.team ?? null,
        p.result ?? null,
        p.hero ?? null,
        p.legend ?? null,
        map,
        mode,
        playlist,
        queue,
        season,
        JSON.stringify(p.stats),
        p.weapons ? JSON.stringify(p.weapons) : null,
      );
    }
    this.insert.match.run(ord, m.title, m.id, m.platform, startedAt, m.durationSeconds, map, mode, playlist, queue, season, JSON.stringify(keys));
    this.report.matches++;
  }

  /**
   * Notes the match's stat names: the first MAX_STAT_NAMES of its title in this stage, each with the
   * order of the line it first came in. A name among the file's first MAX_STAT_NAMES is among the
   * first of the stage it first comes in (every name before it there comes before it in the file),
   * so the stages' notes tell the import the file's first names (src/service/import.ts), which
   * refuses a match with any other. A stage cannot refuse one itself: a name past its own first
   * names may have come earlier in another stage's chunks.
   */
  private takeNames(ord: number, m: MatchRecord): void {
    let names = this.names.get(m.title);
    if (!names) this.names.set(m.title, (names = new Map<string, number>()));
    for (const p of m.players)
      for (const key in p.stats) {
        if (names.size >= MAX_STAT_NAMES) return;
        if (!names.has(key)) names.set(key, ord);
      }
  }
}

/** Why a match with a stat name past its title's first MAX_STAT_NAMES is refused. */
export const tooManyNames = (title: string, player: number, name: string): string =>
  `players.${player}.stats.${name}: more than ${MAX_STAT_NAMES} distinct stat names for ${title} in one import`;
