// A match line read straight from its bytes, for a parse worker (src/service/parse-worker.ts). Parsed
// into objects (JSON.parse), checked (fastMatchRecord), turned into rows (JSON.stringify) and packed
// back into bytes, a generated match line cost a parse worker 57 to 80 µs on the machine measured;
// much of it made and walked objects that only went back into JSON text. Read here, with its checks,
// totals, keys and rows (JSONB, its strings and numbers copied from the line), 38 to 57.
//
// Only what it is sure of is read here: a line in plain form (ASCII, no escapes, every number in the
// form JSON.stringify writes it, no key twice, only the keys the schema keeps). Anything else is left
// to parseDatasetLine, which decides and explains; a test holds the two to the same values, keys,
// totals and refusals, and to rows SQLite reads as the same JSON.
import { MAX_STAT_VALUE } from './dataset.js';
import { QUEUES, TITLE_SLUGS, platformsOfTitle } from '../catalog/index.js';
import { JSONB_ARRAY, JSONB_FLOAT, JSONB_INT, JSONB_NULL, JSONB_OBJECT, JSONB_TEXT, jsonbClose, jsonbHeader, jsonbOpen } from './jsonb.js';
import type { TotalsDeltas } from './totals.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const DOT = 0x2e;
const SLASH = 0x2f;
const ZERO = 0x30;
const NINE = 0x39;
const DEL = 0x7f;

/** Not read here: the caller parses the line its own way. Thrown, never shown. */
const NOT_PLAIN = new Error('not a plain match line');

/** JSON's whitespace, which a plain line may have between its tokens. */
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
/** What String.prototype.trim takes off an ASCII string's ends (and `\s` matches in it). */
const isTrimmed = (b: number) => b === 0x20 || (b >= 0x09 && b <= 0x0d);

const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
/** Bytes a plain string may hold: printable ASCII but the quote and the backslash. */
const PLAIN = new Uint8Array(256);
for (let b = 0x20; b < DEL; b++) if (b !== QUOTE && b !== BACKSLASH) PLAIN[b] = 1;

const bytesOf = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

/** Keys of a match record, as bits. */
const MATCH_KEY = {
  type: 1,
  title: 2,
  platform: 4,
  id: 8,
  startedAt: 16,
  durationSeconds: 32,
  map: 64,
  mode: 128,
  playlist: 256,
  queue: 512,
  season: 1024,
  players: 2048,
} as const;
/** Keys of a match's player, as bits. */
const PLAYER_KEY = { id: 1, platform: 2, team: 4, result: 8, hero: 16, legend: 32, stats: 64, weapons: 128 } as const;
type KeyBits = Readonly<Record<string, number>>;

/** A record's keys by their length, each with its bytes and bit. */
type KeyTable = { bytes: Uint8Array; bit: number }[][];

function keyTable(keys: KeyBits): KeyTable {
  const table: KeyTable = [];
  for (const [key, bit] of Object.entries(keys)) (table[key.length] ??= []).push({ bytes: bytesOf(key), bit });
  return table;
}
const MATCH_KEYS = keyTable(MATCH_KEY);
const PLAYER_KEYS = keyTable(PLAYER_KEY);

const TITLES = new Set<string>(TITLE_SLUGS);
const QUEUE_SET = new Set<string>(QUEUES);
const ALLOWED = new Map(TITLE_SLUGS.map((t) => [t as string, new Set<string>(platformsOfTitle(t))]));
const TYPE_MATCH = bytesOf('match');
const RESULT_WIN = bytesOf('win');
const RESULT_LOSS = bytesOf('loss');
const RESULT_DRAW = bytesOf('draw');
const NULL = bytesOf('null');

/** A string's place in the line, its quotes not included; `start` -1 for null or absent. */
interface Span {
  start: number;
  end: number;
}

