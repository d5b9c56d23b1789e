// A card-drawing worker thread: registers the shipped fonts once, then lays out each card model it
// is sent (layout.ts) and draws it into a PNG, one at a time. Plain JavaScript so that it starts the
// same under Node, tsx and vitest (a worker does not inherit the TypeScript loader on Node 20); the
// layout comes through importBeside. The pool in renderer.ts owns deadlines, queueing and restarts.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

import { Renderer } from '@takumi-rs/core';

import { importBeside } from '../module-beside.mjs';

const { cardLayout } = /** @type {typeof import('./layout.ts')} */ (await importBeside(import.meta.url, 'layout'));

const renderer = new Renderer();
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- workerData is what renderer.ts sends: the family and the font files
const { family, fonts } = /** @type {{ family: string, fonts: { path: string, weight: number, unicodeRange: [number, number][] }[] }} */ (workerData);
for (const f of fonts) await renderer.registerFont({ name: family, data: readFileSync(f.path), weight: f.weight, unicodeRange: f.unicodeRange });

parentPort?.on('message', (/** @type {{ id: number, model: import('./model.ts').CardModel }} */ job) => {
  let layout;
  try {
    layout = cardLayout(job.model);
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    return;
  }
  renderer.render(layout.node, { width: layout.width, height: layout.height, format: 'png' }).then(
    (png) => parentPort?.postMessage({ id: job.id, png }),
    (/** @type {unknown} */ e) => parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
parentPort?.postMessage({ ready: true });
