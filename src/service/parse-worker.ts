// The parsing half of a file import, run in worker threads (started through parse-worker.mjs) so
// that reading, parsing, validating and preparing matches (src/service/prepared.ts) use the
// machine's other cores while the store's thread writes. Each worker reads the whole file and
// parses every other chunk of it (one chunk in `readers`); the writer puts their batches back in
// file order. It acknowledges each batch; at most a few are in flight from a worker, so a slow
// writer holds the readers back instead of filling memory.
//
// A match is refused when it would bring its title more than MAX_STAT_NAMES stat names, counted
// through the file in order, as importLines counts them. A worker knows the names its own lines
// brought and, once the writer has written each chunk, the names the whole file brought up to it.
// A match whose names it all knows is taken at once; one with a name it does not know waits until
// the writer has written every chunk before its own, and is then judged exactly. In an ordinary
// file the names are all met in its first chunks, so the workers wait only there.
import { parentPort, workerData } from 'node:worker_threads';

import { StatNames, parseDatasetLine, type PlayerRecord, type RefusedLine } from './dataset.js';
import { fileLineChunks, longLineReason, type FileSnapshot } from './file-lines.js';
import { packTexts, prepareMatch, textDigest, type PreparedMatch } from './prepared.js';
import { TotalsDeltas, exportBuffers, type DeltasExport } from './totals.js';

export interface ParseWorkerData {
  /** The file as the import opened it: its descriptor is the importing process's, read by every worker alike. */
  snapshot: FileSnapshot;
  /** Records a batch carries at most. */
  batchSize: number;
  /** Players whose totals the worker holds before handing them over. */
  flushPlayers: number;
  /** Bytes read at a time. */
  chunkBytes: number;
  /** This worker's number among `readers`: it parses the chunks whose number divided by `readers` leaves it. */
  reader: number;
  readers: number;
}

/**
 * What a worker posts: for each of its chunks, in order, one or more batches, the last marked `end`
 * and carrying the totals it hands over after them, if any; after its last chunk, `read` (what it
 * read in all), then `done` with the totals it still holds, which take it a while to put in order
 * (the writer builds its indexes meanwhile). Lines are numbered through the whole file (the other
 * workers' chunks are counted, not parsed).
 */
export type ParseMessage =
  | {
      kind: 'batch';
      chunk: number;
      end: boolean;
      /** Lines read up to this batch's end. */
      lines: number;
      bytes: number;
      players: PlayerRecord[];
      matches: PreparedMatch[];
      refused: RefusedLine[];
      /** Stat names the batch's matches brought to their titles, none of them brought by lines before. */
      names: [title: string, names: string[]][];
      totals?: DeltasExport;
    }
  | { kind: 'read'; chunks: number; lines: number; bytes: number }
  | { kind: 'done'; totals: DeltasExport }
  | { kind: 'error'; message: string };

/**
 * What the writer tells a worker: a batch of its was written (with the buffer its texts were packed
 * in, given back to pack another batch in: packTexts), or the stat names the chunk `through`
 * brought (sent once every chunk up to it is written, to every worker).
 */
export type WriterMessage = { kind: 'ack'; spare?: ArrayBuffer } | { kind: 'names'; through: number; names: [title: string, names: string[]][] };

/** Batches not yet acknowledged by the writer, at most. */
const IN_FLIGHT = 4;

export async function runParseWorker(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('parse-worker runs in a worker thread');
  const { snapshot, batchSize, flushPlayers, chunkBytes, reader, readers } = workerData as ParseWorkerData;
  const post = (m: ParseMessage, transfer: ArrayBuffer[] = []) => port.postMessage(m, transfer);
  let inFlight = 0;
  let resume: (() => void) | undefined;
  /** Buffers the writer gave back, to pack batches in again. */
  const spares: ArrayBuffer[] = [];
  const statNames = new StatNames();
  /** The chunk up to which the writer told this worker every stat name taken. */
  let through = -1;
  let learnt: (() => void) | undefined;
  port.on('message', (m: WriterMessage) => {
    if (m.kind === 'ack') {
      if (m.spare && spares.length < IN_FLIGHT) spares.push(m.spare);
      inFlight--;
      resume?.();
      resume = undefined;
      return;
    }
    for (const [title, names] of m.names) statNames.add(title, names);
    through = m.through;
    learnt?.();
    learnt = undefined;
  });
  try {
    const deltas = new TotalsDeltas();
    let n = 0;
    let chunks = 0;
    let bytes = 0;
    let players: PlayerRecord[] = [];
    let matches: PreparedMatch[] = [];
    let refused: RefusedLine[] = [];
    let names: [title: string, names: string[]][] = [];
    const flush = async (chunk: number, end: boolean) => {
      // Totals go after the batches whose rows they hold: the writer corrects them per batch.
      const totals = end && deltas.size >= flushPlayers ? deltas.take() : undefined;
      const packed = packTexts(matches, spares.pop());
      const transfer = [packed, ...(totals ? exportBuffers(totals) : [])];
      post({ kind: 'batch', chunk, end, lines: n, bytes, players, matches, refused, names, ...(totals ? { totals } : {}) }, transfer);
      players = [];
      matches = [];
      refused = [];
      names = [];
      inFlight++;
      while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (resume = r));
    };
    for await (const chunk of fileLineChunks(snapshot, chunkBytes, (index) => index % readers === reader)) {
      bytes = chunk.bytesRead;
      chunks = chunk.index + 1;
      if (chunk.index % readers !== reader) {
        n += chunk.count;
        continue;
      }
      for (const raw of chunk.lines) {
        n++;
        if (typeof raw !== 'string') refused.push({ line: n, reason: longLineReason(raw) });
        else {
          // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
          const text = n === 1 && raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
          if (text.trim().length === 0) continue;
          const parsed = parseDatasetLine(text);
          if ('reason' in parsed) refused.push({ line: n, reason: parsed.reason });
          else if (parsed.record.type === 'player') players.push(parsed.record);
          else {
            const match = parsed.record;
            let reason: string | undefined;
            if (!statNames.knows(match)) {
              while (through < chunk.index - 1) await new Promise<void>((r) => (learnt = r));
              const took = statNames.take(match);
              if ('reason' in took) reason = took.reason;
              else if (took.added.length > 0) names.push([match.title, took.added]);
            }
            if (reason !== undefined) refused.push({ line: n, reason });
            else matches.push(prepareMatch(match, textDigest(text), deltas));
          }
        }
        if (players.length + matches.length + refused.length >= batchSize) await flush(chunk.index, false);
      }
      await flush(chunk.index, true);
    }
    post({ kind: 'read', chunks, lines: n, bytes });
    const totals = deltas.take();
    post({ kind: 'done', totals }, exportBuffers(totals));
  } catch (e) {
    post({ kind: 'error', message: (e as Error).message });
  } finally {
    // Nothing more to wait for: the thread may end.
    port.unref();
  }
}
