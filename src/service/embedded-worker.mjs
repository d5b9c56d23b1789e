// Starts the embedded service (src/service/embedded.ts) in a worker thread: a plain module that
// loads it, compiled or through tsx's API, with importBeside (src/module-beside.mjs says why).
import { importBeside } from '../module-beside.mjs';

const embedded = /** @type {typeof import('./embedded.ts')} */ (await importBeside(import.meta.url, 'embedded'));
await embedded.runEmbeddedWorker();