/** What the line says of one player. */
interface LinePlayer {
  platform: string;
  id: string;
  /** The id as players are keyed (NFC, lower case: an ASCII id in lower case). */
  key: string;
  result: 'win' | 'loss' | 'draw' | null;
  team: Span;
  hero: Span;
  legend: Span;
  /** Where the stats object starts in the line (its `{`). */
  statsAt: number;
  /** Where the weapons object starts; -1 when the player has none. */
  weaponsAt: number;
  /** Where the player's stats are among the line's stat names and values. */
  firstStat: number;
  statsEnd: number;
}

/**
 * Reads match lines from their bytes, one at a time (`read`), and writes what the store needs of
 * each: its keys' JSON, the bytes prepareMatch makes (`writeKeys`), and its rows in JSONB
 * (`writeRows`). One reader serves a whole import: what it holds is the last line read.
 */
export class MatchLineReader {
  private line: Buffer = Buffer.alloc(0);
  private at = 0;

  title = '';
  platform = '';
  id = '';
  startedAt = 0;
  durationSeconds = 0;
  map: string | null = null;
  mode: string | null = null;
  playlist: string | null = null;
  queue: string | null = null;
  season: number | null = null;
  /** The players read, `playerCount` of them (the rest are left from longer lines, to use again). */
  readonly players: LinePlayer[] = [];
  playerCount = 0;
  /** Every player's stat names and values, in line order (see LinePlayer.firstStat). */
  readonly statNames: string[] = [];
  readonly statValues: number[] = [];
  statCount = 0;

  /** Names and labels met before, by their bytes' hash: the same few come on every line. */
  private readonly names = new Map<number, string>();

  /**
   * The most bytes writeKeys and writeRows write for a line of `bytes` bytes: the keys take less than
   * the line, and so do the rows but for 3 bytes more an object or array (JSONB's 5-byte headers for
   * `{}` and `[]`, each in a line at least 3 bytes with its key).
   */
  static textRoom(bytes: number): number {
    return 3 * bytes + 64;
  }

  /** Writes the players' keys as prepareMatch makes them (`[[platform, key], ...]`) into `out` at `at`; returns where they end. */
  writeKeys(out: Buffer, at: number): number {
    let i = at;
    out[i++] = OPEN_ARRAY;
    for (let k = 0; k < this.playerCount; k++) {
      const p = this.players[k] as LinePlayer;
      if (k > 0) out[i++] = COMMA;
      out[i++] = OPEN_ARRAY;
      i = quoted(out, i, p.platform);
      out[i++] = COMMA;
      i = quoted(out, i, p.key);
      out[i++] = CLOSE_ARRAY;
    }
    out[i++] = CLOSE_ARRAY;
    return i;
  }

  /**
   * Writes the rows as prepareMatch makes them (`[[platform, key, team, result, hero, legend, stats,
   * weapons?], ...]`), in JSONB (src/service/jsonb.ts), into `out` at `at`, the strings and numbers
   * copied from the line; returns where they end. SQLite writes their stats and weapons back as the
   * text JSON.stringify makes of them.
   */
  writeRows(out: Buffer, at: number): number {
    const rows = at;
    let i = jsonbOpen(out, rows, JSONB_ARRAY, true);
    for (let k = 0; k < this.playerCount; k++) {
      const p = this.players[k] as LinePlayer;
      const row = i;
      i = jsonbOpen(out, row, JSONB_ARRAY);
      i = jsonbText(out, i, p.platform);
      i = jsonbText(out, i, p.key);
      i = this.copyString(out, i, p.team);
      i = p.result === null ? jsonbHeader(out, i, JSONB_NULL, 0) : jsonbText(out, i, p.result);
      i = this.copyString(out, i, p.hero);
      i = this.copyString(out, i, p.legend);
      i = this.copyObject(out, i, p.statsAt);
      if (p.weaponsAt !== -1) i = this.copyObject(out, i, p.weaponsAt);
      i = jsonbClose(out, row, i);
    }
    return jsonbClose(out, rows, i);
  }

