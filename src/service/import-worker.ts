// One of the threads that stage a dataset file (src/service/import-stage.ts), started through
// import-worker.mjs. Worker `reader` of `readers` reads the file's chunks whose number divided by
// `readers` leaves `reader`, so that the workers share the file evenly however its lines run; the
// import numbers the lines once every chunk's are counted. Then, if the store asks (TotalsOffer),
// it totals its share of the players from every stage.
import { parentPort, workerData } from 'node:worker_threads';

import { FileChangedError, fileLineChunks, longLineReason, type FileSnapshot } from './file-lines.js';
import { CHUNK_LINES, Stage, type StageReport } from './import-stage.js';
import { stageTotals } from './sqlite-import.js';
import type { RankValues } from './ranks.js';

export interface ImportWorkerData {
  /** The file as the import opened it: its descriptor is the process's, read by every worker alike. */
  snapshot: FileSnapshot;
  chunkBytes: number;
  reader: number;
  readers: number;
  /** The stage file this worker writes. */
  stage: string;
}

/** What a worker posts: each chunk's lines as it goes, its report with the lines of each chunk, its totals' values, or why it failed. */
export type ImportWorkerMessage =
  | { kind: 'chunk'; lines: number }
  | { kind: 'done'; report: StageReport; chunks: [index: number, lines: number][] }
  | { kind: 'totals'; ranks: RankValues }
  | { kind: 'error'; message: string; changed: boolean };

/** What a worker is told once every stage is written: total its part of the players (stageTotals). */
export interface TotalsTask {
  files: string[];
  superseded: number[];
  part: number;
  out: string;
}

/** Stages the chunks of `source` that `keep` says yes to (all without it) into `stage`; the line count of each. */
export async function stageChunks(
  stage: Stage,
  source: FileSnapshot,
  chunkBytes: number,
  keep: ((index: number) => boolean) | undefined,
  onChunk: (lines: number) => void,
): Promise<[index: number, lines: number][]> {
  const counts: [number, number][] = [];
  for await (const chunk of fileLineChunks(source, chunkBytes, keep)) {
    chunk.lines.forEach((line, i) => {
      // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
      const text = typeof line !== 'string' ? { reason: longLineReason(line) } : chunk.first && i === 0 && line.charCodeAt(0) === 0xfeff ? line.slice(1) : line;
      stage.add(chunk.index * CHUNK_LINES + i, text);
    });
    stage.commit();
    counts.push([chunk.index, chunk.count]);
    onChunk(chunk.count);
  }
  return counts;
}

export async function runImportWorker(): Promise<void> {
  const data = workerData as ImportWorkerData;
  const port = parentPort;
  if (!port) throw new Error('import-worker runs in a worker thread');
  const fail = (e: unknown) =>
    port.postMessage({ kind: 'error', message: (e as Error).message, changed: e instanceof FileChangedError } satisfies ImportWorkerMessage);
  try {
    const stage = new Stage(data.stage, data.readers);
    const chunks = await stageChunks(
      stage,
      data.snapshot,
      data.chunkBytes,
      (index) => index % data.readers === data.reader,
      (lines) => port.postMessage({ kind: 'chunk', lines } satisfies ImportWorkerMessage),
    );
    port.postMessage({ kind: 'done', report: stage.close(), chunks } satisfies ImportWorkerMessage);
  } catch (e) {
    return fail(e);
  }
  // The import ends the thread when the store does not ask for totals.
  port.once('message', (task: TotalsTask) => {
    try {
      const ranks = stageTotals(task.files, task.superseded, task.part, task.out);
      const buffers = [...ranks.values()].flatMap((byKey) => [...byKey.values()].map((values) => values.buffer as ArrayBuffer));
      port.postMessage({ kind: 'totals', ranks } satisfies ImportWorkerMessage, buffers);
    } catch (e) {
      fail(e);
    }
  });
}
