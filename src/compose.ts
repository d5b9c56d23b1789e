// Puts the lookups together from configuration: the stats service (the one LOOKUP_BASE_URL names,
// or the embedded one), the cache (Redis at CACHE_URL, or memory) and the client. The bot and the
// lookup command start from here.
import type { Logger } from 'pino';

import { PLATFORM_SLUGS, TITLE_SLUGS, isPlatform, isTitle, type PlatformSlug, type TitleSlug } from './catalog/index.js';
import { exitWith } from './cli.js';
import { ConfigError, type LookupConfig } from './config.js';
import { createLookupCache, type LookupCache } from './lookup/cache.js';
import { LookupClient, type LookupObserver } from './lookup/client.js';
import { startEmbeddedService, type EmbeddedService } from './service/embedded.js';

export interface Lookups {
  client: LookupClient;
  cache: LookupCache;
  /** The embedded service, when no LOOKUP_BASE_URL was configured. */
  embedded: EmbeddedService | undefined;
  /** Where the lookups go, for a log line (never with the API key). */
  baseUrl: string;
  close(): Promise<void>;
}

/** Opens the lookups; when that is impossible (a dataset that cannot be read), exits with one line. */
export async function openLookupsOrExit(config: LookupConfig, logger: Logger, observer?: LookupObserver): Promise<Lookups> {
  try {
    return await openLookups(config, logger, observer);
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

export async function openLookups(config: LookupConfig, logger: Logger, observer?: LookupObserver): Promise<Lookups> {
  const embedded = config.LOOKUP_BASE_URL ? undefined : await startEmbeddedService({ data: config.STATS_DATASET, db: config.STATS_STORE }, logger);
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