  /** A string of the line (plain: nothing to escape), or null. */
  private copyString(out: Buffer, at: number, s: Span): number {
    if (s.start === -1) return jsonbHeader(out, at, JSONB_NULL, 0);
    const line = this.line;
    let i = jsonbHeader(out, at, JSONB_TEXT, s.end - s.start);
    for (let k = s.start; k < s.end; k++) out[i++] = line[k] ?? 0;
    return i;
  }

  /**
   * The object of the line starting at `from` (its `{`): a map of names to numbers or to such maps,
   * read already (plain strings, numbers in JSON.stringify's form).
   */
  private copyObject(out: Buffer, at: number, from: number): number {
    const line = this.line;
    let i = jsonbOpen(out, at, JSONB_OBJECT);
    let k = from + 1;
    for (;;) {
      let b = line[k] ?? CLOSE_OBJECT;
      while (isSpace(b) || b === COMMA) b = line[++k] ?? CLOSE_OBJECT;
      if (b === CLOSE_OBJECT) break;
      // A name, then its value.
      let end = k + 1;
      while (line[end] !== QUOTE) end++;
      i = jsonbHeader(out, i, JSONB_TEXT, end - k - 1);
      for (let c = k + 1; c < end; c++) out[i++] = line[c] ?? 0;
      k = end + 1;
      b = line[k] ?? 0;
      while (isSpace(b) || b === COLON) b = line[++k] ?? 0;
      if (b === OPEN_OBJECT) {
        i = this.copyObject(out, i, k);
        k = this.copyEnd;
        continue;
      }
      const start = k;
      let float = false;
      for (; isNumeric(b); b = line[++k] ?? 0) if (b === DOT || b === 0x65 || b === 0x45) float = true;
      i = jsonbHeader(out, i, float ? JSONB_FLOAT : JSONB_INT, k - start);
      for (let c = start; c < k; c++) out[i++] = line[c] ?? 0;
    }
    this.copyEnd = k + 1;
    return jsonbClose(out, at, i);
  }
  /** Where the last object copied ended in the line. */
  private copyEnd = 0;

  /**
   * Adds every player's row to `deltas`, as prepareMatch does; the players first seen by them go to
   * `implicit`, three values each (platform, key, id as written).
   */
  addTotals(deltas: TotalsDeltas, implicit: string[]): void {
    for (let k = 0; k < this.playerCount; k++) {
      const p = this.players[k] as LinePlayer;
      if (deltas.addNumbers(this.title, p.platform, p.key, p.result, this.durationSeconds, this.statNames, this.statValues, p.firstStat, p.statsEnd))
        implicit.push(p.platform, p.key, p.id);
    }
  }

  /** The line's stats as records are (for StatNames.take, which says which player's stat it refuses). */
  statsRecord(): { title: string; players: { stats: Record<string, number> }[] } {
    const players: { stats: Record<string, number> }[] = [];
    for (let k = 0; k < this.playerCount; k++) {
      const p = this.players[k] as LinePlayer;
      const stats: Record<string, number> = {};
      for (let n = p.firstStat; n < p.statsEnd; n++) stats[this.statNames[n] as string] = this.statValues[n] as number;
      players.push({ stats });
    }
    return { title: this.title, players };
  }

  /** Reads `line`: true when it is a match in plain form, now held here; false to leave it to parseDatasetLine. */
  read(line: Buffer): boolean {
    this.line = line;
    this.at = 0;
    this.playerCount = 0;
    this.statCount = 0;
    try {
      this.readMatch();
      return true;
    } catch (e) {
      if (e === NOT_PLAIN) return false;
      throw e;
    }
  }

