// `npm start`: the bot as a long-running process. Reads .env, starts the lookups (the embedded
// service unless LOOKUP_BASE_URL is set), connects to Discord and answers interactions until
// SIGINT/SIGTERM, then finishes what is in flight and exits.
import { Events } from 'discord.js';
import { pino } from 'pino';

import { createCardRenderer } from '../cards/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { openLookupsOrExit } from '../compose.js';
import { loadBotConfig, loadDotEnv } from '../config.js';
import { startHealthServer, type HealthServer, type ReadinessCheck } from '../observe/health-server.js';
import { createDiscordClient } from './client.js';
import { sendCallbacksDirectly } from './direct-callbacks.js';
import { createBotMetrics } from './metrics.js';
import { Router } from './router.js';
import { createBotStores } from './stores.js';

const SHUTDOWN_GRACE_MS = 4_000;

/** What Discord's fatal gateway close codes mean for whoever runs the bot. */
const FATAL_CLOSES: Record<number, string> = {
  4004: 'the token was refused (reset in the developer portal?): set DISCORD_TOKEN',
  4010: 'invalid shard',
  4011: 'sharding required: the bot is in too many guilds for one connection',
  4012: 'invalid gateway API version',
  4013: 'invalid intents',
  4014: 'disallowed intents: a privileged intent is not enabled for this application',
};

/** A URL for a log line: a user or password in it (https://user:secret@host) never reaches the log. */
function withoutCredentials(url: string): string {
  const u = new URL(url);
  if (u.username || u.password) {
    u.username = '[redacted]';
    u.password = '';
  }
  return u.toString();
}

async function main(): Promise<void> {
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const logger = pino({ level: config.LOG_LEVEL, redact: { paths: ['token', '*.token', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' } });

  const metrics = config.METRICS_PORT ? createBotMetrics() : undefined;
  const lookups = await openLookupsOrExit(config, logger, metrics?.lookups);
  let stores;
  try {
    stores = await createBotStores({
      redisUrl: config.CACHE_URL,
      namespace: config.CACHE_NAMESPACE,
      linksPath: config.LINKS_DB,
      viewTtlMs: config.CONTROLS_TTL_MS,
      viewsMaxEntries: config.VIEWS_MAX_ENTRIES,
      operationTimeoutMs: config.STORE_TIMEOUT_MS,
      logger,
    });
  } catch (e) {
    await lookups.close();
    exitWith(`Could not start: ${(e as Error).message}`, 1);
  }
  const cards = config.CARDS === 'on' ? createCardRenderer({ workers: config.CARD_WORKERS }) : undefined;
  const router = new Router({ lookup: lookups.client, links: stores.links, views: stores.views, snapshots: stores.snapshots, members: stores.members, logger, ...(cards ? { cards } : {}) }, logger, metrics?.interactions);
  const client = createDiscordClient(config.DISCORD_API_URL);
  const closeCallbacks = sendCallbacksDirectly(client);

  let stopping = false;
  /** Finishes the interactions in flight, closes everything and exits with `code`. */
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inflight: router.busy }, 'stopping: finishing the interactions in flight');
    const hardStop = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 3_000);
    hardStop.unref();
    void (async () => {
      await router.drain(SHUTDOWN_GRACE_MS);
      await client.destroy();
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), health?.close(), closeCallbacks()]);
      logger.info('stopped');
      process.exit(code);
    })();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  // Readiness (`/readyz`): each check answers within its deadline or the process is not ready. A
  // listener that takes interactions another way (HTTP) pushes its own check onto this list.
  const shardsDown = new Set<number>();
  const gatewayUp = () => client.isReady() && shardsDown.size === 0;
  client.on(Events.ShardReconnecting, (id) => shardsDown.add(id));
  client.on(Events.ShardReady, (id) => shardsDown.delete(id));
  client.on(Events.ShardResume, (id) => shardsDown.delete(id));
  const readinessChecks: ReadinessCheck[] = [
    { name: 'gateway', check: () => (gatewayUp() ? undefined : Promise.reject(new Error('the Discord gateway is not connected'))) },
    { name: 'stores', check: () => stores.ping() },
    { name: 'lookup cache', check: () => lookups.cache.ping?.() },
    { name: 'process', check: () => (stopping ? Promise.reject(new Error('stopping')) : undefined) },
  ];
  let health: HealthServer | undefined;
  if (metrics && config.METRICS_PORT) {
    metrics.watchDiscord(client, gatewayUp);
    if (cards) metrics.watchCards(cards);
    try {
      health = await startHealthServer({ port: config.METRICS_PORT, host: config.METRICS_HOST, registry: metrics.registry, readiness: readinessChecks });
      logger.info({ url: health.url }, 'metrics and health listening');
    } catch (e) {
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close()]);
      exitWith(`Could not start: METRICS_PORT ${config.METRICS_PORT} on ${config.METRICS_HOST} cannot be used (${(e as Error).message})`, 1);
    }
  }

  client.on(Events.InteractionCreate, (interaction) => void router.handle(interaction));
  client.once(Events.ClientReady, (ready) => {
    logger.info({ user: ready.user.tag, lookups: lookups.embedded ? 'embedded service' : withoutCredentials(lookups.baseUrl), cache: config.CACHE_URL ? 'redis' : 'memory' }, 'ready');
  });
  client.on(Events.Error, (e) => logger.error({ err: e.message }, 'discord client error'));
  client.on(Events.ShardResume, (id, replayed) => logger.info({ shard: id, replayed }, 'gateway resumed'));
  // discord.js emits this only for a close it will not reconnect after (4004 token refused, 4014
  // intents not allowed, ...): a process left running would be deaf. One fatal line and a non-zero
  // exit, so that a process manager restarts it or tells someone.
  client.on(Events.ShardDisconnect, (event, id) => {
    logger.fatal({ shard: id, code: event.code, reason: FATAL_CLOSES[event.code] ?? 'Discord closed the gateway for good' }, 'Discord closed the gateway and will not take this bot back: exiting');
    stop(`gateway close ${event.code}`, 1);
  });

  try {
    await client.login(config.DISCORD_TOKEN);
  } catch (e) {
    // discord.js names the problem ("An invalid token was provided."); never the token itself.
    logger.fatal({ err: (e as Error).message.split(config.DISCORD_TOKEN).join('[redacted]') }, 'could not connect to Discord');
    await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), health?.close()]);
    process.exit(1);
  }
}

await main();
