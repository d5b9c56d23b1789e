// The only reader of process.env: each process's settings as a zod schema, parsed once at start.
// A missing or malformed variable is one clear line naming it.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { getHeapStatistics } from 'node:v8';

import { z } from 'zod';

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

const count = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return 0;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a whole number (0 for none)' });
      return z.NEVER;
    }
    return n;
  });

/** `a=x,b=y` as `{ a: 'x', b: 'y' }`: names and values of letters, digits, `_`, `.` and `-`. */
const pairs = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const map: Record<string, string> = {};
    for (const part of (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0)) {
      const m = /^([\w.-]+)=([\w.-]+)$/.exec(part);
      if (!m) {
        ctx.addIssue({ code: 'custom', message: 'must be name=value pairs separated by commas, such as title_b=apex,pc_store_b=origin' });
        return z.NEVER;
      }
      map[m[1] as string] = m[2] as string;
    }
    return map;
  });

/** `0`, `0,1` or `4-7`: shard numbers and ranges, as a sorted list without repeats. */
const shardList = z.preprocess(
  blankAsUnset,
  z
    .string()
    .regex(/^\d+(-\d+)?(,\d+(-\d+)?)*$/, 'must be shard numbers and ranges, such as 0 or 0,1 or 4-7')
    .transform((v, ctx) => {
      const ids = new Set<number>();
      for (const part of v.split(',')) {
        const [from = 0, to = from] = part.split('-').map(Number);
        if (to < from || to - from > 4_096) {
          ctx.addIssue({ code: 'custom', message: `has a range that runs backwards or past 4096 shards (${part})` });
          return z.NEVER;
        }
        for (let id = from; id <= to; id++) ids.add(id);
      }
      return [...ids].sort((a, b) => a - b);
    })
    .optional(),
);

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const logLevel = z.preprocess(blankAsUnset, z.enum(LOG_LEVELS).default('info'));

/** The V8 heap this process may use, in MB (`--max-old-space-size` and the young generation). */
function heapLimitMb(): number {
  return Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20);
}

/** `.env` files leave variables blank: a blank value means not set. */
function blankAsUnset(value: unknown): unknown {
  return typeof value === 'string' && value.trim() === '' ? undefined : value;
}

/** An optional URL with one of the given schemes; the message never repeats the value (it may hold a password). */
/** Whether percent-encoded text decodes (a stray `%` does not). */
const decodes = (text: string): boolean => {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
};

const urlWith = (schemes: readonly string[], example: string) =>
  z.preprocess(
    blankAsUnset,
    z
      .string({ error: `must be a URL such as ${example}` })
      .refine((v) => URL.canParse(v) && schemes.includes(new URL(v).protocol), `must be a URL such as ${example}`)
      .refine(
        (v) => !URL.canParse(v) || (decodes(new URL(v).username) && decodes(new URL(v).password)),
        'has a user or password with a % not followed by two hex digits (write a % in them as %25)',
      )
      .optional(),
  );

/** A port to listen on; 0 picks a free one. */
const portNumber = () =>
  z.coerce.number({ error: 'must be a port number' }).int('must be a port number').min(0, 'must be a port number').max(65_535, 'must be a port number');

const milliseconds = (fallback: number) =>
  z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a number of milliseconds' })
      .int('must be a whole number of milliseconds')
      .min(100, 'must be at least 100 (milliseconds)')
      .max(600_000, 'must be at most 600000 (milliseconds)')
      .default(fallback),
  );

/**
 * Metrics and health (`/metrics`, `/healthz`, `/readyz`) on a listener of their own: off unless
 * METRICS_PORT is set; on loopback unless METRICS_HOST says otherwise (the metrics describe the
 * traffic and its failures: for the operator's scraper, not the internet).
 */
const metricsSettings = {
  METRICS_PORT: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a port number' })
      .int('must be a port number')
      .min(1, 'must be a port number (1 to 65535)')
      .max(65_535, 'must be a port number (1 to 65535)')
      .optional(),
  ),
  METRICS_HOST: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^[\w.:-]{1,253}$/, 'must be an address to listen on, such as 127.0.0.1 or 0.0.0.0')
      .default('127.0.0.1'),
  ),
};

