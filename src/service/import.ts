// Importing a dataset: JSON Lines read as a stream, each line checked on its own. A bad line is
// reported with its number and reason and the rest goes on; the summary counts both.
import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';

import { parseDatasetLine, type DatasetRecord, type MatchRecord, type PlayerRecord, type RefusedLine } from './dataset.js';
import type { Store } from './store-api.js';
import { textDigest } from './store.js';

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
  const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  return importLines(store, lines, {
    ...options,
    onProgress: (n) => {
      options.onProgress?.(n);
      options.onBytes?.(stream.bytesRead, total);
    },
  });
}
