// `npm start`: the bot as a long-running process. Reads .env, starts the lookups (the embedded
// service unless LOOKUP_BASE_URL is set), connects to Discord's gateway (its shards SHARD_IDS of
// SHARD_COUNT) or, with INTERACTIONS_MODE=http, listens for Discord's signed interaction requests,
// and answers interactions until SIGINT/SIGTERM, then finishes what is in flight and exits.
import { REST } from 'discord.js';

import { createCardRenderer } from '../cards/index.js';
import { configOrExit, exitWith } from '../cli.js';
import { openLookupsOrExit } from '../compose.js';
import { loadBotConfig, loadDotEnv } from '../config.js';
import { startHealthServer, type HealthServer, type ReadinessCheck } from '../observe/health-server.js';
import { createLogger, passwordOf, withoutCredentials } from '../observe/logger.js';
import { createGatewayRest, createInteractionsRest, restOptions } from './client.js';
import { createCallbackSender } from './direct-callbacks.js';
import { FeedPoller, feedClock, restPoster } from './feed.js';
import { FATAL_CLOSES, fromGateway, openGateway } from './gateway.js';
import { startInteractionsServer } from './http-interactions.js';
import { COMMAND_DEADLINE_MS } from '../../commands/types.js';
import { Router } from './router.js';
import { createBotStores } from './stores.js';
import { webVerification } from './web-verification.js';
import type { WebVerification } from '../verify/verify.js';
import { startWebServer, type WebServer } from '../verify/web-server.js';

/**
 * How long a stop waits for the interactions in flight: as long as a command may wait for its
 * lookups, so that a deferred answer still gets its edit (systemd's unit allows 15 s in all).
 */
const SHUTDOWN_GRACE_MS = COMMAND_DEADLINE_MS;
/** How long the start waits for the embedded service's store before logging in without it. */
const EMBEDDED_STORE_WAIT_MS = 10_000;

