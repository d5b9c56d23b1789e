// Puts the lookups together from configuration: the stats service (the one LOOKUP_BASE_URL names,
// or the embedded one), the cache (Redis at CACHE_URL, or memory) and the client. The bot and the
// lookup command start from here.
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import type { Logger } from 'pino';

import { PLATFORM_SLUGS, TITLE_SLUGS, isPlatform, isTitle, type PlatformSlug, type TitleSlug } from './catalog/index.js';
import { exitWith } from './cli.js';
import { ConfigError, type LookupConfig } from './config.js';
import { createLookupCache, type LookupCache } from './lookup/cache.js';
import { LookupClient, type LookupObserver } from './lookup/client.js';
import { openEmbeddedService, startEmbeddedService, type EmbeddedService } from './service/embedded-thread.js';

export interface Lookups {
  client: LookupClient;
  cache: LookupCache;
  /** The embedded service, when no LOOKUP_BASE_URL was configured. */
  embedded: EmbeddedService | undefined;
  /** Where the lookups go, for a log line (never with the API key). */
  baseUrl: string;
  close(): Promise<void>;
}

export interface LookupsOptions {
  /**
   * Wait at most this long for the embedded service's store; past it the store goes on loading in
   * its child process (the service itself answers from a worker thread) while the caller goes on
   * (the bot logs in and answers), and lookups meanwhile answer "still loading" (or from the store
   * kept from the last start). When that import fails with nothing to serve, the process exits.
   * Without it, opening the lookups waits for the store.
   */
  storeWaitMs?: number;
}

/** Opens the lookups; when that is impossible (a dataset that cannot be read), exits with one line. */
export async function openLookupsOrExit(config: LookupConfig, logger: Logger, observer?: LookupObserver, options: LookupsOptions = {}): Promise<Lookups> {
  try {
    return await openLookups(config, logger, observer, options);
  } catch (e) {
    if (e instanceof ConfigError) exitWith(e.message);
    exitWith(`Could not start the lookups: ${(e as Error).message}`, 1);
  }
}

/** LOOKUP_PATH_VALUES, its names checked against the catalog. */
export function pathValues(pairs: Readonly<Record<string, string>>): Partial<Record<TitleSlug | PlatformSlug, string>> {
  const unknown = Object.keys(pairs).filter((name) => !isTitle(name) && !isPlatform(name));
  if (unknown.length > 0)
    throw new ConfigError(`LOOKUP_PATH_VALUES: ${unknown.join(', ')} is not a title or platform name; use ${[...TITLE_SLUGS, ...PLATFORM_SLUGS].join(', ')}`);
  return pairs;
}

export async function openLookups(config: LookupConfig, logger: Logger, observer?: LookupObserver, options: LookupsOptions = {}): Promise<Lookups> {
  const embedded = config.LOOKUP_BASE_URL ? undefined : await openEmbedded(config, logger, options);
  const baseUrl = config.LOOKUP_BASE_URL ?? (embedded as EmbeddedService).url;
  const cache = await createLookupCache({ url: config.CACHE_URL, namespace: config.CACHE_NAMESPACE, logger, maxBytes: config.CACHE_MAX_MB * 2 ** 20 });
  const client = new LookupClient({
    baseUrl,
    apiKey: config.LOOKUP_API_KEY,
    pathValues: pathValues(config.LOOKUP_PATH_VALUES),
    cache,
    logger,
    requestTimeoutMs: config.LOOKUP_TIMEOUT_MS,
    observer,
  });
  return {
    client,
    cache,
    embedded,
    baseUrl,
    close: async () => {
      await client.close();
      await cache.close();
      await embedded?.close();
    },
  };
}

async function openEmbedded(config: LookupConfig, logger: Logger, options: LookupsOptions): Promise<EmbeddedService> {
  // A dataset that is not there is a typo far more often than anything else: told at once, rather
  // than serving the store kept from the last start (or the demo data) under a warning.
  if (config.STATS_DATASET && !existsSync(config.STATS_DATASET)) throw new ConfigError(`Configuration: STATS_DATASET (${config.STATS_DATASET}) does not exist`);
  const source = { data: config.STATS_DATASET, db: config.STATS_STORE };
  if (options.storeWaitMs === undefined) return startEmbeddedService(source, logger);
  const service = await openEmbeddedService(source, logger);
  const started = performance.now();
  const outcome = service.ready.then(
    (summary) =>
      logger.info(
        { ms: Math.round(performance.now() - started), imported: summary?.taken ?? 0, refused: summary?.refused ?? 0 },
        'embedded stats service loaded',
      ),
    (e: unknown) => {
      if (!service.serving()) exitWith(`Could not start the lookups: ${(e as Error).message}`, 1);
      logger.error({ err: (e as Error).message }, 'the dataset could not be imported: the store kept from the last start goes on answering');
    },
  );
  // A store kept from the last start answers at once; otherwise a small dataset is loaded within the wait.
  if (!service.serving()) await Promise.race([outcome, sleep(options.storeWaitMs, undefined, { ref: false })]);
  if (!service.serving()) logger.info({ waitedMs: options.storeWaitMs }, 'the embedded stats service is still loading: lookups answer so until it is done');
  return service;
}
