// Importing a dataset: JSON Lines read as a stream, each line checked on its own. A bad line is
// reported with its number and reason and the rest goes on; the summary counts both.
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

import { StatNames, parseDatasetLine, type DatasetRecord, type MatchRecord, type PlayerRecord, type RefusedLine } from './dataset.js';
import {
  CHUNK_BYTES,
  FileChangedError,
  MAX_LINE_BYTES,
  checkUnchanged,
  closeSnapshot,
  fileLineChunks,
  longLineReason,
  openSnapshot,
  type FileSnapshot,
  type LongLine,
} from './file-lines.js';
import type { Store } from './store-api.js';
import type { ParseMessage, ParseWorkerData, WriterMessage } from './parse-worker.js';
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
  /** Parse a file in this many worker threads beside the writer (SQLite only; 0: in this thread); see defaultParseWorkers. */
  workers?: number;
  /** Bytes of a file read at a time (4 MB). */
  chunkBytes?: number;
}

const MAX_REPORTED = 100;

/** Refused lines an operator is shown one by one (the service's command, the bot's log); the rest are counted in the summary. */
export const REFUSED_SHOWN = 20;

/** An `onRefused` that shows the first REFUSED_SHOWN refused lines, then says once that the rest are only counted. */
export function showingRefusals(show: (refused: RefusedLine) => void, more: () => void): (refused: RefusedLine) => void {
  let seen = 0;
  return (refused) => {
    seen++;
    if (seen <= REFUSED_SHOWN) show(refused);
    else if (seen === REFUSED_SHOWN + 1) more();
  };
}

/**
 * Imports records from lines of text (a dataset file's lines, or generated ones); a line longer
 * than MAX_LINE_BYTES (given as text, or as the LongLine a file's reading left in its place) is
 * refused, as is a match that would bring its title more stat names than MAX_STAT_NAMES.
 */
export async function importLines(
  store: Store,
  lines: AsyncIterable<string | LongLine> | Iterable<string | LongLine>,
  options: ImportOptions = {},
): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? 2_000;
  const summary: ImportSummary = { lines: 0, taken: 0, refused: 0, players: 0, matches: 0, refusedLines: [] };
  let players: PlayerRecord[] = [];
  let matches: MatchRecord[] = [];
  let digests: string[] = [];
  const statNames = new StatNames();
  const refuse = (reason: string) => {
    summary.refused++;
    const refused = { line: summary.lines, reason };
    if (summary.refusedLines.length < MAX_REPORTED) summary.refusedLines.push(refused);
    options.onRefused?.(refused);
  };
  const flush = async () => {
    if (players.length + matches.length === 0) return;
    await store.writeBatch(players, matches, digests);
    players = [];
    matches = [];
    digests = [];
    options.onProgress?.(summary.lines);
  };
  try {
    await readAll();
  } catch (e) {
    // What was written stays (each batch is whole); a shared store settles it now.
    await store.abandonImport?.();
    throw e;
  }
  await store.finishImport();
  return summary;

  async function readAll() {
    for await (const raw of lines) {
      summary.lines++;
      if (typeof raw !== 'string') {
        refuse(longLineReason(raw));
        continue;
      }
      // A character is at most 3 bytes in UTF-8 a UTF-16 unit: most lines need no count.
      if (raw.length * 3 > MAX_LINE_BYTES && Buffer.byteLength(raw) > MAX_LINE_BYTES) {
        refuse(longLineReason({ longLine: Buffer.byteLength(raw) }));
        continue;
      }
      // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
      const text = summary.lines === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
      if (text.trim().length === 0) continue;
      const parsed = parseDatasetLine(text);
      if ('reason' in parsed) {
        refuse(parsed.reason);
        continue;
      }
      if (parsed.record.type === 'match') {
        const took = statNames.take(parsed.record);
        if ('reason' in took) {
          refuse(took.reason);
          continue;
        }
      }
      summary.taken++;
      if (parsed.record.type === 'match') digests.push(textDigest(text));
      add(parsed.record);
      if (players.length + matches.length >= batchSize) await flush();
    }
    await flush();
  }

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

/**
 * Imports a JSON Lines file; `onBytes` reports progress as a share of the file read. The file is
 * read as it was when the import began (see FileSnapshot); one written to meanwhile fails the import
 * with FileChangedError, whatever it had written by then staying as any failed import leaves it.
 */
