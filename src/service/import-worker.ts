// The work of an import's threads: this one, and workers started through import-worker.mjs, once
// for the import, each running the tasks the import gives it, one at a time, until the import ends
// it. Staging: each thread takes the file's next chunk from a counter they share, as it is free (so
// that they end together however their lines run), and checks and stages its lines
// (src/service/import-stage.ts); the import numbers the lines once every chunk's are counted.
// Totals: once every stage is written, the store may have the threads total the parts of the
// players (TotalsOffer, stageTotals), their code already loaded, telling it each part as it is
// written.
import { parentPort } from 'node:worker_threads';

import { FileChangedError, fileLineChunks, type FileSnapshot } from './file-lines.js';
import { CHUNK_LINES, Stage, type StageReport } from './import-stage.js';
import { stageTotals } from './sqlite-import.js';
import type { RankValues } from './ranks.js';

/** A thread's share of staging a file. */
export interface StageTask {
  kind: 'stage';
  /** The file as the import opened it: its descriptor is the process's, read by every thread alike. */
  snapshot: FileSnapshot;
  chunkBytes: number;
  /** The chunks' counter, shared by the threads (sharedCounter). */
  chunks: SharedArrayBuffer;
  /** The import's stages (Stage). */
  stages: number;
  /** The stage file this thread writes. */
  stage: string;
}

export type ImportTask = StageTask | { kind: 'totals'; files: string[]; outs: string[]; parts: SharedArrayBuffer };

/** A stage's report, and the number and line count of each chunk it read. */
export interface Staged {
  report: StageReport;
  chunks: [index: number, lines: number][];
}

/**
 * What a worker posts: a step as it goes (staging, each chunk's line count; totals, each part
 * written), then its result (Staged or RankValues) or why it failed.
 */
export type ImportWorkerMessage =
  { kind: 'step'; n: number } | { kind: 'done'; result: Staged | RankValues } | { kind: 'error'; message: string; changed: boolean };

export function runImportWorker(): void {
  const port = parentPort;
  if (!port) throw new Error('import-worker runs in a worker thread');
  const post = (m: ImportWorkerMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  port.on('message', (task: ImportTask) => {
    run(task, post).catch((e: unknown) => post({ kind: 'error', message: (e as Error).message, changed: e instanceof FileChangedError }));
  });
}

async function run(task: ImportTask, post: (m: ImportWorkerMessage, transfer?: ArrayBuffer[]) => void): Promise<void> {
  const step = (n: number) => post({ kind: 'step', n });
  if (task.kind === 'totals') {
    const ranks = stageTotals(task.files, task.outs, task.parts, step);
    return post(
      { kind: 'done', result: ranks },
      [...ranks.values()].flatMap((byKey) => [...byKey.values()].map((values) => values.buffer as ArrayBuffer)),
    );
  }
  const staged = await stageChunks(task, step);
  post({ kind: 'done', result: staged });
}

/** Stages the chunks this thread takes of the file, telling `onChunk` each one's line count. */
export async function stageChunks(task: StageTask, onChunk: (lines: number) => void): Promise<Staged> {
  const stage = new Stage(task.stage, task.stages);
  const chunks: Staged['chunks'] = [];
  let report: StageReport;
  try {
    for await (const chunk of fileLineChunks(task.snapshot, task.chunkBytes, task.chunks)) {
      chunk.lines.forEach((line, i) => stage.add(chunk.index * CHUNK_LINES + i, line));
      stage.commit();
      chunks.push([chunk.index, chunk.lines.length]);
      onChunk(chunk.lines.length);
    }
  } finally {
    report = stage.close();
  }
  return { report, chunks };
}
