// The service as a part of another process: the store loaded from a dataset file (in a child
// process), a file store, or the demo data, and served on a loopback port. The bot serves it from a
// worker thread of its own (src/service/embedded-thread.ts starts one, and runEmbeddedWorker below
// runs in it), so that no lookup ever holds up the bot's event loop. Only what serves is loaded
// here: the import's modules (parsing, PostgreSQL) load in the child process that imports.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

import { pino, type Level, type Logger } from 'pino';

import { ERROR_CODES, ServiceError } from './errors.js';
import type { EmbeddedService } from './embedded-thread.js';
import type { ImportSummary } from './import.js';
import type { StoreSource } from './open-store.js';
import { startStatsServer, type RunningService } from './server.js';
import type { Store } from './store-api.js';
import { StatsStore } from './store.js';

/** The embedded service as soon as it listens, before its store is loaded (see serveEmbedded). */
export type LoadingService = RunningService & EmbeddedService;

/** Where the embedded service's store comes from: always a file (a temporary one is the starting thread's to make and remove). */
export type EmbeddedSource = StoreSource & { db: string };

/** What every lookup answers while no store is loaded yet. */
export const LOADING_MESSAGE = 'The stats service is still loading its data; try again in a moment.';
const LOADING_RETRY_S = 5;
/** How long a request arriving while the store loads waits for it before being told so: a small dataset loads within it. */
export const LOADING_HOLD_MS = 2_000;

/**
 * A store that answers from `current`; while there is none, a request waits up to LOADING_HOLD_MS
 * for one, then gets 503 "still loading". Its generation moves on whenever the store is swapped,
 * so that caches keyed on it start over.
 */
class SwappableStore {
  current: StatsStore | undefined;
  constructor(private readonly holdMs: number) {}
  private epoch = 0;
  private arrived: () => void = () => undefined;
  private arrival = this.nextArrival();

  /** The Store the server reads through. */
  readonly store: Store = new Proxy({} as Store, {
    get: (_, prop) => {
      if (prop === 'kind') return 'sqlite';
      if (prop === 'generation') return this.epoch + (this.current?.generation ?? 0);
      // Only the store's methods: anything else (`then` above all) is not there.
      if (typeof prop !== 'string' || typeof Reflect.get(StatsStore.prototype, prop) !== 'function') return undefined;
      return async (...args: unknown[]) => {
        if (!this.current) await Promise.race([this.arrival, sleep(this.holdMs)]);
        const current = this.current;
        if (!current)
          throw new ServiceError(503, ERROR_CODES.loading, LOADING_MESSAGE, { retryAfterSeconds: LOADING_RETRY_S }, { 'retry-after': String(LOADING_RETRY_S) });
        return (Reflect.get(current, prop) as (...a: unknown[]) => unknown).apply(current, args);
      };
    },
  });

  private nextArrival(): Promise<void> {
    return new Promise((resolve) => (this.arrived = resolve));
  }

  swap(next: StatsStore | undefined): StatsStore | undefined {
    const old = this.current;
    this.current = next;
    this.epoch += 1_000_000_000;
    if (next) {
      this.arrived();
      this.arrival = this.nextArrival();
    }
    return old;
  }
}

/**
 * Fills a store file in a child process (src/service/import-process.ts), so that the import's memory
 * is returned to the system when it exits. Resolves with the import summary, or null when the file
 * already holds this dataset.
 */
