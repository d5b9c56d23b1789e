// A short-lived process that fills a store file: `node --import tsx src/service/import-process.ts
// <db file> [dataset.jsonl]`. The embedded service runs its import here so that the import's
// memory (parsing, validation, V8's grown heap) goes back to the system when this process ends;
// the bot keeps only the SQLite file. Prints the import summary as JSON; refused lines on stderr.
import { loadStore } from './embedded.js';

const [db, data] = process.argv.slice(2);
if (!db) {
  process.stderr.write('usage: import-process.ts <db file> [dataset.jsonl]\n');
  process.exit(2);
}
try {
  const { store, summary } = await loadStore(
    { db, data },
    { onRefused: (r) => process.stderr.write(`${JSON.stringify({ line: r.line, reason: r.reason })}\n`) },
  );
  await store.close();
  process.stdout.write(JSON.stringify(summary));
} catch (e) {
  process.stderr.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
  process.exit(1);
}