async function main(): Promise<void> {
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const logger = createLogger(config.LOG_LEVEL, [
    config.DISCORD_TOKEN,
    config.LOOKUP_API_KEY,
    passwordOf(config.CACHE_URL),
    passwordOf(config.LOOKUP_BASE_URL),
    config.DISCORD_CLIENT_SECRET,
    config.TOKEN_ENCRYPTION_KEY,
  ]);

  // prom-client is loaded only when metrics are asked for.
  const metrics = config.METRICS_PORT ? (await import('./metrics.js')).createBotMetrics() : undefined;
  // The embedded service loads its store in its child process: a small dataset before the bot logs
  // in, a large one while the bot answers (lookups say "still loading" meanwhile).
  const lookups = await openLookupsOrExit(config, logger, metrics?.lookups, { storeWaitMs: EMBEDDED_STORE_WAIT_MS });
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
  // The card workers load their fonts and draw once before the first interaction can arrive: a
  // cold worker made the first profiles after a start wait for their cards.
  await cards?.warm().catch((e: unknown) => logger.warn({ err: (e as Error).message }, 'the card workers did not warm up; the first cards may be late'));
  // Channel posts (the session feed, and /track's check that it may post) go through REST with the
  // bot's token, in either mode: an HTTP worker has no gateway client, but the same token.
  const channelRest = new REST({ ...restOptions(config.DISCORD_API_URL), timeout: 10_000 }).setToken(config.DISCORD_TOKEN);
  const poster = restPoster(channelRest);
  let verification: WebVerification | undefined;
  try {
    verification = webVerification(config, channelRest, stores, lookups.client, logger);
  } catch (e) {
    await Promise.allSettled([lookups.close(), stores.close(), cards?.close()]);
    exitWith(`Could not start: ${(e as Error).message}`, 1);
  }
  const router = new Router(
    {
      lookup: lookups.client,
      links: stores.links,
      views: stores.views,
      snapshots: stores.snapshots,
      history: stores.history,
      members: stores.members,
      feed: stores.feed,
      servers: stores.servers,
      poster,
      logger,
      ...(cards ? { cards } : {}),
      ...(verification ? { verification } : {}),
    },
    logger,
    metrics?.interactions,
    // HTTP workers share what they took (a copy may reach another worker); the gateway brings each
    // interaction once, to one process, whose own memory is enough.
    config.INTERACTIONS_MODE === 'http' ? stores.interactions : undefined,
  );
  // One poller at a time across processes (a lock in the store): each process runs one, and only the lock holder polls.
  const poller = new FeedPoller({
    store: stores.feed,
    links: stores.links,
    lookup: lookups.client,
    poster,
    cards,
    history: stores.history,
    verification,
    servers: stores.servers,
    logger,
    requestsPerMinute: config.FEED_REQUESTS_PER_MINUTE,
    now: feedClock(config.FEED_CLOCK_FILE),
  });

  /** What stops the transport: the gateway connection, or the HTTP server. Set once it runs. */
  let closeTransport: () => Promise<void> = () => Promise.resolve();
  let health: HealthServer | undefined;
  let web: WebServer | undefined;
  let stopping = false;
  /** Finishes the interactions in flight, closes everything and exits with `code`. */
  const stop = (signal: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inflight: router.busy }, 'stopping: finishing the interactions in flight');
    const hardStop = setTimeout(() => {
      logger.fatal({ signal }, 'stopping took too long: exiting without closing everything');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS + 3_000);
    hardStop.unref();
    void (async () => {
      // An HTTP worker stops taking connections first, so that the load balancer sends the next
      // interactions to the other workers rather than here, to be told the bot restarts.
      const listenerClosed = config.INTERACTIONS_MODE === 'http' ? closeTransport() : undefined;
      await router.drain(SHUTDOWN_GRACE_MS);
      await poller.stop();
      await (listenerClosed ?? closeTransport());
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), health?.close(), web?.close()]);
      logger.info('stopped');
      process.exit(code);
    })();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // Node's own report of an error nobody caught prints the whole object (a DiscordAPIError's URL holds
  // an interaction token) past the logger's censoring: told here instead, and the bot stops as on SIGTERM.
  const fatal = (what: string) => (e: unknown) => {
    logger.fatal({ err: e instanceof Error ? e.message : String(e), code: (e as { code?: unknown } | null)?.code ?? null }, `${what}: stopping`);
    stop(what, 1);
  };
  process.on('unhandledRejection', fatal('unhandled rejection'));
  process.on('uncaughtException', fatal('uncaught exception'));
  // Readiness (`/readyz`): each check answers within its deadline or the process is not ready. The
  // transport (gateway or HTTP) pushes its own check onto this list.
  const readinessChecks: ReadinessCheck[] = [
    { name: 'stores', check: () => stores.ping() },
    { name: 'lookup cache', check: () => lookups.cache.ping?.() },
    { name: 'process', check: () => (stopping ? Promise.reject(new Error('stopping')) : undefined) },
  ];
  const startHealth = async (): Promise<void> => {
    if (!metrics || !config.METRICS_PORT) return;
    if (cards) metrics.watchCards(cards);
    try {
      health = await startHealthServer({
        port: config.METRICS_PORT,
        host: config.METRICS_HOST,
        registry: metrics.registry,
        readiness: readinessChecks,
        logger,
      });
      logger.info({ url: health.url }, 'metrics and health listening');
    } catch (e) {
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), closeTransport()]);
      exitWith(`Could not start: METRICS_PORT ${config.METRICS_PORT} on ${config.METRICS_HOST} cannot be used (${(e as Error).message})`, 1);
    }
  };
  /** The web side (`/verify`) on a port of its own: WEB_PORT, in gateway mode or when HTTP mode names one. */
  const startWeb = async (): Promise<void> => {
    if (!verification || config.WEB_PORT === undefined) return;
    try {
      web = await startWebServer({ host: config.WEB_HOST, port: config.WEB_PORT, handle: verification.handle, logger });
      logger.info({ url: web.url, verify: verification.url }, 'web side listening (/verify)');
    } catch (e) {
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), closeTransport(), health?.close()]);
      exitWith(`Could not start: WEB_PORT ${config.WEB_PORT} on ${config.WEB_HOST} cannot be used (${(e as Error).message})`, 1);
    }
  };
  const ready = { lookups: lookups.embedded ? 'embedded service' : withoutCredentials(lookups.baseUrl), cache: config.CACHE_URL ? 'redis' : 'memory' };

  if (config.INTERACTIONS_MODE === 'http') {
    const rest = createInteractionsRest(config.DISCORD_API_URL);
    metrics?.watchRest(rest, channelRest);
    try {
      const server = await startInteractionsServer({
        host: config.INTERACTIONS_HOST,
        port: config.INTERACTIONS_PORT,
        publicKey: config.DISCORD_PUBLIC_KEY ?? '',
        router,
        rest,
        logger,
        web: config.WEB_PORT === undefined ? verification?.handle : undefined,
      });
      closeTransport = () => server.close();
      readinessChecks.unshift({
        name: 'interactions',
        check: () => (server.listening() ? undefined : Promise.reject(new Error('not listening for interactions'))),
      });
      logger.info({ ...ready, mode: 'http', host: config.INTERACTIONS_HOST, port: server.port }, 'ready: listening for Discord interactions');
      poller.start();
    } catch (e) {
      logger.fatal({ err: (e as Error).message, port: config.INTERACTIONS_PORT }, 'could not listen for interactions');
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close()]);
      process.exit(1);
    }
    await startHealth();
    await startWeb();
    return;
  }

  const rest = createGatewayRest(config.DISCORD_API_URL, config.DISCORD_TOKEN);
  const callbacks = createCallbackSender(rest, metrics?.watchRest(rest, channelRest), logger);
  const gateway = openGateway({
    token: config.DISCORD_TOKEN,
    rest,
    shards: config.SHARD_COUNT === undefined ? undefined : { count: config.SHARD_COUNT, ids: config.SHARD_IDS },
    logger,
    onInteraction: (payload) => {
      const incoming = fromGateway(payload, callbacks, rest);
      if (typeof incoming === 'string') logger.debug({ reason: incoming }, 'interaction not answered');
      else void router.handle(incoming);
    },
    onReady: (user, shards) => {
      logger.info({ user, ...ready, mode: 'gateway', shards, shardCount: config.SHARD_COUNT ?? 1 }, 'ready');
      poller.start();
    },
    // A close Discord will not reconnect after (4004 token refused, 4014 intents not allowed, ...):
    // a process left running would be deaf. One fatal line and a non-zero exit, so that a process
    // manager restarts it or tells someone.
    onFatalClose: (shard, code) => {
      logger.fatal({ shard, code, reason: FATAL_CLOSES[code] }, 'Discord closed the gateway and will not take this bot back: exiting');
      stop(`gateway close ${code}`, 1);
    },
  });
  readinessChecks.unshift({ name: 'gateway', check: () => (gateway.up() ? undefined : Promise.reject(new Error('the Discord gateway is not connected'))) });
  metrics?.watchGateway(gateway);
  closeTransport = async () => {
    await gateway.destroy();
    await callbacks.close();
  };
  await startHealth();
  await startWeb();

  try {
    await gateway.connect();
  } catch (e) {
    // What Discord said ("401: Unauthorized" for a refused token); never the token itself.
    const status = (e as { status?: number }).status;
    const err = (e as Error).message.split(config.DISCORD_TOKEN).join('[redacted]');
    logger.fatal({ err, ...(status === 401 ? { reason: FATAL_CLOSES[4004] } : {}) }, 'could not connect to Discord');
    await Promise.allSettled([lookups.close(), stores.close(), cards?.close(), health?.close()]);
    process.exit(1);
  }
}

await main();