  private readMatch(): void {
    let seen = 0;
    let title: string | undefined;
    let platform: string | undefined;
    let id: string | undefined;
    let startedAt = NaN;
    let duration = -1;
    this.map = this.mode = this.playlist = this.queue = null;
    this.season = null;
    this.openRecord();
    for (;;) {
      const bit = this.newKey(MATCH_KEYS, seen);
      seen |= bit;
      switch (bit) {
        case MATCH_KEY.type: {
          const s = this.string();
          if (s.end - s.start !== TYPE_MATCH.length || !this.sameAs(s, TYPE_MATCH)) throw NOT_PLAIN;
          break;
        }
        case MATCH_KEY.title:
          title = this.name(this.string());
          break;
        case MATCH_KEY.platform:
          platform = this.name(this.string());
          break;
        case MATCH_KEY.id:
          id = this.matchId(this.string());
          break;
        case MATCH_KEY.startedAt:
          startedAt = this.dateTime(this.string());
          break;
        case MATCH_KEY.durationSeconds:
          duration = this.number();
          if (!Number.isInteger(duration) || duration < 0 || duration > 86_400) throw NOT_PLAIN;
          break;
        case MATCH_KEY.map:
          this.map = this.optionalLabel(100);
          break;
        case MATCH_KEY.mode:
          this.mode = this.optionalLabel(100);
          break;
        case MATCH_KEY.playlist:
          this.playlist = this.optionalLabel(100);
          break;
        case MATCH_KEY.queue: {
          if (this.isNull()) break;
          const queue = this.name(this.string());
          if (!QUEUE_SET.has(queue)) throw NOT_PLAIN;
          this.queue = queue;
          break;
        }
        case MATCH_KEY.season: {
          if (this.isNull()) break;
          const season = this.number();
          if (!Number.isInteger(season) || season < 1 || season > 10_000) throw NOT_PLAIN;
          this.season = season;
          break;
        }
        case MATCH_KEY.players:
          this.readPlayers();
          break;
        default:
          throw NOT_PLAIN;
      }
      if (this.ends(CLOSE_OBJECT)) break;
    }
    this.skipSpace();
    if (this.at !== this.line.length) throw NOT_PLAIN;
    if (title === undefined || !TITLES.has(title) || platform === undefined || id === undefined || Number.isNaN(startedAt) || duration < 0) throw NOT_PLAIN;
    if (!(seen & MATCH_KEY.type) || !(seen & MATCH_KEY.players)) throw NOT_PLAIN;
    const allowed = ALLOWED.get(title);
    if (!allowed?.has(platform)) throw NOT_PLAIN;
    for (let i = 0; i < this.playerCount; i++) {
      const p = this.players[i] as LinePlayer;
      if (!allowed.has(p.platform)) throw NOT_PLAIN;
      // A player twice: the schema says which (dataset.ts).
      for (let j = 0; j < i; j++) {
        const q = this.players[j] as LinePlayer;
        if (q.platform === p.platform && q.key === p.key) throw NOT_PLAIN;
      }
    }
    this.title = title;
    this.platform = platform;
    this.id = id;
    this.startedAt = startedAt;
    this.durationSeconds = duration;
  }

  private readPlayers(): void {
    this.expect(OPEN_ARRAY);
    if (this.peek() === CLOSE_ARRAY) throw NOT_PLAIN;
    for (;;) {
      if (this.playerCount === 200) throw NOT_PLAIN;
      this.readPlayer(this.playerCount);
      this.playerCount++;
      if (this.ends(CLOSE_ARRAY)) return;
    }
  }