export async function importFile(
  store: Store,
  path: string,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<ImportSummary> {
  const snapshot = openSnapshot(path);
  try {
    const readers = options.workers ?? defaultParseWorkers();
    if (isPreparedWriter(store) && readers > 0) return await importInWorkers(store, snapshot, readers, options);
    let bytesRead = 0;
    const lines = (async function* () {
      for await (const chunk of fileLineChunks(snapshot, options.chunkBytes)) {
        bytesRead = chunk.bytesRead;
        yield* chunk.lines;
      }
      // Before the import finishes (its sorts, totals and ranks) with what was read.
      checkUnchanged(snapshot, bytesRead);
    })();
    return await importLines(store, lines, {
      ...options,
      onProgress: (n) => {
        options.onProgress?.(n);
        options.onBytes?.(bytesRead, snapshot.size);
      },
    });
  } finally {
    closeSnapshot(snapshot);
  }
}

/**
 * Runs `attempt` again while the file it imports keeps changing under it (FileChangedError), up to
 * `attempts` times in all, `waitMs` apart and longer each time (a dataset copied over its old
 * version is written for a while): any other failure, or the last, is thrown. `attempt` must start
 * over (a new store file each time).
 */
export async function retryWhileChanging<T>(
  attempt: () => Promise<T>,
  options: { attempts?: number; waitMs?: number; onRetry?: (attempt: number, waitMs: number) => void } = {},
): Promise<T> {
  const attempts = options.attempts ?? 3;
  const waitMs = options.waitMs ?? 5_000;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (!(e instanceof FileChangedError) || n >= attempts) throw e;
      options.onRetry?.(n, waitMs * n);
      await sleep(waitMs * n);
    }
  }
}

/**
 * Parse workers a file import uses unless told (SQLite): two on a machine of more than one core, the
 * machine busy or not. With one, the worker was the import's bottleneck and the writer idle about
 * half the time; two use that time. Once a match crossed to the writer as one string (not a
 * structured clone of a hundred values) the worker won even on a busy machine: the same file
 * 11.2 against 16.4 s and 18.4 against 19.5 s at load average 2.8 to 4.6 from other work, for about
 * 7 % more CPU in all. The embedded service imports at a lower priority (import-process.ts).
 */
export function defaultParseWorkers(): number {
  return availableParallelism() > 1 ? 2 : 0;
}

/** The buffer a batch's texts were packed in by its parse worker (BatchTexts), if any. */
function packedBuffer(matches: readonly PreparedMatch[]): ArrayBuffer | undefined {
  for (const m of matches) {
    const text = m[12];
    if (typeof text !== 'string' && text.buffer instanceof ArrayBuffer) return text.buffer;
  }
  return undefined;
}

/** A store that takes prepared matches (the SQLite one): a file is then parsed in worker threads. */
interface PreparedWriter extends Store {
  writePrepared(players: readonly PlayerRecord[], matches: readonly PreparedMatch[]): void;
  absorbTotals(totals: readonly DeltasExport[]): void;
  /** Every row of the import is written; only totals are to come. */
  rowsWritten(): void;
  bulkLoads(): boolean;
}

const isPreparedWriter = (store: Store): store is PreparedWriter =>
  'writePrepared' in store && 'absorbTotals' in store && 'bulkLoads' in store && 'rowsWritten' in store;

/**
 * The file read, parsed and prepared in worker threads (src/service/parse-worker.ts) while this
 * thread writes their batches in file order: the same records, refusals and summary as importLines.
 */
