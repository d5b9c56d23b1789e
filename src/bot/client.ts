// The discord.js client: no gateway intents (interactions need none), small caches, no mentions.
import { Client, Options, REST, type RateLimitData } from 'discord.js';

import { LONGEST_RATE_LIMIT_WAIT_MS } from './answer-deadline.js';

/**
 * discord.js' REST settings, for the gateway client and for the HTTP interactions' REST client alike.
 * The running bot calls interaction endpoints only (callbacks, edits, follow-ups), which Discord
 * does not bind to the bot's global rate limit; discord.js' client-side one (50 a second) would
 * hold deferred answers back under load. Discord's own 429s are still obeyed.
 * Each deferred answer's edits and follow-ups get a rate-limit queue of their own (keyed by the
 * interaction's token), which discord.js keeps until its hourly sweep: at ten deferrals a second
 * that is tens of thousands of dead queues. A token is good for 15 minutes; sweep every minute.
 * A rate-limit wait longer than LONGEST_RATE_LIMIT_WAIT_MS fails the answer at once (discord.js
 * would sleep through any, then send again); each answer also has an overall deadline
 * (answer-deadline.ts).
 */
export function restOptions(apiUrl: string): {
  api: string;
  globalRequestsPerSecond: number;
  handlerSweepInterval: number;
  rejectOnRateLimit: (limit: RateLimitData) => boolean;
} {
  return { api: apiUrl, globalRequestsPerSecond: 500, handlerSweepInterval: 60_000, rejectOnRateLimit: waitsTooLong };
}

/**
 * Whether a rate limit asks an answer or a post to wait longer than it may. Only answers
 * (interaction and webhook routes) and posts to a channel (a channel in slowmode asks for hours):
 * the client's own calls, such as the gateway's address at login, wait as asked.
 */
export const waitsTooLong = (limit: RateLimitData): boolean =>
  (limit.route.startsWith('/interactions/') || limit.route.startsWith('/webhooks/') || /^\/channels\/[^/]+\/messages$/.test(limit.route)) &&
  Math.max(limit.timeToReset, limit.retryAfter, limit.sublimitTimeout) > LONGEST_RATE_LIMIT_WAIT_MS;

/**
 * The REST client of HTTP interactions mode: interaction webhooks authenticate with the
 * interaction's token, so it needs no bot token; the same settings as the gateway client's.
 */
export function createInteractionsRest(apiUrl: string): REST {
  return new REST({ ...restOptions(apiUrl), timeout: 10_000 });
}

/**
 * `shards`: the shards this process runs (`ids`, all of them unset) of `count` in all; unset, one
 * shard. Every process of a bot says the same `count`; Discord sends each guild's events to shard
 * `(guild_id >> 22) % count`, and each process answers what its shards receive.
 */
export function createDiscordClient(apiUrl: string, shards?: { count: number; ids?: number[] | undefined }): Client {
  // discord.js also reads SHARD_COUNT and SHARDS from the environment (its ShardingManager's way of
  // telling a child), and takes a blank SHARD_COUNT (as .env.example has it) for 0 shards, which it
  // then refuses. The bot's configuration has read them already: only what it says counts.
  const hidden = { SHARD_COUNT: process.env.SHARD_COUNT, SHARDS: process.env.SHARDS };
  delete process.env.SHARD_COUNT;
  delete process.env.SHARDS;
  try {
    return newClient(apiUrl, shards);
  } finally {
    for (const [name, value] of Object.entries(hidden)) if (value !== undefined) process.env[name] = value;
  }
}

function newClient(apiUrl: string, shards?: { count: number; ids?: number[] | undefined }): Client {
  const client = new Client({
    intents: [],
    ...(shards ? { shardCount: shards.count, shards: shards.ids ?? Array.from({ length: shards.count }, (_, i) => i) } : {}),
    rest: restOptions(apiUrl),
    allowedMentions: { parse: [] },
    // The bot reads nothing but interactions: nothing else needs caching, whatever the gateway sends.
    makeCache: Options.cacheWithLimits({
      ...Options.DefaultMakeCacheSettings,
      MessageManager: 0,
      GuildMemberManager: 0,
      UserManager: 1_000,
      PresenceManager: 0,
      ReactionManager: 0,
      ReactionUserManager: 0,
      GuildEmojiManager: 0,
      GuildStickerManager: 0,
      GuildBanManager: 0,
      GuildInviteManager: 0,
      GuildScheduledEventManager: 0,
      AutoModerationRuleManager: 0,
      ApplicationCommandManager: 0,
      StageInstanceManager: 0,
      ThreadManager: 0,
      ThreadMemberManager: 0,
      VoiceStateManager: 0,
    }),
  });
  skipInteractionObjects(client);
  return client;
}

/**
 * The bot reads interactions from the raw dispatch (`client.ws`, gateway.ts), so discord.js' own
 * interaction objects (a class instance per interaction, its options resolved, the user cached)
 * would be built for no one: under load that was a tenth of the process. discord.js builds them in
 * an internal action; it is replaced by one that builds nothing. Returns whether it was (a future
 * discord.js without that action costs speed, not answers: the bot does not listen to them).
 */
export function skipInteractionObjects(client: Client): boolean {
  const actions = (client as unknown as { actions?: { InteractionCreate?: { handle?: unknown } } }).actions;
  const action = actions?.InteractionCreate;
  if (typeof action?.handle !== 'function') return false;
  action.handle = () => ({});
  return true;
}