export const ServiceConfigSchema = z.object({
  ...metricsSettings,
  /** Keys a caller must send in `TRN-Api-Key`; none means the service is open. */
  SERVICE_API_KEYS: list,
  /** Requests a minute per key (per address when there are no keys); 0 for no limit. */
  SERVICE_RATE_LIMIT_PER_MINUTE: count,
  /** Open connections at most; past it, new ones are closed at once. */
  SERVICE_MAX_CONNECTIONS: z.preprocess(
    blankAsUnset,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').default(512),
  ),
  /** A connection that sends and receives nothing for this long is closed. */
  SERVICE_IDLE_TIMEOUT_MS: milliseconds(30_000),
  LOG_LEVEL: logLevel,
});
export type ServiceConfig = z.infer<typeof ServiceConfigSchema>;

/** How the lookups reach the stats service and where they cache. */
export const LookupConfigSchema = z.object({
  /** A compatible stats service; unset: the embedded service on the demo data (or STATS_DATASET). */
  LOOKUP_BASE_URL: urlWith(['http:', 'https:'], 'https://stats.example.com'),
  /** Sent as TRN-Api-Key. */
  LOOKUP_API_KEY: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      // A key read from a file with its line end (or pasted with one) cannot go in a header: undici
      // refused every request, and users were told the service could not be reached.
      .regex(/^[\x21-\x7e]+$/, 'has characters a header cannot carry (spaces, line ends or other control characters, or non-ASCII)')
      .optional(),
  ),
  /** Timeout of one request to the stats service. */
  LOOKUP_TIMEOUT_MS: milliseconds(5_000),
  /** redis://... for a cache shared by several bot processes; unset: in memory. */
  CACHE_URL: urlWith(['redis:', 'rediss:'], 'redis://127.0.0.1:6379'),
  /** Prefix of every cache key, so that several deployments can share one Redis. */
  CACHE_NAMESPACE: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'must be letters, digits, _, . or - (at most 64)')
      .default('player-stats'),
  ),
  /** Without CACHE_URL: the in-memory cache's size at most, in MB (least recently used answers go first). */
  CACHE_MAX_MB: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a number of megabytes' })
      .int('must be a whole number of megabytes')
      .min(1, 'must be at least 1 (MB)')
      // The cache lives in the V8 heap: past about half of it the process ran out of memory days later
      // (`npm start` sets --max-old-space-size=160). Raise the heap with the cache, or use CACHE_URL.
      .refine((mb) => mb <= heapLimitMb() / 2, {
        error: () =>
          `must be at most half of this process's heap (${Math.floor(heapLimitMb() / 2)} MB of ${heapLimitMb()} MB; raise --max-old-space-size with it, or use CACHE_URL)`,
      })
      .default(32),
  ),
  /**
   * The literal path and query values of another service, for the catalog's neutral title and
   * platform names: `title_b=apex,pc_store_b=origin,console_a=xbl`. Unset: the names as they are.
   */
  LOOKUP_PATH_VALUES: pairs,
  /** A JSON Lines dataset for the embedded service instead of the demo data. */
  STATS_DATASET: z.preprocess(blankAsUnset, z.string().optional()),
  /** The embedded service's SQLite file, kept across restarts; unset: a temporary file each start. */
  STATS_STORE: z.preprocess(blankAsUnset, z.string().optional()),
  /**
   * The nice value of the embedded service's import (a child process): 10 lets the bot's answers go
   * first while a dataset loads; 0 loads it as fast as the bot runs, on a machine busy with other work too.
   */
  STATS_IMPORT_NICE: z.preprocess(
    blankAsUnset,
    z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 to 19').max(19, 'must be 0 to 19').default(10),
  ),
  LOG_LEVEL: logLevel,
});
export type LookupConfig = z.infer<typeof LookupConfigSchema>;

/** STATS_IMPORT_NICE as the embedded import's child process reads it (its parent checked it already). */
export function importNice(env: Record<string, string | undefined> = process.env): number {
  return LookupConfigSchema.shape.STATS_IMPORT_NICE.parse(env.STATS_IMPORT_NICE);
}

const snowflake = (what: string) =>
  z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^\d{17,20}$/, `must be a ${what} id (17 to 20 digits)`)
      .optional(),
  );

