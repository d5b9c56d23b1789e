// `npm start`: the bot as a long-running process. Reads .env, starts the lookups (the embedded
// service unless LOOKUP_BASE_URL is set), connects to Discord and answers interactions until
// SIGINT/SIGTERM, then finishes what is in flight and exits.
import { Events } from 'discord.js';
import { pino } from 'pino';

import { createCardRenderer } from '../cards/index.js';
import { configOrExit } from '../cli.js';
import { openLookupsOrExit } from '../compose.js';
import { loadBotConfig, loadDotEnv } from '../config.js';
import { createDiscordClient } from './client.js';
import { Router } from './router.js';
import { createBotStores } from './stores.js';

const SHUTDOWN_GRACE_MS = 4_000;

async function main(): Promise<void> {
  configOrExit(() => loadDotEnv());
  const config = configOrExit(loadBotConfig);
  const logger = pino({ level: config.LOG_LEVEL, redact: { paths: ['token', '*.token', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' } });

  const lookups = await openLookupsOrExit(config, logger);
  const stores = await createBotStores({ redisUrl: config.CACHE_URL, namespace: config.CACHE_NAMESPACE, linksPath: config.LINKS_DB, logger });
  const cards = config.CARDS === 'on' ? createCardRenderer({ workers: config.CARD_WORKERS }) : undefined;
  const router = new Router({ lookup: lookups.client, links: stores.links, views: stores.views, logger, ...(cards ? { cards } : {}) }, logger, config.CONTROLS_TTL_MS);
  const client = createDiscordClient(config.DISCORD_API_URL);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, inflight: router.busy }, 'stopping: finishing the interactions in flight');
    const hardStop = setTimeout(() => process.exit(1), SHUTDOWN_GRACE_MS + 3_000);
    hardStop.unref();
    void (async () => {
      await router.drain(SHUTDOWN_GRACE_MS);
      await client.destroy();
      await Promise.allSettled([lookups.close(), stores.close(), cards?.close()]);
      logger.info('stopped');
      process.exit(0);
    })();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));

  client.on(Events.InteractionCreate, (interaction) => void router.handle(interaction));
  client.once(Events.ClientReady, (ready) => {
    logger.info({ user: ready.user.tag, lookups: lookups.embedded ? 'embedded service' : lookups.baseUrl, cache: config.CACHE_URL ? 'redis' : 'memory' }, 'ready');
  });
  client.on(Events.Error, (e) => logger.error({ err: e.message }, 'discord client error'));
  client.on(Events.ShardResume, (id, replayed) => logger.info({ shard: id, replayed }, 'gateway resumed'));
  client.on(Events.ShardDisconnect, (event, id) => logger.warn({ shard: id, code: event.code }, 'gateway disconnected'));

  try {
    await client.login(config.DISCORD_TOKEN);
  } catch (e) {
    // discord.js names the problem ("An invalid token was provided."); never the token itself.
    logger.fatal({ err: (e as Error).message.split(config.DISCORD_TOKEN).join('[redacted]') }, 'could not connect to Discord');
    await Promise.allSettled([lookups.close(), stores.close(), cards?.close()]);
    process.exit(1);
  }
}

await main();
