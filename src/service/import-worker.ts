// One of the threads that stage a dataset file (src/service/import-stage.ts), started through
// import-worker.mjs. Worker `reader` of `readers` reads the file's chunks whose number divided by
// `readers` leaves `reader`, so that the workers share the file evenly however its lines run; the
// import numbers the lines once every chunk's are counted.
import { parentPort, workerData } from 'node:worker_threads';

import { FileChangedError, fileLineChunks, longLineReason, type FileSnapshot } from './file-lines.js';
import { CHUNK_LINES, Stage, type StageReport } from './import-stage.js';

export interface ImportWorkerData {
  /** The file as the import opened it: its descriptor is the process's, read by every worker alike. */
  snapshot: FileSnapshot;
  chunkBytes: number;
  reader: number;
  readers: number;
  /** The stage file this worker writes. */
  stage: string;
}

/** What a worker posts: its report with the lines of each chunk it read, or why it failed. */
export type ImportWorkerMessage =
  | { kind: 'chunk'; lines: number }
  | { kind: 'done'; report: StageReport; chunks: [index: number, lines: number][] }
  | { kind: 'error'; message: string; changed: boolean };

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
  let message: ImportWorkerMessage;
  try {
    const stage = new Stage(data.stage);
    const chunks = await stageChunks(
      stage,
      data.snapshot,
      data.chunkBytes,
      (index) => index % data.readers === data.reader,
      (lines) => port.postMessage({ kind: 'chunk', lines } satisfies ImportWorkerMessage),
    );
    message = { kind: 'done', report: stage.close(), chunks };
  } catch (e) {
    message = { kind: 'error', message: (e as Error).message, changed: e instanceof FileChangedError };
  }
  port.postMessage(message);
}
