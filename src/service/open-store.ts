// Opening and filling a store, as the service CLI (`npm run service`) and the embedded service's
// import process do: a dataset file, a kept SQLite file or PostgreSQL database, or the demo data.
import { demoLines } from './demo.js';
import { importFile, importLines, type ImportOptions, type ImportSummary } from './import.js';
import { PgStore, type PgStoreOptions } from './pg-store.js';
import type { Store } from './store-api.js';
import { StatsStore } from './store.js';

export interface StoreSource {
  /** A JSON Lines dataset to import; without it, the demo dataset (unless `db` already holds data). */
  data?: string | undefined;
  /** Keep the store in this SQLite file, or in PostgreSQL at this postgres:// URL; default in memory. */
  db?: string | undefined;
  /** Hears what a PostgreSQL store cannot tell a caller (see PgStoreOptions). */
  logger?: PgStoreOptions['logger'];
}

const isPostgres = (db: string | undefined): db is string => db !== undefined && /^postgres(ql)?:\/\//i.test(db);

/**
 * Opens the store a `--db` value names: a postgres:// URL (`?schema=name` keeps the tables in that
 * schema), an SQLite file, or (undefined) memory.
 */
export async function openStore(db: string | undefined, logger?: PgStoreOptions['logger']): Promise<Store> {
  if (!isPostgres(db)) return new StatsStore(db ?? ':memory:');
  const url = new URL(db);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  return PgStore.open({ url: url.toString(), ...(schema ? { schema } : {}), logger });
}

/** A `--db` value fit for a log line: a URL's password never appears. */
export function describeStore(db: string): string {
  if (!isPostgres(db)) return db;
  try {
    const url = new URL(db);
    if (url.password) url.password = '***';
    return url.toString();
  } catch {
    return 'postgres://(unreadable URL)';
  }
}

/**
 * Opens the store and fills it: from `data` when given, else from the demo dataset unless the `db`
 * file already holds matches or is PostgreSQL (then it is served as it is, and `summary` is null).
 * A shared database is never filled with demo data unasked: a process started beside another's
 * first import saw it empty and put the demo's matches among the real ones.
 */
export async function loadStore(
  source: StoreSource,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<{ store: Store; summary: ImportSummary | null }> {
  const store = await openStore(source.db, source.logger);
  try {
    if (source.data) return { store, summary: await importFile(store, source.data, options) };
    if (source.db && (store.kind === 'postgres' || (await store.counts()).matches > 0)) return { store, summary: null };
    return { store, summary: await importLines(store, demoLines(), options) };
  } catch (e) {
    await store.close();
    throw e;
  }
}
