// A card-drawing worker thread: registers the shipped fonts once, then draws each node tree it is
// sent into a PNG, one at a time. Plain JavaScript so that it starts the same under Node, tsx and
// vitest (a worker does not inherit the TypeScript loader on Node 20). The pool in renderer.ts
// owns deadlines, queueing and restarts.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

import { Renderer } from '@takumi-rs/core';

const renderer = new Renderer();
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- workerData is what renderer.ts sends: the family and the font files
const { family, fonts } = /** @type {{ family: string, fonts: { path: string, weight: number, unicodeRange: [number, number][] }[] }} */ (workerData);
for (const f of fonts) await renderer.registerFont({ name: family, data: readFileSync(f.path), weight: f.weight, unicodeRange: f.unicodeRange });

parentPort?.on('message', (/** @type {{ id: number, node: import('@takumi-rs/core').Node, width: number, height: number }} */ job) => {
  renderer.render(job.node, { width: job.width, height: job.height, format: 'png' }).then(
    (png) => parentPort?.postMessage({ id: job.id, png }),
    (/** @type {unknown} */ e) => parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
parentPort?.postMessage({ ready: true });
