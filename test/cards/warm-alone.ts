// Warms a card renderer in a process with nothing else to do, then says how it went: a warm-up
// that let the process end before its workers had started printed nothing (exit 13).
import { WORKER_START_MS, createCardRenderer } from '../../src/cards/index.js';

// As long as a worker may take to start: a busy machine makes no warm-up late.
const renderer = createCardRenderer({ deadlineMs: WORKER_START_MS });
await renderer.warm();
process.stdout.write(JSON.stringify({ rendered: renderer.stats().rendered }));
await renderer.close();
