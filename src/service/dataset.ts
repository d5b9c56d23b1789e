// The dataset format: JSON Lines, one record a line, either a player or a match. Part of the
// product (documented in the README): anyone can serve their own data with it.
import { z } from 'zod';

import { PLATFORMS, QUEUES, TITLE_SLUGS, platformsOfTitle, type PlatformSlug } from '../catalog/index.js';
import { PlatformSlugSchema } from '../lookup/schemas.js';
import { hasControlCharacters, identifierProblem, matchIdProblem } from './identifiers.js';

const identifier = z.string().superRefine((value, ctx) => {
  const problem = identifierProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/**
 * The largest magnitude a stat value may have. No real stat reaches it (a match's damage or score
 * is in the thousands to millions), and sums of ten million matches at it stay near 1e19, far from
 * where a double overflows to Infinity (about 1.8e308), which JSON stores as null and which made a
 * K/D of NaN that the ranks could not sort. Real values (below 2^53 / 1e7, about 9e8, a match)
 * sum to exact whole numbers over ten million matches.
 */
export const MAX_STAT_VALUE = 1e12;
const STAT_VALUE_MESSAGE = 'must be a number from -1e12 to 1e12';

/** Free text of a line (names, labels, a handle, a URL): a control character in it is refused (PostgreSQL takes no NUL). */
const text = <T extends z.ZodType<string>>(schema: T) => schema.refine((v) => !hasControlCharacters(v), 'contains control characters');

const label = text(z.string().trim().min(1).max(100)).nullable().optional();
/**
 * A stats or weapons map. `__proto__` is no name in one: zod leaves that key out of the map it
 * makes (assigned, it would set the map's prototype), so the stat was lost without a word; the
 * line is refused instead, as any other it cannot take.
 */
const nameMap = <T extends z.ZodType>(schema: T) =>
  z
    .unknown()
    .refine((v) => !(typeof v === 'object' && v !== null && Object.hasOwn(v, '__proto__')), '__proto__ cannot be a name')
    .pipe(schema);
const numbers = nameMap(z.record(text(z.string().min(1).max(64)), z.number().min(-MAX_STAT_VALUE, STAT_VALUE_MESSAGE).max(MAX_STAT_VALUE, STAT_VALUE_MESSAGE)));

export const PlayerRecordSchema = z.object({
  type: z.literal('player'),
  title: z.enum(TITLE_SLUGS),
  platform: PlatformSlugSchema,
  id: identifier,
  handle: text(z.string().trim().min(1).max(100)),
  /** Shown in Discord embeds, which take http(s) URLs only: anything else would cost the player their reply. */
  avatarUrl: text(z.string().max(2_048))
    .refine((v) => !/\s/.test(v), 'must be a URL without spaces')
    .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'must be an http:// or https:// URL')
    .nullable()
    .optional(),
  vanity: z
    .string()
    .regex(/^[A-Za-z0-9_-]{2,64}$/, 'letters, digits, _ and - only')
    .nullable()
    .optional(),
  /** The player hides their stats: lookups answer `CollectorResultStatus::Private`. */
  private: z.boolean().optional(),
});
export type PlayerRecord = z.infer<typeof PlayerRecordSchema>;

export const MatchPlayerSchema = z.object({
  id: identifier,
  platform: PlatformSlugSchema,
  team: text(z.string().trim().min(1).max(50)).nullable().optional(),
  result: z.enum(['win', 'loss', 'draw']).nullable().optional(),
  hero: label,
  legend: label,
  stats: numbers,
  weapons: nameMap(z.record(text(z.string().trim().min(1).max(100)), numbers)).optional(),
});
export type MatchPlayer = z.infer<typeof MatchPlayerSchema>;

export const MatchRecordSchema = z.object({
  type: z.literal('match'),
  title: z.enum(TITLE_SLUGS),
  platform: PlatformSlugSchema,
  id: z.string().superRefine((value, ctx) => {
    const problem = matchIdProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `match id ${problem}` });
  }),
  startedAt: z.iso.datetime({ offset: true }),
  durationSeconds: z.number().int().min(0).max(86_400),
  map: label,
  mode: label,
  playlist: label,
  queue: z.enum(QUEUES).nullable().optional(),
  season: z.number().int().min(1).max(10_000).nullable().optional(),
  players: z.array(MatchPlayerSchema).min(1).max(200),
});
export type MatchRecord = z.infer<typeof MatchRecordSchema>;

