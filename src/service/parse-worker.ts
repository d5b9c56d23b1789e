// The parsing half of a file import, run in worker threads (started through parse-worker.mjs) so
// that reading, parsing, validating and preparing matches (src/service/prepared.ts) use the
// machine's other cores while the store's thread writes. Each worker reads and parses every other
// chunk of the file (one chunk in `readers`), and nothing of the others' but the start of the line
// that runs into a chunk of its own; the writer puts their batches back in file order and numbers
// their lines. A match line in plain form is read from its bytes (src/service/match-line.ts); any
// other line is decoded and parsed. The writer acknowledges each batch; at most a few are in flight
// from a worker, so a slow writer holds the readers back instead of filling memory.
//
// A match is refused when it would bring its title more than MAX_STAT_NAMES stat names, counted
// through the file in order, as importLines counts them. A worker knows the names its own lines
// brought and, once the writer has written each chunk, the names the whole file brought up to it.
// A match whose names it all knows is taken at once; one with a name it does not know waits until
// the writer has written every chunk before its own, and is then judged exactly. In an ordinary
// file the names are all met in its first chunks, so the workers wait only there.
import { parentPort, workerData } from 'node:worker_threads';

import { StatNames, parseDatasetLine, type PlayerRecord, type RefusedLine, type StatsOfMatch } from './dataset.js';
import { FileChangedError, fileLineChunks, longLineReason, type FileSnapshot } from './file-lines.js';
import { JsonbWriter } from './jsonb.js';
import { MatchLineReader } from './match-line.js';
import { BatchTexts, prepareMatch, textDigest, type PreparedMatch } from './prepared.js';
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
 * and carrying the totals it hands over after them, if any; after its last chunk, `read`, then
 * `done` with the totals it still holds, which take it a while to put in order (the writer builds
 * its indexes meanwhile). Lines are numbered within their chunk, from 1: the writer, which knows how
 * many lines the chunks before had, numbers them through the file.
 */
export type ParseMessage =
  | {
      kind: 'batch';
      chunk: number;
      end: boolean;
      /** Lines of the chunk read up to this batch's end. */
      lines: number;
      /** Bytes of the file up to the chunk's end. */
      bytes: number;
      players: PlayerRecord[];
      matches: PreparedMatch[];
      /** Numbered within the chunk. */
      refused: RefusedLine[];
      /** Stat names the batch's matches brought to their titles, none of them brought by lines before. */
      names: [title: string, names: string[]][];
      totals?: DeltasExport;
    }
  | { kind: 'read' }
  | { kind: 'done'; totals: DeltasExport }
  /** `changed`: the file is not what it was when the import began (FileChangedError). */
  | { kind: 'error'; message: string; changed: boolean };

/**
 * What the writer tells a worker: a batch of its was written (with the buffer its texts were packed
 * in, given back to pack another batch in: BatchTexts), or the stat names the chunk `through`
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
    const texts = new BatchTexts(spares);
    const lines = new MatchLineReader();
    const jsonb = new JsonbWriter();
    /** Lines of the chunk read so far. */
    let n = 0;
    let bytes = 0;
    let players: PlayerRecord[] = [];
    let matches: PreparedMatch[] = [];
    let refused: RefusedLine[] = [];
    let names: [title: string, names: string[]][] = [];
    const flush = async (chunk: number, end: boolean) => {
      // Totals go after the batches whose rows they hold: the writer corrects them per batch.
      const totals = end && deltas.size >= flushPlayers ? deltas.take() : undefined;
      const packed = texts.take();
      const transfer = [...(packed ? [packed] : []), ...(totals ? exportBuffers(totals) : [])];
      post({ kind: 'batch', chunk, end, lines: n, bytes, players, matches, refused, names, ...(totals ? { totals } : {}) }, transfer);
      players = [];
      matches = [];
      refused = [];
      names = [];
      inFlight++;
      while (inFlight >= IN_FLIGHT) await new Promise<void>((r) => (resume = r));
    };
    /** Room for a match's texts in the batch: one that has not that much left is sent first. */
    const reserve = async (room: number, chunk: number) => {
      if (texts.reserve(room)) return;
      await flush(chunk, false);
      texts.reserve(room);
    };
    /** Takes the stat names of a match with one this worker does not know, once it knows the names the chunks before brought; why it is refused, if it is. */
    const takeNames = async (chunk: number, m: StatsOfMatch): Promise<string | undefined> => {
      while (through < chunk - 1) await new Promise<void>((r) => (learnt = r));
      const took = statNames.take(m);
      if ('reason' in took) return took.reason;
      if (took.added.length > 0) names.push([m.title, took.added]);
      return undefined;
    };
    for await (const chunk of fileLineChunks(snapshot, chunkBytes, (index) => index % readers === reader, 'bytes')) {
      bytes = chunk.bytesRead;
      n = 0;
      for (const raw of chunk.lines) {
        n++;
        const lineOne = chunk.first && n === 1;
        if (!Buffer.isBuffer(raw)) refused.push({ line: n, reason: longLineReason(raw) });
        else if (!lineOne && lines.read(raw)) {
          const reason = statNames.knowsNames(lines.title, lines.statNames, lines.statCount) ? undefined : await takeNames(chunk.index, lines.statsRecord());
          if (reason !== undefined) refused.push({ line: n, reason });
          else {
            await reserve(MatchLineReader.textRoom(raw.length), chunk.index);
            const implicit: string[] = [];
            lines.addTotals(deltas, implicit);
            const keysAt = texts.at;
            texts.at = lines.writeKeys(texts.out, keysAt);
            const keys = texts.view(keysAt);
            const rowsAt = texts.at;
            texts.at = lines.writeRows(texts.out, rowsAt);
            const { title, id, platform, startedAt, durationSeconds, map, mode, playlist, queue, season } = lines;
            matches.push([
              title,
              id,
              platform,
              startedAt,
              durationSeconds,
              map,
              mode,
              playlist,
              queue,
              season,
              keys,
              textDigest(raw),
              texts.view(rowsAt),
              implicit,
            ]);
          }
        } else {
          // Editors on some systems start a UTF-8 file with a byte-order mark: it is not part of line 1.
          const decoded = raw.toString('utf8');
          const text = lineOne && decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
          if (text.trim().length === 0) continue;
          const parsed = parseDatasetLine(text);
          if ('reason' in parsed) refused.push({ line: n, reason: parsed.reason });
          else if (parsed.record.type === 'player') players.push(parsed.record);
          else {
            const match = parsed.record;
            const reason = statNames.knows(match) ? undefined : await takeNames(chunk.index, match);
            if (reason !== undefined) refused.push({ line: n, reason });
            else {
              const prepared = prepareMatch(match, textDigest(text), deltas, (rows) => jsonb.write(rows));
              const [keys, rows] = [prepared[10] as string, prepared[12] as Uint8Array];
              await reserve(Buffer.byteLength(keys) + rows.length, chunk.index);
              prepared[10] = texts.write(keys);
              prepared[12] = texts.copy(rows);
              matches.push(prepared);
            }
          }
        }
        if (players.length + matches.length + refused.length >= batchSize) await flush(chunk.index, false);
      }
      await flush(chunk.index, true);
    }
    post({ kind: 'read' });
    const totals = deltas.take();
    post({ kind: 'done', totals }, exportBuffers(totals));
  } catch (e) {
    post({ kind: 'error', message: (e as Error).message, changed: e instanceof FileChangedError });
  } finally {
    // Nothing more to wait for: the thread may end.
    port.unref();
  }
}
