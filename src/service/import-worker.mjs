// Starts src/service/import-worker.ts in a worker thread: a plain module that loads it, compiled or
// through tsx's API, with importBeside (src/module-beside.mjs says why).
import { importBeside } from '../module-beside.mjs';

const worker = /** @type {typeof import('./import-worker.ts')} */ (await importBeside(import.meta.url, 'import-worker'));
worker.runImportWorker();
