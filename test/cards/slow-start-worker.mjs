// The real card worker, slow to start (as three bot processes starting at once on two cores made
// it): it loads only after a while, and then draws as usual.
import { setTimeout as sleep } from 'node:timers/promises';

await sleep(1_000);
await import('../../src/cards/render-worker.mjs');
