// The embedded service as the bot holds it: served from a worker thread of its own
// (embedded-worker.mjs, running src/service/embedded.ts), so that a lookup's work (a player with
// tens of thousands of matches takes hundreds of milliseconds at a million) never holds up the
// bot's event loop, and the bot talks to it over loopback HTTP as to any service. Only types are
// imported from the service here: its modules load in that thread, not in the bot's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { Level, Logger } from 'pino';

import type { EmbeddedMessage, EmbeddedSource, EmbeddedWorkerData } from './embedded.js';
import type { StoreSource } from './open-store.js';
import type { ImportSummary } from './import.js';

export interface EmbeddedService {
  /** `http://127.0.0.1:<port>`: the base URL lookups take. */
  url: string;
  port: number;
  /** Settles when the store is loaded: the import summary, or null when the kept file already held this dataset. */
  ready: Promise<ImportSummary | null>;
  /** Whether lookups are answered from a store (the new one, or meanwhile the one kept from an earlier start). */
  serving(): boolean;
  /** Stops serving; an import still running finishes in its child process first (its file is then whole). */
  close(): Promise<void>;
}

/** A thread that stopped is started again after this, doubled each time it stops again soon after its start. */
const RESTART_FIRST_MS = 1_000;
const RESTART_MAX_MS = 60_000;
/** A thread that served this long before it stopped is started again after RESTART_FIRST_MS. */
const SERVED_WELL_MS = 60_000;

/** Writes the serving thread's finished pino lines through the bot's logger (its level, its censoring of secrets). */
function relayTo(logger: Logger): (line: string) => void {
  return (line) => {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      logger.warn({ line: line.slice(0, 500) }, 'an unreadable log line from the embedded stats service');
      return;
    }
    const { level, time: _time, pid: _pid, hostname: _hostname, msg, ...fields } = entry;
    const label = typeof level === 'number' ? logger.levels.labels[level] : undefined;
    const write = label && label in logger.levels.values ? logger[label as Level] : logger.info;
    write.call(logger, fields, typeof msg === 'string' ? msg : '');
  };
}

/**
 * The embedded service, listening at once while its store loads (src/service/embedded.ts,
 * serveEmbedded: a lookup meanwhile waits up to `holdMs` for the store, then answers 503 "still
 * loading"; a `db` file kept from an earlier start is served meanwhile). Resolves once the thread
 * listens. When the thread stops (a crash, its heap exhausted), the operator is told and it starts
 * again on the same port, the store file kept; lookups meanwhile fail as a service that cannot be
 * reached.
 */
export function openEmbeddedService(
  source: StoreSource,
  logger?: Logger,
  options: { holdMs?: number; /** Told of each thread started (tests stop one to see it started again). */ onThread?: (worker: Worker) => void } = {},
): Promise<EmbeddedService> {
  const relay = logger ? relayTo(logger) : () => undefined;
  // Without a `db` file, a temporary one, kept here rather than in the thread: a thread started again
  // serves the same file at once (its dataset already imported), and the file goes when this closes.
  const temp = source.db ? undefined : mkdtempSync(join(tmpdir(), 'player-stats-'));
  const threadSource: EmbeddedSource = { ...source, db: source.db ?? join(temp as string, 'store.sqlite') };
  const removeTemp = () => {
    if (temp) rmSync(temp, { recursive: true, force: true });
  };
  let serving = false;
  let closing = false;
  let worker: Worker | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restartMs = RESTART_FIRST_MS;
  /** Where the service listens: a restarted thread listens there too, so the lookups' base URL holds. */
  let listenPort = 0;
  let readyKnown = false;
  let settleReady: { resolve(s: ImportSummary | null): void; reject(e: Error): void } | undefined;
  const ready = new Promise<ImportSummary | null>((resolve, reject) => (settleReady = { resolve, reject }));
  // The caller may not wait for it: a failure is theirs to read from `ready`, never an unhandled rejection.
  ready.catch(() => undefined);
  let closed: () => void = () => undefined;
  const whenClosed = new Promise<void>((resolve) => (closed = resolve)).then(removeTemp);

  return new Promise<EmbeddedService>((resolveOpen, rejectOpen) => {
    let opened = false;
    const spawn = () => {
      const workerData: EmbeddedWorkerData = {
        source: threadSource,
        holdMs: options.holdMs,
        port: listenPort,
        logLevel: (logger?.level ?? 'silent') as Level | 'silent',
      };
      // No execArgv (src/module-beside.mjs says why); V8's flags, the heap's sizes among them, are the process's either way.
      const w = new Worker(new URL('./embedded-worker.mjs', import.meta.url), { workerData, execArgv: [] });
      worker = w;
      options.onThread?.(w);
      const startedAt = performance.now();
      let failure: Error | undefined;
      w.on('message', (m: EmbeddedMessage) => {
        switch (m.kind) {
          case 'log':
            return relay(m.line);
          case 'listening':
            serving = m.serving;
            listenPort = m.port;
            if (opened) return logger?.info({ url: m.url }, 'the embedded stats service is serving again');
            opened = true;
            return resolveOpen(service(m.url, m.port));
          case 'ready':
          case 'failed':
            serving = m.serving;
            if (readyKnown) {
              if (m.kind === 'failed') logger?.error({ err: m.message }, 'the embedded stats service could not load its dataset again');
              return;
            }
            readyKnown = true;
            return m.kind === 'ready' ? settleReady?.resolve(m.summary) : settleReady?.reject(new Error(m.message));
          case 'closed':
            return void w.terminate();
        }
      });
      w.on('error', (e) => (failure = e));
      w.on('exit', (code) => {
        if (worker === w) worker = undefined;
        serving = false;
        if (closing) return closed();
        const reason = failure?.message ?? `exit code ${code}`;
        if (!opened) {
          removeTemp();
          return rejectOpen(new Error(`the embedded stats service did not start: ${reason}`));
        }
        restartMs = performance.now() - startedAt > SERVED_WELL_MS ? RESTART_FIRST_MS : restartMs;
        const wait = restartMs;
        restartMs = Math.min(restartMs * 2, RESTART_MAX_MS);
        logger?.error({ err: reason, restartInMs: wait }, 'the embedded stats service stopped; lookups fail until it is started again');
        restartTimer = setTimeout(spawn, wait);
      });
    };
    const service = (url: string, port: number): EmbeddedService => ({
      url,
      port,
      ready,
      serving: () => serving,
      close: () => {
        if (!closing) {
          closing = true;
          clearTimeout(restartTimer);
          if (worker) worker.postMessage({ kind: 'close' });
          else closed();
        }
        return whenClosed;
      },
    });
    spawn();
  });
}

/** The embedded service once its store is loaded, with the import summary (null: the kept file already held this dataset). */
export async function startEmbeddedService(
  source: StoreSource,
  logger?: Logger,
  options: Parameters<typeof openEmbeddedService>[2] = {},
): Promise<EmbeddedService & { summary: ImportSummary | null }> {
  const service = await openEmbeddedService(source, logger, options);
  try {
    return { ...service, summary: await service.ready };
  } catch (e) {
    await service.close();
    throw e;
  }
}