function importInWorkers(
  store: PreparedWriter,
  snapshot: FileSnapshot,
  readers: number,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void },
): Promise<ImportSummary> {
  const summary: ImportSummary = { lines: 0, taken: 0, refused: 0, players: 0, matches: 0, refusedLines: [] };
  // A bulk load's totals are held to its end: each player's written once, and given a record once.
  const flushPlayers = store.bulkLoads() ? Infinity : TOTALS_FLUSH_PLAYERS;
  const common = { snapshot, batchSize: options.batchSize ?? 2_000, flushPlayers, chunkBytes: options.chunkBytes ?? CHUNK_BYTES, readers };
  // A young generation of 64 MB: a worker makes a match's garbage at a high rate, and with the
  // default its collector took a fifth of its time (100,000 matches: 1.4 to 1.6 s of 7.9 to 8.3,
  // against 0.9 to 1.0 of 7.1 to 7.4).
  const workers = Array.from({ length: readers }, (_, reader) => {
    const workerData: ParseWorkerData = { ...common, reader };
    return new Worker(new URL('./parse-worker.mjs', import.meta.url), { workerData, resourceLimits: { maxYoungGenerationSizeMb: 64 } });
  });
  type Batch = Extract<ParseMessage, { kind: 'batch' }>;
  /** Batches by chunk, waiting for the chunks before theirs. */
  const waiting = new Map<number, Batch[]>();
  let next = 0;
  /** The file's chunks, and the chunk after them that holds its last line if nothing ends it. */
  const chunks = Math.ceil(snapshot.size / common.chunkBytes) + 1;
  /** Lines of the chunks written whole. */
  let linesBefore = 0;
  /** Which workers have read their last chunk. */
  const read: boolean[] = workers.map(() => false);
  /** Each worker's last word, by worker: the totals it still held. */
  const done: (Extract<ParseMessage, { kind: 'done' }> | undefined)[] = workers.map(() => undefined);
  /** Every row is written: the store was told (rowsWritten). */
  let rowsEnded = false;
  /** Stat names the batches written of the chunk being written brought, to tell every worker once it is whole. */
  let chunkNames: [title: string, names: string[]][] = [];
  const tell = (worker: Worker | undefined, m: WriterMessage) => worker?.postMessage(m);
  return new Promise<ImportSummary>((resolve, reject) => {
    let settled = false;
    // The workers are gone before the import settles: the caller then closes the file they read.
    const stopWorkers = () => Promise.all(workers.map((w) => w.terminate()));
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      void stopWorkers().finally(() => reject(e));
    };
    const write = (m: Batch) => {
      store.writePrepared(m.players, m.matches);
      // The buffer the batch's texts came in (one for all: BatchTexts) goes back to be packed again.
      const spare = packedBuffer(m.matches);
      const worker = workers[m.chunk % readers];
      if (spare) worker?.postMessage({ kind: 'ack', spare } satisfies WriterMessage, [spare]);
      else tell(worker, { kind: 'ack' });
      chunkNames.push(...m.names);
      summary.lines = linesBefore + m.lines;
      summary.players += m.players.length;
      summary.matches += m.matches.length;
      summary.taken += m.players.length + m.matches.length;
      for (const inChunk of m.refused) {
        const refused = { ...inChunk, line: linesBefore + inChunk.line };
        summary.refused++;
        if (summary.refusedLines.length < MAX_REPORTED) summary.refusedLines.push(refused);
        options.onRefused?.(refused);
      }
      if (m.totals) store.absorbTotals([m.totals]);
      options.onProgress?.(summary.lines);
      options.onBytes?.(m.bytes, snapshot.size);
      if (m.end) linesBefore = summary.lines;
    };
    const receive = (m: ParseMessage, reader: number) => {
      switch (m.kind) {
        case 'batch': {
          const queue = waiting.get(m.chunk) ?? [];
          queue.push(m);
          waiting.set(m.chunk, queue);
          // Whatever is next in the file is written; the rest waits for the chunks before it.
          for (let batch = waiting.get(next)?.shift(); batch; batch = waiting.get(next)?.shift()) {
            write(batch);
            if (!batch.end) continue;
            // The stat names the whole file has taken up to here: a worker that meets a name it does not know waits for them (parse-worker.ts).
            workers.forEach((w, i) => {
              if (!read[i]) tell(w, { kind: 'names', through: next, names: chunkNames });
            });
            chunkNames = [];
            waiting.delete(next++);
          }
          break;
        }
        case 'read':
          read[reader] = true;
          break;
        case 'done':
          done[reader] = m;
          break;
        case 'error':
          return fail(m.changed ? new FileChangedError() : new Error(m.message));
      }
      if (!read.every(Boolean) || next < chunks) return;
      if (!rowsEnded) {
        checkUnchanged(snapshot);
        rowsEnded = true;
        // The store's work on the rows (a bulk load's indexes) while the workers put their totals in order.
        store.rowsWritten();
      }
      const ends = done.filter((d) => d !== undefined);
      if (ends.length < readers) return;
      settled = true;
      store.absorbTotals(ends.map((d) => d.totals));
      void stopWorkers()
        .then(() => store.finishImport())
        .then(() => resolve(summary), reject);
    };
    workers.forEach((worker, reader) => {
      worker.on('message', (m: ParseMessage) => {
        try {
          receive(m, reader);
        } catch (e) {
          fail(e as Error);
        }
      });
      worker.on('error', fail);
      // A worker ends once it has said done; before that, its end is the import's failure.
      worker.on('exit', (code) => {
        if (!done[reader]) fail(new Error(`the import's parse worker stopped (exit ${code})`));
      });
    });
  });
}
