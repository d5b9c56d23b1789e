// The service as a part of another process: the store loaded from a dataset file, a file store, or
// the demo data, and served on a loopback port. The service CLI and the bot start it the same way.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Logger } from 'pino';

import { demoLines } from './demo.js';
import { importFile, importLines, type ImportOptions, type ImportSummary } from './import.js';
import { startStatsServer, type RunningService } from './server.js';
import { PgStore } from './pg-store.js';
import type { Store } from './store-api.js';
import { StatsStore } from './store.js';

export interface StoreSource {
  /** A JSON Lines dataset to import; without it, the demo dataset (unless `db` already holds data). */
  data?: string | undefined;
  /** Keep the store in this SQLite file, or in PostgreSQL at this postgres:// URL; default in memory. */
  db?: string | undefined;
}

const isPostgres = (db: string | undefined): db is string => db !== undefined && /^postgres(ql)?:\/\//i.test(db);

/**
 * Opens the store a `--db` value names: a postgres:// URL (`?schema=name` keeps the tables in that
 * schema), an SQLite file, or (undefined) memory.
 */
export async function openStore(db: string | undefined): Promise<Store> {
  if (!isPostgres(db)) return new StatsStore(db ?? ':memory:');
  const url = new URL(db);
  const schema = url.searchParams.get('schema') ?? undefined;
  url.searchParams.delete('schema');
  return PgStore.open({ url: url.toString(), ...(schema ? { schema } : {}) });
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
 * file already holds matches (then it is served as it is, and `summary` is null).
 */
export async function loadStore(
  source: StoreSource,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<{ store: Store; summary: ImportSummary | null }> {
  const store = await openStore(source.db);
  try {
    if (source.data) return { store, summary: await importFile(store, source.data, options) };
    if (source.db && (await store.counts()).matches > 0) return { store, summary: null };
    return { store, summary: await importLines(store, demoLines(), options) };
  } catch (e) {
    await store.close();
    throw e;
  }
}

export interface EmbeddedService extends RunningService {
  store: StatsStore;
  summary: ImportSummary | null;
}

/**
 * Fills a store file in a child process (src/service/import-process.ts), so that the import's memory
 * is returned to the system when it exits. Resolves with the import summary, or null when the file
 * already holds this dataset.
 */
function importInChild(db: string, data: string | undefined, logger?: Logger): Promise<ImportSummary | null> {
  const script = fileURLToPath(new URL('./import-process.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script, db, ...(data ? [data] : [])], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const lines = stderr.split('\n');
      stderr = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const refused = JSON.parse(line) as { line?: number; reason?: string; error?: string };
          if (refused.error) stderr += `${refused.error}\n`;
          else logger?.warn({ line: refused.line, reason: refused.reason }, 'dataset line refused');
        } catch {
          stderr += `${line}\n`;
        }
      }
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`the dataset could not be imported: ${stderr.trim() || `exit ${code}`}`));
      resolve(stdout ? (JSON.parse(stdout) as ImportSummary) : null);
    });
  });
}

/**
 * Loads the store and serves it on 127.0.0.1 on a free port, open (no keys, no rate limit). The
 * import runs in a child process into a file (a temporary one unless `db` names one); this process
 * then serves that file, keeping only SQLite's page cache in memory. A `db` file kept from an
 * earlier start is imported again only when the dataset changed.
 */
export async function startEmbeddedService(source: StoreSource, logger?: Logger): Promise<EmbeddedService> {
  const temp = source.db ? undefined : mkdtempSync(join(tmpdir(), 'player-stats-'));
  const db = source.db ?? join(temp as string, 'store.sqlite');
  let store: StatsStore | undefined;
  try {
    const summary = await importInChild(db, source.data, logger);
    store = new StatsStore(db);
    const running = await startStatsServer({ store, port: 0, host: '127.0.0.1', logger });
    const opened = store;
    return {
      ...running,
      store: opened,
      summary,
      close: async () => {
        await running.close();
        await opened.close();
        if (temp) rmSync(temp, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await store?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}