  private readPlayer(index: number): void {
    let p = this.players[index];
    if (!p) {
      const none = () => ({ start: -1, end: -1 });
      p = { platform: '', id: '', key: '', result: null, team: none(), hero: none(), legend: none(), statsAt: 0, weaponsAt: -1, firstStat: 0, statsEnd: 0 };
      this.players.push(p);
    }
    p.result = null;
    p.team.start = p.hero.start = p.legend.start = p.weaponsAt = -1;
    let seen = 0;
    this.openRecord();
    for (;;) {
      const bit = this.newKey(PLAYER_KEYS, seen);
      seen |= bit;
      switch (bit) {
        case PLAYER_KEY.id: {
          const s = this.string();
          p.id = this.identifier(s);
          p.key = this.lowerCase(s, p.id);
          break;
        }
        case PLAYER_KEY.platform:
          p.platform = this.name(this.string());
          break;
        case PLAYER_KEY.team:
          this.labelSpan(p.team, 50);
          break;
        case PLAYER_KEY.hero:
          this.labelSpan(p.hero, 100);
          break;
        case PLAYER_KEY.legend:
          this.labelSpan(p.legend, 100);
          break;
        case PLAYER_KEY.result:
          p.result = this.result();
          break;
        case PLAYER_KEY.stats:
          this.skipSpace();
          p.statsAt = this.at;
          p.firstStat = this.statCount;
          this.statCount = this.readNumbers(this.statNames, this.statValues, this.statCount);
          p.statsEnd = this.statCount;
          break;
        case PLAYER_KEY.weapons:
          this.skipSpace();
          p.weaponsAt = this.at;
          this.readWeapons();
          break;
        default:
          throw NOT_PLAIN;
      }
      if (this.ends(CLOSE_OBJECT)) break;
    }
    if (!(seen & PLAYER_KEY.id) || !(seen & PLAYER_KEY.platform) || !(seen & PLAYER_KEY.stats)) throw NOT_PLAIN;
  }

  /**
   * A map of names to numbers (a player's stats, or a weapon's), from its `{`: names of 1 to 64
   * characters, none twice, none that an object puts first (an array index), numbers of magnitude
   * at most MAX_STAT_VALUE, each kept in `names` and `values` from `first` on. Returns where they end.
   */
  private readNumbers(names: string[], values: number[], first: number): number {
    this.expect(OPEN_OBJECT);
    let n = first;
    if (this.peek() === CLOSE_OBJECT) {
      this.at++;
      return n;
    }
    for (;;) {
      const s = this.string();
      this.expect(COLON);
      const length = s.end - s.start;
      if (length < 1 || length > 64) throw NOT_PLAIN;
      const hash = this.hash;
      const name = this.mapKey(s);
      // A name twice: compared by hash first, the names being different nearly always.
      for (let k = first; k < n; k++) if (this.hashes[k] === hash && names[k] === name) throw NOT_PLAIN;
      const value = this.number();
      if (!(value >= -MAX_STAT_VALUE && value <= MAX_STAT_VALUE)) throw NOT_PLAIN;
      names[n] = name;
      values[n] = value;
      this.hashes[n] = hash;
      n++;
      if (this.ends(CLOSE_OBJECT)) return n;
    }
  }

  /** A player's weapons, from its `{`: names (trimmed, 1 to 100 characters, none twice) to maps of numbers. */
  private readWeapons(): void {
    this.expect(OPEN_OBJECT);
    if (this.peek() === CLOSE_OBJECT) {
      this.at++;
      return;
    }
    const weapons = this.scratchNames;
    let count = 0;
    for (;;) {
      const s = this.string();
      this.expect(COLON);
      const length = s.end - s.start;
      if (length < 1 || length > 100 || isTrimmed(this.line[s.start] ?? 0) || isTrimmed(this.line[s.end - 1] ?? 0)) throw NOT_PLAIN;
      const name = this.mapKey(s);
      for (let k = 0; k < count; k++) if (weapons[k] === name) throw NOT_PLAIN;
      weapons[count++] = name;
      this.readNumbers(this.scratchStats, this.scratchValues, 0);
      if (this.ends(CLOSE_OBJECT)) return;
    }
  }
  /** The hashes of the names in the last readNumbers' `names`, in their places. */
  private readonly hashes: number[] = [];
  /** A player's weapon names, and one weapon's stats (checked, not kept). */
  private readonly scratchNames: string[] = [];
  private readonly scratchStats: string[] = [];
  private readonly scratchValues: number[] = [];

