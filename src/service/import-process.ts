// A short-lived process that fills a store file: `node --import tsx src/service/import-process.ts
// <db file> [dataset.jsonl]`. The embedded service runs its import here so that the import's
// memory and CPU (parsing, validation, V8's grown heap) stay out of the bot's process and go back
// to the system when this one ends; the bot keeps only the SQLite file.
//
// The file keeps a fingerprint of the dataset it was filled from: when the dataset has not changed,
// nothing is imported (prints `null`). Otherwise the dataset is imported into a new file beside it,
// which then takes the old one's place, so that the store holds exactly the dataset (a record left
// out of the file is gone) and a failed import leaves the old store as it was. Prints the import
// summary as JSON; refused lines on stderr.
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, renameSync, rmSync } from 'node:fs';
import { setPriority } from 'node:os';

import { importNice } from '../config.js';
import { demoLines } from './demo.js';
import { CHANGED_WHILE_READ } from './file-lines.js';
import { retryWhileChanging, showingRefusals } from './import.js';
import { loadStore } from './open-store.js';
import { STORE_LAYOUT, StatsStore } from './store.js';

async function fingerprint(data: string | undefined): Promise<string> {
  const hash = createHash('sha256').update(`layout ${STORE_LAYOUT}\n`);
  if (!data) for (const line of demoLines()) hash.update(line);
  else for await (const chunk of createReadStream(data)) hash.update(chunk as Buffer);
  return `${data ? 'file' : 'demo'}:${hash.digest('hex')}`;
}

const removeFiles = (path: string) => {
  for (const suffix of ['', '-wal', '-shm']) rmSync(path + suffix, { force: true });
};

// The import gives way to the process it serves (the bot answering its users) when both want the
// CPU: threads started from here on (the import's workers, SQLite's sorters) inherit this priority.
try {
  setPriority(importNice());
} catch {
  // Not allowed here: the import runs at the usual priority.
}

const [db, data] = process.argv.slice(2);
if (!db) {
  process.stderr.write('usage: import-process.ts <db file> [dataset.jsonl]\n');
  process.exit(2);
}
const fresh = `${db}.${process.pid}.importing`;
try {
  const mark = await fingerprint(data);
  if (existsSync(db)) {
    // A file of an earlier layout (or one whose first import stopped half-way) is refused: imported again.
    const kept = await (async () => {
      try {
        const existing = new StatsStore(db);
        const value = await existing.getMeta('dataset');
        await existing.close();
        return value;
      } catch {
        return undefined;
      }
    })();
    if (kept === mark) {
      process.stdout.write('null');
      process.exit(0);
    }
  }
  // A dataset written while it is read is imported again, into a new file. Its fingerprint is taken
  // before each attempt: one taken before an import that then read a newer version only makes the
  // next start import it again, where one taken after it could mark a version never imported.
  let latest = mark;
  let attempts = 0;
  const { store, summary } = await retryWhileChanging(
    async () => {
      if (attempts++ > 0) latest = await fingerprint(data);
      removeFiles(fresh);
      const onRefused = showingRefusals(
        (r) => process.stderr.write(`${JSON.stringify({ line: r.line, reason: r.reason })}\n`),
        () => process.stderr.write(`${JSON.stringify({ moreRefused: true })}\n`),
      );
      return loadStore({ db: fresh, data }, { onRefused });
    },
    { onRetry: (attempt, waitMs) => process.stderr.write(`${JSON.stringify({ retry: attempt, waitMs, reason: CHANGED_WHILE_READ })}\n`) },
  );
  await store.setMeta('dataset', latest);
  await store.close();
  removeFiles(db);
  renameSync(fresh, db);
  process.stdout.write(JSON.stringify(summary));
} catch (e) {
  removeFiles(fresh);
  process.stderr.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
}
