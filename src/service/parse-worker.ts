// The parsing half of a file import, run in a worker thread (started through parse-worker.mjs) so
// that reading, parsing, validating and preparing matches (src/service/prepared.ts) use the
// machine's second core while the store's thread writes. The writer acknowledges each batch; at
// most a few are in flight, so a slow writer holds the reader back instead of filling memory.
import { parentPort, workerData } from 'node:worker_threads';

import { parseDatasetLine, type PlayerRecord, type RefusedLine } from './dataset.js';
import { fileLineChunks } from './file-lines.js';
import { prepareMatch, textDigest, type PreparedMatch } from './prepared.js';
import { TotalsDeltas, type DeltasExport } from './totals.js';

export interface ParseWorkerData {
  path: string;
  /** Records a batch carries. */
  batchSize: number;
  /** Players whose totals the worker holds before handing them over. */
  flushPlayers: number;
}

/** What the worker posts: batches in file order, totals after the batches they cover, then the end. */
export type ParseMessage =
  | { kind: 'batch'; lines: number; bytes: number; players: PlayerRecord[]; matches: PreparedMatch[]; refused: RefusedLine[] }
  | { kind: 'totals'; totals: DeltasExport }
  | { kind: 'done'; lines: number; bytes: number }
  | { kind: 'error'; message: string };

/** Batches not yet acknowledged by the writer, at most. */
const IN_FLIGHT = 4;

export async function runParseWorker(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('parse-worker runs in a worker thread');
  const { path, batchSize, flushPlayers } = workerData as ParseWorkerData;
  const post = (m: ParseMessage) => port.postMessage(m);
  let inFlight = 0;
  let resume: (() => void) | undefined;
  port.on('message', () => {
    inFlight--;
    resume?.();
    resume = undefined;
  });
  try {
    const deltas = new TotalsDeltas();
    let n = 0;
    let players: PlayerRecord[] = [];
    let matches: PreparedMatch[] = [];
    let refused: RefusedLine[] = [];
    let bytes = 0;
    const flush = async () => {
      post({ kind: 'batch', lines: n, bytes, players, matches, refused });
      players = [];
      matches = [];
      refused = [];
      // Totals go after the batches whose rows they hold: the writer corrects them per batch.
      if (deltas.size >= flushPlayers) post({ kind: 'totals', totals: deltas.take() });
      inFlight++;
      while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (resume = r));
    };
    for await (const chunk of fileLineChunks(path)) {
      bytes = chunk.bytesRead;
      for (const raw of chunk.lines) {
        n++;
        // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
        const text = n === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
        if (text.trim().length === 0) continue;
        const parsed = parseDatasetLine(text);
        if ('reason' in parsed) refused.push({ line: n, reason: parsed.reason });
        else if (parsed.record.type === 'player') players.push(parsed.record);
        else matches.push(prepareMatch(parsed.record, textDigest(text), deltas));
        if (players.length + matches.length + refused.length >= batchSize) await flush();
      }
    }
    post({ kind: 'batch', lines: n, bytes, players, matches, refused });
    post({ kind: 'totals', totals: deltas.take() });
    post({ kind: 'done', lines: n, bytes });
  } catch (e) {
    post({ kind: 'error', message: (e as Error).message });
  } finally {
    // Nothing more to wait for: the thread may end.
    port.unref();
  }
}