function importInChild(db: string, data: string | undefined, logger?: Logger): Promise<ImportSummary | null> {
  // Built (dist/), the compiled script; from the sources, the TypeScript one through tsx.
  const compiled = import.meta.url.endsWith('.js');
  const script = fileURLToPath(new URL(compiled ? './import-process.js' : './import-process.ts', import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(compiled ? [] : ['--import', 'tsx']), script, db, ...(data ? [data] : [])], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
      const lines = stderr.split('\n');
      stderr = lines.pop() ?? '';
      for (const line of lines) {
        try {
          const said = JSON.parse(line) as { line?: number; reason?: string; error?: string; retry?: number; waitMs?: number; moreRefused?: boolean };
          if (said.error) stderr += `${said.error}\n`;
          else if (said.moreRefused) logger?.warn('further refused dataset lines are counted, not shown: the line saying the service loaded has the count');
          else if (said.retry !== undefined)
            logger?.warn({ attempt: said.retry, retryInMs: said.waitMs, reason: said.reason }, 'the dataset changed while it was imported; importing it again');
          else logger?.warn({ line: said.line, reason: said.reason }, 'dataset line refused');
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
 * The embedded service on 127.0.0.1 (on `port`, by default a free one), open (no keys, no rate
 * limit), listening at once while its store loads in a child process: the import runs there into
 * the `db` file, and this thread then serves that file, keeping
 * only SQLite's page cache in memory. A `db` file kept from an earlier start is imported again only
 * when the dataset changed. The caller goes on with its own start meanwhile. Until a store is loaded,
 * a lookup waits up to `holdMs` (LOADING_HOLD_MS) for it, then answers 503 `ServiceLoading` ("still
 * loading, try again in a moment") with Retry-After; a
 * `db` file kept from an earlier start is served meanwhile (whole: the child imports a changed
 * dataset into a new file, which replaces it only once complete). When the import fails, `ready`
 * rejects and the kept file, if any, goes on being served.
 */
export async function serveEmbedded(source: EmbeddedSource, logger?: Logger, options: { holdMs?: number; port?: number } = {}): Promise<LoadingService> {
  const db = source.db;
  const swappable = new SwappableStore(options.holdMs ?? LOADING_HOLD_MS);
  if (existsSync(db)) {
    try {
      swappable.swap(new StatsStore(db));
    } catch (e) {
      // A file that cannot be served (of an earlier layout, or its first import stopped half-way): the import replaces it.
      logger?.warn({ db, err: (e as Error).message }, 'the kept store cannot be served while the dataset is imported');
    }
  }
  let running: RunningService;
  try {
    running = await startStatsServer({ store: swappable.store, port: options.port ?? 0, host: '127.0.0.1', logger });
  } catch (e) {
    await swappable.swap(undefined)?.close();
    throw e;
  }
  let closed = false;
  const ready = importInChild(db, source.data, logger).then(async (summary) => {
    if (closed) return summary;
    // A new file took the kept one's place (or there was none): the old connection goes first,
    // then the new file is opened. An unchanged dataset keeps the open store as it is.
    if (summary !== null || !swappable.current) {
      await swappable.swap(undefined)?.close();
      swappable.swap(new StatsStore(db));
    }
    return summary;
  });
  // The caller may not wait for it: a failure is theirs to read from `ready`, never an unhandled rejection.
  ready.catch(() => undefined);
  return {
    ...running,
    ready,
    serving: () => swappable.current !== undefined,
    close: async () => {
      closed = true;
      await running.close();
      // An import still running finishes in its child, so that its file is whole.
      await ready.catch(() => undefined);
      await swappable.swap(undefined)?.close();
    },
  };
}

/** What the thread that serves the embedded service is started with (src/service/embedded-thread.ts). */
export interface EmbeddedWorkerData {
  source: EmbeddedSource;
  holdMs?: number | undefined;
  /** 0: a free one; a restarted thread listens where its predecessor did. */
  port: number;
  /** The bot's log level: the thread's lines go to the bot's logger (message `log`). */
  logLevel: Level | 'silent';
}

/** What the serving thread tells the thread that started it. */
export type EmbeddedMessage =
  | { kind: 'listening'; url: string; port: number; serving: boolean }
  | { kind: 'ready'; summary: ImportSummary | null; serving: boolean }
  | { kind: 'failed'; message: string; serving: boolean }
  /** A finished pino line, for the bot's logger to write. */
  | { kind: 'log'; line: string }
  | { kind: 'closed' };

/** The serving thread's nice value (the bot's main thread keeps 0). */
export const LOOKUP_THREAD_NICE = 10;

/** Serves the embedded service from the worker thread it runs in (through embedded-worker.mjs) until told `close`. */
export async function runEmbeddedWorker(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('embedded-worker runs in a worker thread');
  const { source, holdMs, port: listenPort, logLevel } = workerData as EmbeddedWorkerData;
  const post = (m: EmbeddedMessage) => port.postMessage(m);
  // This thread gives way to the bot's when both want a core: on Linux a nice value belongs to the
  // thread that sets it, so the bot's main thread keeps its priority. Elsewhere it is the whole
  // process's, and the bot's own thread would be lowered with this one: left as it is.
  if (process.platform === 'linux')
    try {
      setPriority(LOOKUP_THREAD_NICE);
    } catch {
      // Not allowed here: the service answers at the usual priority.
    }
  const logger = logLevel === 'silent' ? undefined : pino({ level: logLevel }, { write: (line: string) => post({ kind: 'log', line }) });
  const service = await serveEmbedded(source, logger, { ...(holdMs !== undefined ? { holdMs } : {}), port: listenPort });
  port.on('message', (m: { kind: 'close' }) => {
    if (m.kind !== 'close') return;
    service
      .close()
      .catch((e: unknown) => logger?.error({ err: (e as Error).message }, 'the embedded stats service did not close cleanly'))
      .finally(() => post({ kind: 'closed' }));
  });
  post({ kind: 'listening', url: service.url, port: service.port, serving: service.serving() });
  service.ready.then(
    (summary) => post({ kind: 'ready', summary, serving: service.serving() }),
    (e: unknown) => post({ kind: 'failed', message: (e as Error).message, serving: service.serving() }),
  );
}
