// Starts src/service/parse-worker.ts in a worker thread: a worker does not inherit the process's
// TypeScript loader on Node 20, so this plain module loads it through tsx's API, or, built
// (`npm run build`, dist/), the compiled module beside it.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

const compiled = new URL('./parse-worker.js', import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- tsImport is typed any; this is the module it loads
const parser = /** @type {typeof import('./parse-worker.ts')} */ (
  existsSync(compiled) ? await import(compiled.href) : await (await import('tsx/esm/api')).tsImport('./parse-worker.ts', import.meta.url)
);
await parser.runParseWorker();
