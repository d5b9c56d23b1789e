// Starts the embedded service (src/service/embedded.ts) in a worker thread: a worker does not
// inherit the process's TypeScript loader on Node 20, so this plain module loads it through tsx's
// API, or, built (`npm run build`, dist/), the compiled module beside it.
import { importBeside } from '../module-beside.mjs';

const embedded = /** @type {typeof import('./embedded.ts')} */ (await importBeside(import.meta.url, 'embedded'));
await embedded.runEmbeddedWorker();
