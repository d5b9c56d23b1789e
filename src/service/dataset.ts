// The dataset format: JSON Lines, one record a line, either a player or a match. Part of the
// product (documented in the README): anyone can serve their own data with it.
import { z } from 'zod';

import { PLATFORMS, QUEUES, TITLE_SLUGS, platformsOfTitle, type PlatformSlug } from '../catalog/index.js';
import { PlatformSlugSchema } from '../lookup/schemas.js';
import { identifierProblem, matchIdProblem } from './identifiers.js';

const identifier = z.string().superRefine((value, ctx) => {
  const problem = identifierProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const label = z.string().trim().min(1).max(100).nullable().optional();
const numbers = z.record(z.string().min(1).max(64), z.number().finite());

export const PlayerRecordSchema = z.object({
  type: z.literal('player'),
  title: z.enum(TITLE_SLUGS),
  platform: PlatformSlugSchema,
  id: identifier,
  handle: z.string().trim().min(1).max(100),
  /** Shown in Discord embeds, which take http(s) URLs only: anything else would cost the player their reply. */
  avatarUrl: z
    .string()
    .max(2_048)
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
  team: z.string().trim().min(1).max(50).nullable().optional(),
  result: z.enum(['win', 'loss', 'draw']).nullable().optional(),
  hero: label,
  legend: label,
  stats: numbers,
  weapons: z.record(z.string().trim().min(1).max(100), numbers).optional(),
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

export const DatasetRecordSchema = z
  .discriminatedUnion('type', [PlayerRecordSchema, MatchRecordSchema])
  .superRefine((record, ctx) => {
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
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { reason: `${where}${issue?.message ?? 'invalid record'}` };
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

/** A trimmed label of 1-100 characters, null, or absent. */
const plainLabel = (v: unknown, max = 100): boolean =>
  v === undefined || v === null || (typeof v === 'string' && v.length >= 1 && v.length <= max && v.trim() === v);

/** A map of names (1-`maxKey` characters) to finite numbers. */
function plainNumbers(v: unknown, maxKey: number): boolean {
  if (!isObject(v)) return false;
  for (const key in v) {
    const n = v[key];
    if (key.length < 1 || key.length > maxKey || key === '__proto__') return false;
    if (typeof n !== 'number' || !Number.isFinite(n)) return false;
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
  if (season !== undefined && season !== null && !(typeof season === 'number' && Number.isInteger(season) && season >= 1 && season <= 10_000))
    return undefined;
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
        if (name.length < 1 || name.length > 100 || name.trim() !== name || name === '__proto__') return undefined;
        if (!plainNumbers(p.weapons[name], 64)) return undefined;
      }
    }
  }
  return json as MatchRecord;
}