/** The bot process: the lookup settings, plus Discord's. */
export const BotConfigSchema = LookupConfigSchema.extend({
  ...metricsSettings,
  /** The bot token from the Discord developer portal. Never logged. */
  DISCORD_TOKEN: z.preprocess(
    blankAsUnset,
    z
      .string({ error: 'is required: the bot token from the Discord developer portal (Bot > Reset Token)' })
      .trim()
      .regex(/^[\w-]{20,}\.[\w-]{4,}\.[\w-]{20,}$/, 'is not a bot token (three parts separated by dots)'),
  ),
  /** Discord's REST API; a REST proxy in front of Discord, or a local double in the tests. */
  /** Profile and session replies come with a picture card (`off`: text only, for the whole bot). */
  CARDS: z.preprocess(blankAsUnset, z.enum(['on', 'off'], { error: 'must be on or off' }).default('on')),
  /** Worker threads drawing cards. */
  CARD_WORKERS: z.preprocess(
    blankAsUnset,
    z.coerce.number({ error: 'must be a whole number' }).int().min(1, 'must be at least 1').max(8, 'must be at most 8').default(1),
  ),
  DISCORD_API_URL: z.preprocess(
    blankAsUnset,
    z
      .string()
      .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'must be a URL such as https://discord.com/api')
      // discord.js adds /v10 itself: a trailing slash made /api//v10, and /api/v10 made /api/v10/v10 (404 for everything).
      .refine((v) => !/\/v\d+\/?$/.test(v), 'must end before the version (https://discord.com/api, not .../api/v10): the version is added')
      .transform((v) => v.replace(/\/+$/, ''))
      .default('https://discord.com/api'),
  ),
  /** Register the commands in this guild only (instant, for testing) instead of globally. */
  DISCORD_GUILD_ID: snowflake('guild'),
  /** The application; read from Discord when unset. */
  DISCORD_APPLICATION_ID: snowflake('application'),
  /** Where account links are kept when there is no Redis (CACHE_URL). */
  LINKS_DB: z.preprocess(blankAsUnset, z.string().default('.data/links.sqlite')),
  /** Without CACHE_URL: paged replies whose controls are kept in memory at most (least recently used go first). */
  // At most 200,000 (about 86 MB at about 430 bytes a view): the store sets its slots aside at start,
  // and an extra zero or two ended the start in an out-of-memory abort that named no setting.
  VIEWS_MAX_ENTRIES: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(100, 'must be at least 100')
      .max(200_000, 'must be at most 200000 (about 86 MB of heap; use CACHE_URL for more)')
      .default(20_000),
  ),
  /** How long one operation on links or paged-reply controls (SQLite or Redis) may take before the user is told it failed. */
  STORE_TIMEOUT_MS: milliseconds(1_000),
  /** `gateway` (default): one WebSocket connection per shard. `http`: Discord POSTs interactions to INTERACTIONS_PORT. */
  INTERACTIONS_MODE: z.preprocess(blankAsUnset, z.enum(['gateway', 'http'], { error: 'must be gateway or http' }).default('gateway')),
  /** HTTP mode: the port Discord's Interactions Endpoint URL reaches (through a proxy or load balancer); 0 picks a free one. */
  INTERACTIONS_PORT: z.preprocess(blankAsUnset, portNumber().default(8080)),
  /** HTTP mode: the address to listen on. */
  INTERACTIONS_HOST: z.preprocess(blankAsUnset, z.string().default('0.0.0.0')),
  /** HTTP mode: the application's public key (developer portal, General Information), 64 hex digits. */
  DISCORD_PUBLIC_KEY: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be the application public key: 64 hex digits (developer portal, General Information)')
      .optional(),
  ),
  /** Gateway mode: how many shards the bot runs in all (every process the same); unset: one. */
  SHARD_COUNT: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(4_096, 'must be at most 4096')
      .optional(),
  ),
  /** Gateway mode: the shards this process runs, such as `0` or `0,1` or `4-7`; unset: all of SHARD_COUNT. */
  SHARD_IDS: shardList,
  /**
   * The session feed's budget: requests a minute it may send to the stats service (cached answers
   * cost nothing). Recently active players are looked at first; the rest wait their turn.
   */
  FEED_REQUESTS_PER_MINUTE: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(6_000, 'must be at most 6000')
      .default(20),
  ),
  /** Tests and demos: a file holding an ISO time that the session feed reads as "now"; unset: the real clock. */
  FEED_CLOCK_FILE: z.preprocess(blankAsUnset, z.string().optional()),
  /**
   * Verified accounts (Discord OAuth2 and Linked Roles) are on when this is set: the address members'
   * browsers reach the bot's web side at (`/verify`), such as https://stats-bot.example.com.
   */
  PUBLIC_URL: urlWith(['http:', 'https:'], 'https://stats-bot.example.com').transform((v) => v?.replace(/\/+$/, '')),
  /** The application's OAuth2 client secret (developer portal, OAuth2). Never logged. */
  DISCORD_CLIENT_SECRET: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      .regex(/^[\w-]{16,128}$/, 'must be the OAuth2 client secret (developer portal, OAuth2 > Client Secret)')
      .optional(),
  ),
  /** Where members are sent to consent; Discord's own page unless a test or proxy says otherwise. */
  DISCORD_OAUTH_AUTHORIZE_URL: z.preprocess(
    blankAsUnset,
    z
      .string()
      .refine((v) => URL.canParse(v) && ['http:', 'https:'].includes(new URL(v).protocol), 'must be a URL such as https://discord.com/oauth2/authorize')
      .default('https://discord.com/oauth2/authorize'),
  ),
  /** Gateway mode: the web side's port (`/verify`); unset: no web side. HTTP mode serves it beside interactions unless this is set. */
  WEB_PORT: z.preprocess(blankAsUnset, portNumber().optional()),
  /** The address the web side listens on. */
  WEB_HOST: z.preprocess(blankAsUnset, z.string().default('0.0.0.0')),
  /**
   * Which Discord connection proves an account on which platform: `platform=connection type` pairs.
   * Steam is matched by its id, the others by the connection's name.
   */
  VERIFY_CONNECTIONS: z.preprocess((v) => blankAsUnset(v) ?? 'pc_store_a=steam,console_a=xbox,console_b=playstation,pc_store_c=battlenet', pairs),
  /** Seals stored OAuth2 tokens (AES-256-GCM): 32 random bytes as 64 hex digits or base64 (`openssl rand -hex 32`). Never logged. */
  TOKEN_ENCRYPTION_KEY: z.preprocess(
    blankAsUnset,
    z
      .string()
      .trim()
      .regex(/^(?:[0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, 'must be 32 random bytes as 64 hex digits or base64 (openssl rand -hex 32)')
      .optional(),
  ),
  /** The title whose rank, rating, K/D and wins verified members carry to Discord for Linked Roles; unset: no Linked Roles. */
  LINKED_ROLES_TITLE: z.preprocess(
    blankAsUnset,
    z
      .string()
      .regex(/^[\w-]{1,32}$/, 'must be a title such as title_b')
      .optional(),
  ),
  /** How long the buttons and menus of a reply work; a press after that is told they expired. */
  CONTROLS_TTL_MS: z.preprocess(
    blankAsUnset,
    z.coerce
      .number({ error: 'must be a number of milliseconds' })
      .int()
      .min(1_000, 'must be at least 1000 (milliseconds)')
      .max(14 * 60_000, 'must be at most 840000 (14 minutes: Discord lets a reply be edited for 15)')
      .default(5 * 60_000),
  ),
});
export type BotConfig = z.infer<typeof BotConfigSchema>;

