// Starts src/service/import-worker.ts in a worker thread: a worker does not inherit the process's
// TypeScript loader on Node 20, so this plain module loads it through tsx's API, or, built
// (`npm run build`, dist/), the compiled module beside it.
import { importBeside } from '../module-beside.mjs';

const worker = /** @type {typeof import('./import-worker.ts')} */ (await importBeside(import.meta.url, 'import-worker'));
worker.runImportWorker();