export const DatasetRecordSchema = z.discriminatedUnion('type', [PlayerRecordSchema, MatchRecordSchema]).superRefine((record, ctx) => {
  const allowed = platformsOfTitle(record.title);
  const check = (platform: PlatformSlug, path: (string | number)[]) => {
    if (!allowed.includes(platform))
      ctx.addIssue({ code: 'custom', path, message: `${record.title} has no platform ${platform} (allowed: ${allowed.join(', ')})` });
  };
  check(record.platform, ['platform']);
  if (record.type === 'player' && record.vanity && !PLATFORMS[record.platform].acceptsVanity)
    ctx.addIssue({ code: 'custom', path: ['vanity'], message: `${record.platform} has no vanity names` });
  if (record.type === 'match') {
    const seen = new Set<string>();
    record.players.forEach((p, i) => {
      check(p.platform, ['players', i, 'platform']);
      const key = `${p.platform}:${p.id.toLowerCase()}`;
      if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['players', i, 'id'], message: `player ${p.id} appears twice` });
      seen.add(key);
    });
  }
});
export type DatasetRecord = z.infer<typeof DatasetRecordSchema>;

/**
 * Distinct stat names one import may bring a title. Totals keep a sum per stat name of a player's
 * title (src/service/totals.ts): a file giving each match a stat name of its own made every player
 * carry thousands, and 3.9 MB of it ran an import out of memory. The demo's titles have a few dozen.
 */
export const MAX_STAT_NAMES = 256;

/** What StatNames reads of a match: its title and its players' stats. */
export type StatsOfMatch = { title: string; players: readonly { stats: Record<string, number> }[] };

/**
 * The stat names an import has taken, by title, in file order: a match that would bring its title
 * past MAX_STAT_NAMES is refused (with the first name past it), and takes none.
 */
export class StatNames {
  private readonly byTitle = new Map<string, Set<string>>();

  /** Whether every stat name of `m` is taken already: `take` would then take nothing, and accept it. */
  knows(m: StatsOfMatch): boolean {
    const names = this.byTitle.get(m.title);
    for (const p of m.players) for (const key in p.stats) if (!names?.has(key)) return false;
    return true;
  }

  /** As knows, the match's stat names given as a list (`names[0..count)`, src/service/match-line.ts). */
  knowsNames(title: string, names: readonly string[], count: number): boolean {
    const taken = this.byTitle.get(title);
    if (!taken) return count === 0;
    // Lines list the same names in the same places, as the same strings (the reader keeps one of
    // each): a name found known in a place before is known still.
    let known = this.known.get(title);
    if (!known) this.known.set(title, (known = []));
    for (let k = 0; k < count; k++) {
      const name = names[k] as string;
      if (known[k] === name) continue;
      if (!taken.has(name)) return false;
      known[k] = name;
    }
    return true;
  }
  /** By title, names found known by knowsNames, in the places they were found in. */
  private readonly known = new Map<string, string[]>();

  /** Takes the stat names of `m`: the ones it brings, or why it is refused. */
  take(m: StatsOfMatch): { added: string[] } | { reason: string } {
    const names = this.byTitle.get(m.title);
    const taken = names?.size ?? 0;
    const added = new Set<string>();
    for (const [i, p] of m.players.entries()) {
      for (const key in p.stats) {
        if (names?.has(key) || added.has(key)) continue;
        if (taken + added.size >= MAX_STAT_NAMES)
          return { reason: `players.${i}.stats.${key}: more than ${MAX_STAT_NAMES} distinct stat names for ${m.title} in one import` };
        added.add(key);
      }
    }
    if (added.size > 0) this.add(m.title, added);
    return { added: [...added] };
  }

  /** Adds names taken by the import elsewhere (a parse worker learns the others' this way). */
  add(title: string, names: Iterable<string>): void {
    let set = this.byTitle.get(title);
    if (!set) this.byTitle.set(title, (set = new Set()));
    for (const name of names) set.add(name);
  }
}

/** A refused line: where and why. */
export interface RefusedLine {
  line: number;
  reason: string;
}

/** Parses one line of a dataset; `reason` says what is wrong in one line of text. */
export function parseDatasetLine(text: string): { record: DatasetRecord } | { reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { reason: `not JSON: ${(e as Error).message}` };
  }
  const fast = fastMatchRecord(json);
  if (fast) return { record: fast };
  const parsed = DatasetRecordSchema.safeParse(json);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  // A name with a control character is shown escaped: the reason is printed to a terminal.
  const where =
    issue && issue.path.length > 0
      ? `${issue.path.map((p) => (typeof p === 'string' && hasControlCharacters(p) ? JSON.stringify(p) : String(p))).join('.')}: `
      : '';
  // A stat or weapon name refused says why, not only that the record's key is.
  const message = issue?.code === 'invalid_key' ? (issue.issues[0]?.message ?? issue.message) : issue?.message;
  return { reason: `${where}${message ?? 'invalid record'}` };
}