/** What `npm run preview` needs: the lookups and a place for links, no Discord. */
export const PreviewConfigSchema = LookupConfigSchema.extend({
  /**
   * The preview's own links, members, snapshots and feed settings, kept between runs: never the
   * bot's LINKS_DB nor Redis, where a preview's made-up links and channels reached the real bot.
   */
  PREVIEW_DB: z.preprocess(blankAsUnset, z.string().default('.data/preview.sqlite')),
  /** Read only to refuse a PREVIEW_DB that is the bot's file. */
  LINKS_DB: BotConfigSchema.shape.LINKS_DB,
});
export type PreviewConfig = z.infer<typeof PreviewConfigSchema>;

export class ConfigError extends Error {}

/** Parses the variables a schema names; the error names the first bad one (never its value). */
export function parseConfig<T extends z.ZodType>(schema: T, env: Record<string, string | undefined> = process.env): z.infer<T> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'environment');
  throw new ConfigError(`Configuration: ${name} ${issue?.message ?? 'is invalid'}`);
}

export function loadServiceConfig(env: Record<string, string | undefined> = process.env): ServiceConfig {
  return parseConfig(ServiceConfigSchema, env);
}

export function loadLookupConfig(env: Record<string, string | undefined> = process.env): LookupConfig {
  return parseConfig(LookupConfigSchema, env);
}