  /** A key of a stats or weapons map: not `__proto__`, not an array index (which an object would put first). */
  private mapKey(s: Span): string {
    const line = this.line;
    const first = line[s.start] ?? 0;
    if (first >= ZERO && first <= NINE) {
      let i = s.start + 1;
      while (i < s.end && (line[i] ?? 0) >= ZERO && (line[i] ?? 0) <= NINE) i++;
      if (i === s.end) throw NOT_PLAIN;
    }
    const name = this.name(s);
    if (name === '__proto__') throw NOT_PLAIN;
    return name;
  }

  /** A record's `{`, not followed by its `}`: a record has keys. */
  private openRecord(): void {
    this.expect(OPEN_OBJECT);
    if (this.peek() === CLOSE_OBJECT) throw NOT_PLAIN;
  }

  /** A key of `table` none of `seen` (JSON.parse would keep the last of a key given twice): its bit. */
  private newKey(table: KeyTable, seen: number): number {
    const bit = this.key(table);
    if (seen & bit) throw NOT_PLAIN;
    return bit;
  }

  /** A key of `table`: its bit, after its colon. */
  private key(table: KeyTable): number {
    const s = this.string();
    this.expect(COLON);
    const candidates = table[s.end - s.start];
    if (candidates)
      for (const c of candidates) {
        let k = 0;
        while (k < c.bytes.length && this.line[s.start + k] === c.bytes[k]) k++;
        if (k === c.bytes.length) return c.bit;
      }
    throw NOT_PLAIN;
  }

  /** A string in plain form: printable ASCII, no escape. Its span, past its closing quote; its bytes' hash in `hash`. */
  private string(): Span {
    this.skipSpace();
    const line = this.line;
    let i = this.at;
    if (line[i] !== QUOTE) throw NOT_PLAIN;
    const start = ++i;
    let hash = FNV_BASIS;
    let b = line[i] ?? QUOTE;
    while (PLAIN[b] === 1) {
      hash = Math.imul(hash ^ b, FNV_PRIME);
      b = line[++i] ?? QUOTE;
    }
    if (b !== QUOTE || i >= line.length) throw NOT_PLAIN;
    this.at = i + 1;
    this.span.start = start;
    this.span.end = i;
    // A small integer, which a map keys without making a number of it.
    this.hash = hash & 0x3fffffff;
    return this.span;
  }
  /** The hash of the last string's bytes. */
  private hash = 0;
  /** The last string's span (one object, read before the next string). */
  private readonly span: Span = { start: 0, end: 0 };

  /**
   * A number in the form JSON.stringify writes it (an integer without sign of zero or leading
   * zeros, or a fraction as JavaScript prints it), so that the rows copied from the line are the
   * bytes prepareMatch would write.
   */
  private number(): number {
    this.skipSpace();
    const line = this.line;
    const start = this.at;
    let i = start;
    const negative = line[i] === MINUS;
    if (negative) i++;
    let value = 0;
    let digits = 0;
    for (let b = line[i] ?? 0; b >= ZERO && b <= NINE; b = line[++i] ?? 0) {
      value = value * 10 + (b - ZERO);
      digits++;
    }
    if (digits === 0 || (digits > 1 && line[start + (negative ? 1 : 0)] === ZERO)) throw NOT_PLAIN;
    const b = line[i];
    if (b === DOT || b === 0x65 || b === 0x45) {
      // A fraction or exponent: exact only if JavaScript writes it back the same way.
      for (let c = line[i] ?? 0; (c >= ZERO && c <= NINE) || c === DOT || c === 0x65 || c === 0x45 || c === MINUS || c === 0x2b; c = line[++i] ?? 0);
      const text = this.text({ start, end: i });
      const parsed = Number(text);
      if (!Number.isFinite(parsed) || String(parsed) !== text) throw NOT_PLAIN;
      this.at = i;
      return parsed;
    }
    // Up to 15 digits a double holds exactly as they are summed; -0 is written 0 by JSON.stringify.
    if (digits > 15 || (negative && value === 0)) throw NOT_PLAIN;
    this.at = i;
    return negative ? -value : value;
  }

