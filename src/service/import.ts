// Importing a dataset: JSON Lines read as a stream, each line checked on its own. A bad line is
// reported with its number and reason and the rest goes on; the summary counts both.
import { statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';

import { parseDatasetLine, type DatasetRecord, type MatchRecord, type PlayerRecord, type RefusedLine } from './dataset.js';
import { fileLineChunks } from './file-lines.js';
import type { Store } from './store-api.js';
import type { ParseMessage, ParseWorkerData } from './parse-worker.js';
import type { PreparedMatch } from './prepared.js';
import { TOTALS_FLUSH_PLAYERS, textDigest } from './store.js';
import type { DeltasExport } from './totals.js';

export interface ImportSummary {
  /** Lines read, blank ones included. */
  lines: number;
  taken: number;
  refused: number;
  players: number;
  matches: number;
  /** The first refused lines (up to `MAX_REPORTED`), in order. */
  refusedLines: RefusedLine[];
}

export interface ImportOptions {
  /** Records written per transaction. */
  batchSize?: number;
  onRefused?: (refused: RefusedLine) => void;
  /** Called after each batch with the lines read so far. */
  onProgress?: (linesRead: number) => void;
  /**
   * Parse a file in a worker thread beside the writer (SQLite only). By default only when a core is
   * free (the load average below the cores less one): on a busy machine the hand-over between the
   * threads costs more than the second thread gains.
   */
  worker?: boolean;
}

const MAX_REPORTED = 100;

/** Imports records from lines of text (a dataset file's lines, or generated ones). */
export async function importLines(
  store: Store,
  lines: AsyncIterable<string> | Iterable<string>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 2_000;
  const summary: ImportSummary = { lines: 0, taken: 0, refused: 0, players: 0, matches: 0, refusedLines: [] };
  let players: PlayerRecord[] = [];
  let matches: MatchRecord[] = [];
  let digests: string[] = [];
  const flush = async () => {
    if (players.length + matches.length === 0) return;
    await store.writeBatch(players, matches, digests);
    players = [];
    matches = [];
    digests = [];
    options.onProgress?.(summary.lines);
  };
  for await (const raw of lines) {
    summary.lines++;
    // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
    const text = summary.lines === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    if (text.trim().length === 0) continue;
    const parsed = parseDatasetLine(text);
    if ('reason' in parsed) {
      summary.refused++;
      const refused = { line: summary.lines, reason: parsed.reason };
      if (summary.refusedLines.length < MAX_REPORTED) summary.refusedLines.push(refused);
      options.onRefused?.(refused);
      continue;
    }
    summary.taken++;
    if (parsed.record.type === 'match') digests.push(textDigest(text));
    add(parsed.record);
    if (players.length + matches.length >= batchSize) await flush();
  }
  await flush();
  await store.finishImport();
  return summary;

  function add(record: DatasetRecord) {
    if (record.type === 'player') {
      players.push(record);
      summary.players++;
    } else {
      matches.push(record);
      summary.matches++;
    }
  }
}

/** Imports a JSON Lines file; `onBytes` reports progress as a share of the file read. */
export async function importFile(
  store: Store,
  path: string,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<ImportSummary> {
  const total = statSync(path).size;
  if (isPreparedWriter(store) && (options.worker ?? coreToSpare())) return importInWorker(store, path, total, options);
  let bytesRead = 0;
  const lines = (async function* () {
    for await (const chunk of fileLineChunks(path)) {
      bytesRead = chunk.bytesRead;
      yield* chunk.lines;
    }
  })();
  return importLines(store, lines, {
    ...options,
    onProgress: (n) => {
      options.onProgress?.(n);
      options.onBytes?.(bytesRead, total);
    },
  });
}

/** Whether a core is free for a parse worker, going by the last minute's load. */
const coreToSpare = () => availableParallelism() > 1 && (loadavg()[0] ?? 0) < availableParallelism() - 1;

/** A store that takes prepared matches (the SQLite one): a file is then parsed in a worker thread. */
interface PreparedWriter extends Store {
  writePrepared(players: readonly PlayerRecord[], matches: readonly PreparedMatch[]): void;
  absorbTotals(totals: DeltasExport): void;
  bulkLoads(): boolean;
}

const isPreparedWriter = (store: Store): store is PreparedWriter => 'writePrepared' in store && 'absorbTotals' in store && 'bulkLoads' in store;

/**
 * The file read, parsed and prepared in a worker thread (src/service/parse-worker.ts) while this
 * thread writes: the same records, refusals and summary as importLines.
 */
function importInWorker(
  store: PreparedWriter,
  path: string,
  total: number,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void },
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, taken: 0, refused: 0, players: 0, matches: 0, refusedLines: [] };
  // A bulk load's totals are held to its end: each player's written once, and given a record once.
  const flushPlayers = store.bulkLoads() ? Infinity : TOTALS_FLUSH_PLAYERS;
  const workerData: ParseWorkerData = { path, batchSize: options.batchSize ?? 2_000, flushPlayers };
  // A young generation of 64 MB: the worker makes a match's garbage at a high rate, and with the
  // default its collector took a fifth of its time (100,000 matches: 1.4 to 1.6 s of 7.9 to 8.3,
  // against 0.9 to 1.0 of 7.1 to 7.4).
  const worker = new Worker(new URL('./parse-worker.mjs', import.meta.url), { workerData, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
  return new Promise<ImportSummary>((resolve, reject) => {
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      void worker.terminate();
      reject(e);
    };
    const receive = (m: ParseMessage) => {
      switch (m.kind) {
        case 'batch':
          store.writePrepared(m.players, m.matches);
          worker.postMessage('ack');
          summary.lines = m.lines;
          summary.players += m.players.length;
          summary.matches += m.matches.length;
          summary.taken += m.players.length + m.matches.length;
          for (const refused of m.refused) {
            summary.refused++;
            if (summary.refusedLines.length < MAX_REPORTED) summary.refusedLines.push(refused);
            options.onRefused?.(refused);
          }
          options.onProgress?.(m.lines);
          options.onBytes?.(m.bytes, total);
          return;
        case 'totals':
          store.absorbTotals(m.totals);
          return;
        case 'done':
          summary.lines = m.lines;
          settled = true;
          void worker.terminate();
          store.finishImport().then(() => resolve(summary), reject);
          return;
        case 'error':
          return fail(new Error(m.message));
      }
    };
    worker.on('message', (m: ParseMessage) => {
      try {
        receive(m);
      } catch (e) {
        fail(e as Error);
      }
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the import's parse worker stopped (exit ${code})`)));
  });
}
