// The dataset format: JSON Lines, one record a line, either a player or a match. Part of the
// product (documented in the README): anyone can serve their own data with it.
import { z } from 'zod';

import { PLATFORMS, PLATFORM_SLUGS, QUEUES, TITLE_SLUGS, platformsOfTitle, type PlatformSlug } from '../catalog/index.js';
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

/** Players a match line may list. */
export const MAX_MATCH_PLAYERS = 200;

const STAT_VALUE_MESSAGE = 'must be a number from -1e12 to 1e12';

/** Free text of a line (names, labels, a handle, a URL): a control character in it is refused (PostgreSQL takes no NUL). */
const text = <T extends z.ZodType<string>>(schema: T) => schema.refine((v) => !hasControlCharacters(v), 'contains control characters');

const label = text(z.string().trim().min(1).max(100)).nullable().optional();
/** Why `name` cannot name a stat or weapon (`max` characters at most), or null. */
function nameProblem(name: string, max: number, trimmed: boolean): string | null {
  // `__proto__` assigned as a key would set the map's prototype, and the stat was lost without a word.
  if (name === '__proto__') return '__proto__ cannot be a name';
  if (name.length < 1 || name.length > max) return `must be a name of 1 to ${max} characters`;
  if (trimmed && name.trim() !== name) return 'must not start or end with a space';
  if (hasControlCharacters(name)) return 'contains control characters';
  return null;
}

// Not the lookup client's schemas: an import's workers load this module, and need none of them.
const PlatformSlugSchema = z.enum(PLATFORM_SLUGS);

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a map of stat names to numbers in one pass, adding the first problem at its key. A schema
 * per key and value (`z.record`) costs several times as much on the hundred stats of a match line,
 * most of an import's time; this check is still the schema's, the one definition of a line.
 */
function checkNumbers(map: Record<string, unknown>, ctx: z.RefinementCtx, path: string[]): void {
  for (const key in map) {
    const problem = nameProblem(key, 64, false);
    const value = map[key];
    // NaN fails both comparisons, Infinity one.
    const bad = problem ?? (typeof value === 'number' && value >= -MAX_STAT_VALUE && value <= MAX_STAT_VALUE ? null : STAT_VALUE_MESSAGE);
    if (!bad) continue;
    ctx.addIssue({ code: 'custom', path: problem === '__proto__ cannot be a name' ? path : [...path, key], message: bad });
    return;
  }
}

const numbers = z.custom<Record<string, number>>(isMap, 'must be an object of stat names to numbers').superRefine((map, ctx) => checkNumbers(map, ctx, []));

/** A player's weapons: names (1-100 characters) to their stats. */
const weapons = z.custom<Record<string, Record<string, number>>>(isMap, 'must be an object of weapon names to stats').superRefine((map, ctx) => {
  for (const name in map) {
    const problem = nameProblem(name, 100, true);
    const stats = map[name];
    if (problem) ctx.addIssue({ code: 'custom', path: problem === '__proto__ cannot be a name' ? [] : [name], message: problem });
    else if (!isMap(stats)) ctx.addIssue({ code: 'custom', path: [name], message: 'must be an object of stat names to numbers' });
    else {
      checkNumbers(stats, ctx, [name]);
      continue;
    }
    return;
  }
});

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
  weapons: weapons.optional(),
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
  players: z.array(MatchPlayerSchema).min(1).max(MAX_MATCH_PLAYERS),
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
 * Distinct stat names one import may bring a title: the first this many to appear in the file are
 * taken, and a match with any other is refused. Each player's totals keep a sum per stat name, and
 * the ranks a population per name: a file giving each match a stat name of its own would make
 * every player carry thousands. The demo's titles have a few dozen.
 */
export const MAX_STAT_NAMES = 256;

/** A refused line: where and why. */
export interface RefusedLine {
  line: number;
  reason: string;
}

/**
 * The schema as zod compiles it (`z.compile`): the same checks, results and issues, run as one
 * generated function instead of a walk of the schema's nodes, which an import does on every line.
 * A line it refuses is checked again by the schema itself, for the issues.
 */
const CompiledRecordSchema = z.compile(DatasetRecordSchema);

/** Parses one line of a dataset; `reason` says what is wrong in one line of text. */
export function parseDatasetLine(text: string): { record: DatasetRecord } | { reason: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { reason: `not JSON: ${(e as Error).message}` };
  }
  const parsed = CompiledRecordSchema.safeParse(json);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  // A name with a control character is shown escaped: the reason is printed to a terminal.
  const where =
    issue && issue.path.length > 0
      ? `${issue.path.map((p) => (typeof p === 'string' && hasControlCharacters(p) ? JSON.stringify(p) : String(p))).join('.')}: `
      : '';
  return { reason: `${where}${issue?.message ?? 'invalid record'}` };
}
