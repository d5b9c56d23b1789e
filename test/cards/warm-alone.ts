// Warms a card renderer in a process with nothing else to do, then says how it went: a warm-up
// that let the process end before its workers had started printed nothing (exit 13).
import { createCardRenderer } from '../../src/cards/index.js';

const renderer = createCardRenderer();
await renderer.warm();
process.stdout.write(JSON.stringify({ rendered: renderer.stats().rendered }));
await renderer.close();
