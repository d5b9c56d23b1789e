// One of the threads of an import, started through import-worker.mjs, once for the import: it
// runs the tasks the import gives it, one at a time, until the import ends it. Staging: each worker
// takes the file's next chunk from a counter they share, as it is free (so that they end together
// however their lines run), and checks and stages its lines (src/service/import-stage.ts); the
// import numbers the lines once every chunk's are counted.
// Totals: once every stage is written, the store may have each worker total a part of the players
// (TotalsOffer, stageTotals), its code already loaded.
import { parentPort } from 'node:worker_threads';

import { FileChangedError, fileLineChunks, type FileSnapshot } from './file-lines.js';
import { CHUNK_LINES, Stage, type StageReport } from './import-stage.js';
import { stageTotals } from './sqlite-import.js';
import type { RankValues } from './ranks.js';

export type ImportTask =
  | {
      kind: 'stage';
      /** The file as the import opened it: its descriptor is the process's, read by every worker alike. */
      snapshot: FileSnapshot;
      chunkBytes: number;
      /** The chunks' counter, shared by the workers (chunkCounter). */
      chunks: SharedArrayBuffer;
      /** The import's stages: a stage's rows are kept in as many parts (Stage). */
      stages: number;
      /** The stage file this worker writes. */
      stage: string;
    }
  | { kind: 'totals'; files: string[]; part: number; out: string };

/** A stage's report, and the number and line count of each chunk it read. */
export interface Staged {
  report: StageReport;
  chunks: [index: number, lines: number][];
}

/** What a worker posts: each chunk's line count as it goes, then its result (Staged or RankValues) or why it failed. */
export type ImportWorkerMessage =
  { kind: 'chunk'; lines: number } | { kind: 'done'; result: Staged | RankValues } | { kind: 'error'; message: string; changed: boolean };

export function runImportWorker(): void {
  const port = parentPort;
  if (!port) throw new Error('import-worker runs in a worker thread');
  const post = (m: ImportWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  port.on('message', (task: ImportTask) => {
    run(task, post).catch((e: unknown) => post({ kind: 'error', message: (e as Error).message, changed: e instanceof FileChangedError }));
  });
}

async function run(task: ImportTask, post: (m: ImportWorkerMessage, transfer?: ArrayBuffer[]) => void): Promise<void> {
  if (task.kind === 'totals') {
    const ranks = stageTotals(task.files, task.part, task.out);
    return post(
      { kind: 'done', result: ranks },
      [...ranks.values()].flatMap((byKey) => [...byKey.values()].map((values) => values.buffer as ArrayBuffer)),
    );
  }
  const stage = new Stage(task.stage, task.stages);
  const chunks: Staged['chunks'] = [];
  for await (const chunk of fileLineChunks(task.snapshot, task.chunkBytes, task.chunks)) {
    chunk.lines.forEach((line, i) => stage.add(chunk.index * CHUNK_LINES + i, line));
    stage.commit();
    chunks.push([chunk.index, chunk.lines.length]);
    post({ kind: 'chunk', lines: chunk.lines.length });
  }
  post({ kind: 'done', result: { report: stage.close(), chunks } });
}