  private isNull(): boolean {
    this.skipSpace();
    const line = this.line;
    if (line[this.at] !== NULL[0]) return false;
    for (let k = 1; k < 4; k++) if (line[this.at + k] !== NULL[k]) throw NOT_PLAIN;
    this.at += 4;
    return true;
  }

  private result(): 'win' | 'loss' | 'draw' | null {
    if (this.isNull()) return null;
    const s = this.string();
    const length = s.end - s.start;
    if (length === 3 && this.sameAs(s, RESULT_WIN)) return 'win';
    if (length === 4 && this.sameAs(s, RESULT_LOSS)) return 'loss';
    if (length === 4 && this.sameAs(s, RESULT_DRAW)) return 'draw';
    throw NOT_PLAIN;
  }

  private sameAs(s: Span, bytes: Uint8Array): boolean {
    for (let k = 0; k < bytes.length; k++) if (this.line[s.start + k] !== bytes[k]) return false;
    return true;
  }

  /** A label (1 to `max` characters, trimmed), null, as a string. */
  private optionalLabel(max: number): string | null {
    if (this.isNull()) return null;
    return this.name(this.label(this.string(), max));
  }

  /** A label's span (null: start -1), for the rows. */
  private labelSpan(into: Span, max: number): void {
    if (this.isNull()) {
      into.start = -1;
      return;
    }
    const s = this.label(this.string(), max);
    into.start = s.start;
    into.end = s.end;
  }

  private label(s: Span, max: number): Span {
    const length = s.end - s.start;
    if (length < 1 || length > max || isTrimmed(this.line[s.start] ?? 0) || isTrimmed(this.line[s.end - 1] ?? 0)) throw NOT_PLAIN;
    return s;
  }

  /**
   * A start as fastMatchRecord takes it (`YYYY-MM-DDThh:mm:ss`, up to three digits of a second, `Z`;
   * a day the calendar has, hours to 23), in epoch ms: read from its digits, as Date.parse and the
   * round trip through toISOString cost a few µs a line. Years before 100 are left to the parser.
   */
  private dateTime(s: Span): number {
    const line = this.line;
    const length = s.end - s.start;
    if (length < 20 || length > 24 || line[s.end - 1] !== 0x5a) throw NOT_PLAIN;
    const at = s.start;
    if (line[at + 4] !== MINUS || line[at + 7] !== MINUS || line[at + 10] !== 0x54 || line[at + 13] !== COLON || line[at + 16] !== COLON) throw NOT_PLAIN;
    const year = this.digits(at, 4);
    const month = this.digits(at + 5, 2);
    const day = this.digits(at + 8, 2);
    const hours = this.digits(at + 11, 2);
    const minutes = this.digits(at + 14, 2);
    const seconds = this.digits(at + 17, 2);
    let ms = 0;
    if (length > 20) {
      // A fraction: a dot and one to three digits, before the Z.
      if (line[at + 19] !== DOT || length === 21) throw NOT_PLAIN;
      const count = length - 21;
      ms = this.digits(at + 20, count) * (count === 1 ? 100 : count === 2 ? 10 : 1);
    }
    if (year < 100 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hours > 23 || minutes > 59 || seconds > 59) throw NOT_PLAIN;
    return Date.UTC(year, month - 1, day, hours, minutes, seconds, ms);
  }

  /** The number `count` decimal digits from `from` make. */
  private digits(from: number, count: number): number {
    let v = 0;
    for (let i = from; i < from + count; i++) {
      const b = this.line[i] ?? 0;
      if (b < ZERO || b > NINE) throw NOT_PLAIN;
      v = v * 10 + (b - ZERO);
    }
    return v;
  }