export function loadBotConfig(env: Record<string, string | undefined> = process.env): BotConfig {
  const config = parseConfig(BotConfigSchema, env);
  if (config.INTERACTIONS_MODE === 'http' && !config.DISCORD_PUBLIC_KEY)
    throw new ConfigError(
      'Configuration: DISCORD_PUBLIC_KEY is required with INTERACTIONS_MODE=http (the application public key, developer portal, General Information)',
    );
  if (config.PUBLIC_URL) {
    const missing = (['DISCORD_CLIENT_SECRET', 'TOKEN_ENCRYPTION_KEY'] as const).find((name) => !config[name]);
    if (missing) throw new ConfigError(`Configuration: ${missing} is required with PUBLIC_URL (verified accounts)`);
    if (config.INTERACTIONS_MODE === 'gateway' && config.WEB_PORT === undefined)
      throw new ConfigError('Configuration: WEB_PORT is required with PUBLIC_URL in gateway mode (where /verify is served)');
  }
  if (config.SHARD_IDS && config.SHARD_COUNT === undefined)
    throw new ConfigError('Configuration: SHARD_IDS needs SHARD_COUNT (how many shards the bot runs in all)');
  const beyond = config.SHARD_IDS?.find((id) => id >= (config.SHARD_COUNT ?? 1));
  if (beyond !== undefined)
    throw new ConfigError(`Configuration: SHARD_IDS names shard ${beyond}, but SHARD_COUNT makes shards 0 to ${(config.SHARD_COUNT ?? 1) - 1}`);
  return config;
}

export function loadPreviewConfig(env: Record<string, string | undefined> = process.env): PreviewConfig {
  const config = parseConfig(PreviewConfigSchema, env);
  if (resolve(config.PREVIEW_DB) === resolve(config.LINKS_DB))
    throw new ConfigError(`Configuration: PREVIEW_DB must not be LINKS_DB (${config.LINKS_DB}): the preview's made-up links and channels would reach the bot`);
  return config;
}

/** Every setting some command reads. */
const SETTINGS: ReadonlySet<string> = new Set([
  'ENV_FILE',
  ...[ServiceConfigSchema, BotConfigSchema, PreviewConfigSchema].flatMap((schema) => Object.keys(schema.shape)),
]);
/** Names shaped like this project's settings: one of them that no command reads is likely a typo. */
const LOOKS_LIKE_A_SETTING =
  /^(DISCORD|LOOKUP|CACHE|SERVICE|STATS|FEED|METRICS|INTERACTIONS|SHARDS?|LINKS|LINKED|CONTROLS|VIEWS|STORE|PREVIEW|LOG|WEB|PUBLIC|VERIFY|TOKEN)(_|$)|^CARDS?$/;

/** Edits (insert, delete, replace a character) from `a` to `b`: two rows of the usual table. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[b.length]!;
}

/**
 * One line for each name that no command reads: every name the settings file sets, and the names
 * in the environment shaped like a setting (`SERVICE_API_KEY` for `SERVICE_API_KEYS` would leave
 * the service open, `DISCORD_GUILDID` register the commands globally), with the setting it most
 * likely meant. Such a name is ignored; the lines say so.
 */
export function unknownSettings(fileNames: readonly string[], env: Record<string, string | undefined>, file = '.env'): string[] {
  const names = new Map<string, string>();
  for (const name of fileNames) names.set(name, `in ${file}`);
  for (const name of Object.keys(env)) if (!names.has(name) && LOOKS_LIKE_A_SETTING.test(name)) names.set(name, 'in the environment');
  const lines: string[] = [];
  for (const [name, where] of names) {
    if (SETTINGS.has(name)) continue;
    let best: string | undefined;
    let bestDistance = Math.max(3, Math.floor(name.length / 4)) + 1;
    for (const known of SETTINGS) {
      const d = editDistance(name.toUpperCase(), known);
      if (d < bestDistance) [best, bestDistance] = [known, d];
    }
    lines.push(`Configuration: ${name} (${where}) is not a setting and is ignored${best ? `: did you mean ${best}?` : ''}`);
  }
  return lines;
}

/**
 * Reads the settings file into the environment; variables already set win. Called once by each
 * command before its configuration is parsed. The file is `ENV_FILE` when set (it must exist), else
 * `.env` in the working directory when there is one (the tests name a file of no settings, so that
 * a developer's own `.env` never reaches what they start).
 */
export function loadDotEnv(): void {
  const named = process.env.ENV_FILE?.trim() || undefined;
  const file = named ?? '.env';
  let text: string | undefined;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || named !== undefined)
      throw new ConfigError(
        `Configuration: ${named === undefined ? file : `ENV_FILE (${file})`} could not be read (${(e as Error).message.split('\n')[0] ?? ''})`,
      );
  }
  const set = text === undefined ? {} : parseEnv(text);
  for (const [name, value] of Object.entries(set)) if (process.env[name] === undefined) process.env[name] = value;
  for (const line of unknownSettings(Object.keys(set), process.env, file)) process.stderr.write(`${line}\n`);
}
