// Starts src/service/parse-worker.ts in a worker thread: a worker does not inherit the process's
// TypeScript loader on Node 20, so this plain module loads it through tsx's API.
import { tsImport } from 'tsx/esm/api';

// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- tsImport is typed any; this is the module it loads
const parser = /** @type {typeof import('./parse-worker.ts')} */ (await tsImport('./parse-worker.ts', import.meta.url));
await parser.runParseWorker();