  /** A player id as identifierProblem takes it: not blank, at most 199 characters, no slash, backslash or `..`. */
  private identifier(s: Span): string {
    const line = this.line;
    const length = s.end - s.start;
    if (length > 199) throw NOT_PLAIN;
    let blank = true;
    for (let i = s.start; i < s.end; i++) {
      const b = line[i] ?? 0;
      if (b === SLASH || (b === DOT && line[i + 1] === DOT && i + 1 < s.end)) throw NOT_PLAIN;
      if (!isTrimmed(b)) blank = false;
    }
    if (blank) throw NOT_PLAIN;
    return this.text(s);
  }

  /** A match id as matchIdProblem takes it: 1 to 100 characters, no space, no slash. */
  private matchId(s: Span): string {
    const line = this.line;
    const length = s.end - s.start;
    if (length < 1 || length > 100) throw NOT_PLAIN;
    for (let i = s.start; i < s.end; i++) {
      const b = line[i] ?? 0;
      if (b === SLASH || isTrimmed(b)) throw NOT_PLAIN;
    }
    return this.text(s);
  }

  /** The id in lower case: the same string when it has no capital. */
  private lowerCase(s: Span, id: string): string {
    for (let i = s.start; i < s.end; i++) {
      const b = this.line[i] ?? 0;
      if (b >= 0x41 && b <= 0x5a) return id.toLowerCase();
    }
    return id;
  }

  /** A name or label met on many lines: the same string each time, found by its bytes. */
  private name(s: Span): string {
    const line = this.line;
    const known = this.names.get(this.hash);
    if (known !== undefined && known.length === s.end - s.start) {
      let k = 0;
      while (k < known.length && known.charCodeAt(k) === line[s.start + k]) k++;
      if (k === known.length) return known;
    }
    const text = this.text(s);
    if (known === undefined && this.names.size < 4_096) this.names.set(this.hash, text);
    return text;
  }

  private text(s: Span): string {
    return latin1Slice.call(this.line, s.start, s.end);
  }

  private skipSpace(): void {
    while (isSpace(this.line[this.at] ?? 0)) this.at++;
  }

  private peek(): number {
    this.skipSpace();
    return this.line[this.at] ?? -1;
  }

  private expect(b: number): void {
    this.skipSpace();
    if (this.line[this.at] !== b) throw NOT_PLAIN;
    this.at++;
  }

  /** After a value: true at `close` (the object or array ends), false at a comma (another value follows). */
  private ends(close: number): boolean {
    this.skipSpace();
    const b = this.line[this.at];
    if (b !== COMMA && b !== close) throw NOT_PLAIN;
    this.at++;
    return b === close;
  }
}

/** Buffer's own latin1 decoding (what `toString('latin1', start, end)` ends in, without its checks). */
const latin1Slice = (Buffer.prototype as unknown as { latin1Slice: (start: number, end: number) => string }).latin1Slice;

/** Days in a month of the Gregorian calendar. */
function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** The bytes of a JSON number. */
const isNumeric = (b: number) => (b >= ZERO && b <= NINE) || b === MINUS || b === 0x2b || b === DOT || b === 0x65 || b === 0x45;

/** Writes `text` (ASCII, nothing to escape) as a JSONB string; returns where it ends. */
function jsonbText(out: Buffer, at: number, text: string): number {
  let i = jsonbHeader(out, at, JSONB_TEXT, text.length);
  for (let k = 0; k < text.length; k++) out[i++] = text.charCodeAt(k);
  return i;
}

/** Writes `text` (ASCII, nothing to escape) in quotes; returns where it ends. */
function quoted(out: Buffer, at: number, text: string): number {
  let i = at;
  out[i++] = QUOTE;
  for (let k = 0; k < text.length; k++) out[i++] = text.charCodeAt(k);
  out[i++] = QUOTE;
  return i;
}
