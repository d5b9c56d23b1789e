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
  const parsed = DatasetRecordSchema.safeParse(json);
  if (parsed.success) return { record: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return { reason: `${where}${issue?.message ?? 'invalid record'}` };
}

