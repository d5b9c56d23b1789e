// Importing a dataset: its lines checked and staged (src/service/import-stage.ts), a file by one
// thread a core (this one and worker threads: src/service/import-worker.ts), then taken by the store
// in one transaction (Store.importStages). A bad line is reported with its number and reason and
// the rest goes on; the summary counts both. Until the store takes the stages, it is as it was:
// an import that fails leaves it so.
import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { Worker } from 'node:worker_threads';

import Database from 'better-sqlite3';

import { MAX_STAT_NAMES, type RefusedLine } from './dataset.js';
import { CHUNK_BYTES, FileChangedError, checkUnchanged, closeSnapshot, exhaust, openSnapshot, sharedCounter } from './file-lines.js';
import {
  CHUNK_LINES,
  dropMatchLines,
  dropSuperseded,
  partsOf,
  placeOfRow,
  stagedSql,
  tooManyNames,
  type StageReport,
  type StagedRefusal,
} from './import-stage.js';
import { stageChunks, type ImportTask, type ImportWorkerMessage, type StageTask, type Staged } from './import-worker.js';
import { mergeRankValues, type RankValues } from './ranks.js';
import { stageTotals } from './sqlite-import.js';
import type { Store, TotalsOffer } from './store-api.js';

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
  /** Told each refused line, in order, once the whole source is read. */
  onRefused?: (refused: RefusedLine) => void;
  /** Called as the source is read with the lines read so far. */
  onProgress?: (linesRead: number) => void;
  /** Stage a file in this many worker threads beside this one (0: in this one alone); see importWorkers. */
  workers?: number;
  /** Bytes of a file read at a time (CHUNK_BYTES). */
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
 * Worker threads an import runs at most, beside its own. The store's transaction attaches each
 * thread's stage and a file of totals a part (partsOf), and SQLite attaches ten databases to a
 * connection at most: five threads, five parts.
 */
export const MAX_IMPORT_WORKERS = 4;

/**
 * Worker threads a file import stages in beside its own: as many as `asked`, else one a core after
 * the first (so that the rate rises with the cores), at most MAX_IMPORT_WORKERS.
 */
export function importWorkers(asked?: number): number {
  return Math.min(MAX_IMPORT_WORKERS, asked ?? availableParallelism() - 1);
}

/**
 * Imports records from lines of text (generated ones, as the demo's): written to a file, then
 * imported as a dataset file is, in this thread unless `workers` says otherwise.
 */
export async function importLines(store: Store, lines: AsyncIterable<string> | Iterable<string>, options: ImportOptions = {}): Promise<ImportSummary> {
  return withStages(async (dir) => {
    const file = join(dir, 'lines.jsonl');
    await pipeline(async function* () {
      for await (const line of lines) yield `${line}\n`;
    }, createWriteStream(file));
    return importFile(store, file, { workers: 0, ...options });
  });
}

/**
 * Imports a JSON Lines file; `onBytes` reports progress as a share of the file read. The file is
 * read as it was when the import began (see FileSnapshot); one written to meanwhile fails the import
 * with FileChangedError, and the store is left as it was.
 */
export async function importFile(
  store: Store,
  path: string,
  options: ImportOptions & { onBytes?: (read: number, total: number) => void } = {},
): Promise<ImportSummary> {
  const snapshot = openSnapshot(path);
  const workers = importWorkers(options.workers);
  const chunkBytes = options.chunkBytes ?? CHUNK_BYTES;
  let linesRead = 0;
  let chunksRead = 0;
  const onChunk = (lines: number) => {
    linesRead += lines;
    chunksRead++;
    options.onProgress?.(linesRead);
    options.onBytes?.(Math.min(snapshot.size, chunksRead * chunkBytes), snapshot.size);
  };
  try {
    return await withStages(async (dir) => {
      const threads = new ImportThreads(workers);
      try {
        const files = Array.from({ length: workers + 1 }, (_, i) => join(dir, `stage-${i}.sqlite`));
        const chunks = sharedCounter();
        const [here, ...there] = files.map((stage): StageTask => ({ kind: 'stage', snapshot, chunkBytes, chunks, stages: files.length, stage }));
        // This thread stages too, from the start: the workers begin once they have loaded their code.
        // The first to fail takes the chunks left, so that the others stop at their next.
        const stopping = (work: Promise<Staged>) =>
          work.catch((e: unknown) => {
            exhaust(chunks);
            throw e;
          });
        const staged = await allDone([stageChunks(here as StageTask, onChunk), ...threads.run<Staged>(there, onChunk)].map(stopping));
        checkUnchanged(snapshot);
        // Each chunk's first line's number: the lines of the chunks before it, counted.
        const before = new Map<number, number>();
        let lines = 0;
        for (const [index, count] of staged.flatMap((x) => x.chunks).sort((x, y) => x[0] - y[0])) {
          before.set(index, lines);
          lines += count;
        }
        const lineOf = (ord: number) => (before.get(Math.floor(ord / CHUNK_LINES)) ?? 0) + (ord % CHUNK_LINES) + 1;
        const outs = Array.from({ length: partsOf(files.length) }, (_, part) => join(dir, `totals-${part}.sqlite`));
        const reports = staged.map((x) => x.report);
        return await finish(store, files, reports, lineOf, lines, options, offerTotals(threads, there.length, files, outs));
      } finally {
        // Whatever they are doing (the totals of a store's transaction that failed): before the stages go.
        await threads.close();
      }
    });
  } finally {
    closeSnapshot(snapshot);
  }
}