// A fast path for the bulk of a dataset: match records in their plain form (no spaces to trim,
// no odd keys) are checked by hand, several times faster than the schema, and taken as they were
// parsed (no copy: a copy of every record doubled what the import allocates). Anything it is not
// sure about goes to the schema, which decides and explains; a test holds the two to the same answers.
const TITLE_SET = new Set<string>(TITLE_SLUGS);
const QUEUE_SET = new Set<string>(QUEUES);
const RESULTS = new Set(['win', 'loss', 'draw']);
const ALLOWED = new Map(TITLE_SLUGS.map((t) => [t, new Set<string>(platformsOfTitle(t))]));
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
/** The keys the schema keeps: a record with any other is left to the schema, which drops it. */
const MATCH_KEYS = new Set(['type', 'title', 'platform', 'id', 'startedAt', 'durationSeconds', 'map', 'mode', 'playlist', 'queue', 'season', 'players']);
const PLAYER_KEYS = new Set(['id', 'platform', 'team', 'result', 'hero', 'legend', 'stats', 'weapons']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Names and labels found free of control characters. The same stat and weapon names, maps and
 * heroes come on every line, and looking one up costs about a third of checking it: a generated
 * match line parsed in 18.5 to 19 µs checking each every time, 16.7 to 17.1 so, 15.7 to 16.8 with
 * no check at all.
 */
const CLEAN = new Set<string>();
function clean(text: string): boolean {
  if (CLEAN.has(text)) return true;
  if (hasControlCharacters(text)) return false;
  if (CLEAN.size < 4_096) CLEAN.add(text);
  return true;
}

/** A trimmed label of 1-100 characters without control characters, null, or absent. */
const plainLabel = (v: unknown, max = 100): boolean =>
  v === undefined || v === null || (typeof v === 'string' && v.length >= 1 && v.length <= max && v.trim() === v && clean(v));

/** A map of names (1-`maxKey` characters, no control characters) to numbers of magnitude at most MAX_STAT_VALUE. */
function plainNumbers(v: unknown, maxKey: number): boolean {
  if (!isObject(v)) return false;
  for (const key in v) {
    const n = v[key];
    if (key.length < 1 || key.length > maxKey || key === '__proto__' || !clean(key)) return false;
    // NaN fails both comparisons, Infinity one.
    if (typeof n !== 'number' || !(n >= -MAX_STAT_VALUE && n <= MAX_STAT_VALUE)) return false;
  }
  return true;
}

const onlyKeys = (v: Record<string, unknown>, known: Set<string>): boolean => {
  for (const key in v) if (!known.has(key)) return false;
  return true;
};

/** The match record when `json` is one in plain form (then `json` itself); undefined to let the schema decide. */
export function fastMatchRecord(json: unknown): MatchRecord | undefined {
  if (!isObject(json) || json.type !== 'match' || !onlyKeys(json, MATCH_KEYS)) return undefined;
  const { title, platform, id, startedAt, durationSeconds, queue, season, players } = json;
  if (typeof title !== 'string' || !TITLE_SET.has(title)) return undefined;
  const allowed = ALLOWED.get(title as MatchRecord['title']);
  if (typeof platform !== 'string' || !allowed?.has(platform)) return undefined;
  if (typeof id !== 'string' || matchIdProblem(id) !== null) return undefined;
  if (typeof startedAt !== 'string' || !DATE_TIME.test(startedAt)) return undefined;
  const ms = Date.parse(startedAt);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 19) !== startedAt.slice(0, 19)) return undefined;
  if (typeof durationSeconds !== 'number' || !Number.isInteger(durationSeconds) || durationSeconds < 0 || durationSeconds > 86_400) return undefined;
  if (!plainLabel(json.map) || !plainLabel(json.mode) || !plainLabel(json.playlist)) return undefined;
  if (queue !== undefined && queue !== null && !(typeof queue === 'string' && QUEUE_SET.has(queue))) return undefined;
  if (season !== undefined && season !== null && !(typeof season === 'number' && Number.isInteger(season) && season >= 1 && season <= 10_000)) return undefined;
  if (!Array.isArray(players) || players.length < 1 || players.length > 200) return undefined;
  const seen = new Set<string>();
  for (const p of players as unknown[]) {
    if (!isObject(p) || !onlyKeys(p, PLAYER_KEYS)) return undefined;
    const { id: pid, platform: pp, result } = p;
    if (typeof pid !== 'string' || identifierProblem(pid) !== null) return undefined;
    if (typeof pp !== 'string' || !allowed.has(pp)) return undefined;
    const key = `${pp}:${pid.toLowerCase()}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    if (!plainLabel(p.team, 50) || !plainLabel(p.hero) || !plainLabel(p.legend)) return undefined;
    if (result !== undefined && result !== null && !(typeof result === 'string' && RESULTS.has(result))) return undefined;
    if (!plainNumbers(p.stats, 64)) return undefined;
    if (p.weapons !== undefined) {
      if (!isObject(p.weapons)) return undefined;
      for (const name in p.weapons) {
        if (name.length < 1 || name.length > 100 || name.trim() !== name || name === '__proto__' || !clean(name)) return undefined;
        if (!plainNumbers(p.weapons[name], 64)) return undefined;
      }
    }
  }
  return json as MatchRecord;
}
