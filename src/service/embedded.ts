// The service as a part of another process: the store loaded from a dataset file, a file store, or
// the demo data, and served on a loopback port. The service CLI and the bot start it the same way.
import type { Logger } from 'pino';

import { demoLines } from './demo.js';
import { importFile, importLines, type ImportOptions, type ImportSummary } from './import.js';
import { startStatsServer, type RunningService } from './server.js';
import { StatsStore } from './store.js';

export interface StoreSource {
  /** A JSON Lines dataset to import; without it, the demo dataset (unless `db` already holds data). */
  data?: string | undefined;
  /** Keep the store in this SQLite file; default in memory. */
  db?: string | undefined;
}

/**
 * Opens the store and fills it: from `data` when given, else from the demo dataset unless the `db`
 * file already holds matches (then it is served as it is, and `summary` is null).
 */
export async function loadStore(
  source: StoreSource,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<{ store: StatsStore; summary: ImportSummary | null }> {
  const store = new StatsStore(source.db ?? ':memory:');
  try {
    if (source.data) return { store, summary: await importFile(store, source.data, options) };
    if (source.db && store.counts().matches > 0) return { store, summary: null };
    return { store, summary: await importLines(store, demoLines(), options) };
  } catch (e) {
    store.close();
    throw e;
  }
}

export interface EmbeddedService extends RunningService {
  store: StatsStore;
  summary: ImportSummary | null;
}

/** Loads the store and serves it on 127.0.0.1 on a free port, open (no keys, no rate limit). */
export async function startEmbeddedService(source: StoreSource, logger?: Logger): Promise<EmbeddedService> {
  const { store, summary } = await loadStore(source, {
    onRefused: (r) => logger?.warn({ line: r.line, reason: r.reason }, 'dataset line refused'),
  });
  const running = await startStatsServer({ store, port: 0, host: '127.0.0.1', logger });
  return {
    ...running,
    store,
    summary,
    close: async () => {
      await running.close();
      store.close();
    },
  };
}