/**
 * The totals of an import's stages (`files`) offered to the store (TotalsOffer): a part of the
 * players into each of `outs`, by `workers` of the import's threads and by the store's.
 */
export function offerTotals(threads: Pick<ImportThreads, 'run'>, workers: number, files: string[], outs: string[]): TotalsOffer {
  const parts = sharedCounter();
  const ready: number[] = [];
  const helped: RankValues[] = [];
  let [given, ended] = [0, false];
  let wake = () => undefined as void;
  const written = (part: number) => {
    ready.push(part);
    wake();
  };
  let working: Promise<RankValues[]> = Promise.resolve([]);
  return {
    files: outs,
    start: () => {
      const task: ImportTask = { kind: 'totals', files, outs, parts };
      working = allDone(
        threads.run<RankValues>(
          Array.from({ length: workers }, () => task),
          written,
        ),
      );
      const end = () => {
        ended = true;
        wake();
      };
      // A failure is handled here too: the store's transaction may fail before it asks for more.
      working.then(end, end);
    },
    more: async () => {
      // Workers tell their parts by message, which this thread hears only once it yields.
      await new Promise((resolve) => setImmediate(resolve));
      while (ready.length === 0 && given < outs.length) {
        // None ready: this thread totals a part none has taken, else waits for the next a worker writes.
        helped.push(stageTotals(files, outs, parts, written, 1));
        if (ready.length > 0) break;
        if (ended) {
          await working;
          // A worker tells each part it writes before it ends.
          throw new Error("the import's totals: a part taken was not written");
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
      given += ready.length;
      return ready.splice(0);
    },
    values: async () => mergeRankValues([...(await working), ...helped]),
  };
}

/** One of an import's threads: `tell` hears what it says while it runs a task; `failure`, why it stopped. */
interface ImportThread {
  worker: Worker;
  tell?: (m: ImportWorkerMessage | Error) => void;
  failure?: Error;
}

/**
 * An import's worker threads (src/service/import-worker.ts), started once for its tasks, so that
 * each loads its code once. A thread that fails or stops fails the task it runs, or the next.
 */
class ImportThreads {
  private readonly threads: ImportThread[];

  constructor(count: number) {
    // V8 makes the objects of an allocation site in its old generation once it has seen many of them
    // survive a collection. A thread's lines (each parsed, checked and staged, then dropped) can lead
    // it to that guess, and then each young collection keeps alive what those old objects point to,
    // copying it, until a full collection: the same staging, some runs much slower than others.
    // V8's flags are the process's: from here on, its objects are made young and move up if they live.
    setFlagsFromString('--no-allocation-site-pretenuring');
    this.threads = Array.from({ length: count }, () => {
      // No execArgv (src/module-beside.mjs says why).
      const thread: ImportThread = { worker: new Worker(new URL('./import-worker.mjs', import.meta.url), { execArgv: [] }) };
      const fail = (e: Error) => {
        thread.failure ??= e;
        thread.tell?.(e);
      };
      thread.worker.on('message', (m: ImportWorkerMessage) => thread.tell?.(m));
      thread.worker.on('error', fail);
      thread.worker.on('exit', (code) => fail(new Error(`the import's worker stopped (exit ${code})`)));
      return thread;
    });
  }

  /** Runs task i in thread i, telling `onStep` each step a thread posts: their results, in order. */
  run<T>(tasks: ImportTask[], onStep: (n: number) => void): Promise<T>[] {
    return tasks.map(
      (task, i) =>
        new Promise<T>((resolve, reject) => {
          const thread = this.threads[i] as ImportThread;
          if (thread.failure) return reject(thread.failure);
          thread.tell = (m) => {
            if (m instanceof Error) reject(m);
            else if (m.kind === 'step') return onStep(m.n);
            else if (m.kind === 'done') resolve(m.result as T);
            else reject(m.changed ? new FileChangedError() : new Error(m.message));
            thread.tell = undefined;
          };
          thread.worker.postMessage(task);
        }),
    );
  }

  /** Stops the threads, whatever they are doing: a task still running fails. */
  async close(): Promise<void> {
    for (const thread of this.threads) thread.tell?.(new Error('the import stopped'));
    await Promise.all(this.threads.map((t) => t.worker.terminate()));
  }
}

/** Waits for every one of `work`: their results, in order, or the first failure. */
async function allDone<T>(work: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(work);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

/** The start of the name of an import's folder of stages, in the temporary folder; the process's id follows. */
export const STAGES = 'stats-import-';

/**
 * Removes the folders of stages an import left when its process was killed (they hold about the
 * dataset's size): those whose process is gone.
 */
function removeStagesOfTheDead(): void {
  for (const name of readdirSync(tmpdir())) {
    const pid = Number(new RegExp(`^${STAGES}(\\d+)-`).exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') rmSync(join(tmpdir(), name), { recursive: true, force: true });
    }
  }
}

/** Runs `work` with a folder for its stages, removed after it. */
async function withStages<T>(work: (dir: string) => Promise<T>): Promise<T> {
  removeStagesOfTheDead();
  const dir = mkdtempSync(join(tmpdir(), `${STAGES}${process.pid}-`));
  try {
    return await work(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The stages read whole: the matches with a stat name past their title's first MAX_STAT_NAMES in
 * the file refused, the last of each match id kept, the store takes them, and the summary is told.
 */
async function finish(
  store: Store,
  files: string[],
  reports: StageReport[],
  lineOf: (ord: number) => number,
  lines: number,
  options: ImportOptions,
  offer: TotalsOffer,
): Promise<ImportSummary> {
  const late = settleStages(files, reports);
  const refusals: StagedRefusal[] = [...reports.flatMap((r) => r.refused), ...late.refused];
  const summary: ImportSummary = {
    lines,
    taken: 0,
    refused: reports.reduce((n, r) => n + r.refusedCount, 0) + late.count,
    players: reports.reduce((n, r) => n + r.players, 0),
    matches: reports.reduce((n, r) => n + r.matches, 0) - late.count,
    refusedLines: [],
  };
  await store.importStages(files, offer);
  summary.taken = summary.players + summary.matches;
  refusals.sort((a, b) => a.ord - b.ord);
  summary.refusedLines = refusals.slice(0, MAX_REPORTED).map((r) => ({ line: lineOf(r.ord), reason: r.reason }));
  for (const r of summary.refusedLines) options.onRefused?.(r);
  return summary;
}

/** Matches an import refused once its stages were written: the first MAX_REPORTED, and how many in all. */
export interface LateRefusals {
  refused: StagedRefusal[];
  count: number;
}

/**
 * Takes out of the stages in `files` (their reports in `reports`) the matches with a stat name past
 * their title's first MAX_STAT_NAMES in the file, then all but the last of a match id given twice.
 * Refused first: a match given twice whose later copy is refused is taken as given before.
 */
export function settleStages(files: readonly string[], reports: readonly StageReport[]): LateRefusals {
  const db = new Database(':memory:');
  try {
    files.forEach((file, i) => db.prepare(`ATTACH ? AS stage${i}`).run(file));
    const refused = refuseNamesPast(db, files.length, firstNames(reports));
    dropSuperseded(db, files.length);
    return refused;
  } finally {
    db.close();
  }
}

/**
 * By title, the file's first MAX_STAT_NAMES stat names, for each title that may have more: from
 * each stage's first names (Stage), each name at the first line it came in, in any stage.
 */
function firstNames(reports: readonly StageReport[]): Map<string, Set<string>> {
  const first = new Map<string, Map<string, number>>();
  for (const r of reports)
    for (const [title, names] of Object.entries(r.names)) {
      let byName = first.get(title);
      if (!byName) first.set(title, (byName = new Map<string, number>()));
      for (const [name, ord] of names) byName.set(name, Math.min(ord, byName.get(name) ?? Infinity));
    }
  const firsts = new Map<string, Set<string>>();
  for (const [title, byName] of first) {
    // A stage that noted as many as it keeps may have met more.
    if (byName.size <= MAX_STAT_NAMES && !reports.some((r) => (r.names[title]?.length ?? 0) >= MAX_STAT_NAMES)) continue;
    const inOrder = [...byName].sort((a, b) => a[1] - b[1]).slice(0, MAX_STAT_NAMES);
    firsts.set(title, new Set(inOrder.map(([name]) => name)));
  }
  return firsts;
}

/** Takes out of the stages attached to `db` the matches with a stat name not among their title's `firsts`. */
function refuseNamesPast(db: Database.Database, stages: number, firsts: Map<string, Set<string>>): LateRefusals {
  const late: LateRefusals = { refused: [], count: 0 };
  if (firsts.size === 0) return late;
  const ords: number[] = [];
  // The rows in the order of their lines, each line's in the order of its players (rowIdOf).
  const rows = db.prepare(`SELECT rid, title, stats FROM ${stagedSql(stages, 'rows', 'rowid AS rid, title, stats')} ORDER BY rid`);
  for (const row of rows.iterate() as Iterable<{ rid: number; title: string; stats: string }>) {
    const { ord, seat } = placeOfRow(row.rid);
    if (ords.at(-1) === ord) continue;
    const names = firsts.get(row.title);
    const name = names && Object.keys(JSON.parse(row.stats) as object).find((key) => !names.has(key));
    if (!name) continue;
    ords.push(ord);
    if (late.refused.length < MAX_REPORTED) late.refused.push({ ord, reason: tooManyNames(row.title, seat, name) });
  }
  dropMatchLines(db, stages, ords);
  late.count = ords.length;
  return late;
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
