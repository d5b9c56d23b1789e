// A card-drawing worker thread: registers the shipped fonts once, then lays out each card model it
// is sent (layout.ts) and draws it into a PNG, one at a time. Plain JavaScript so that it starts the
// same under Node, tsx and vitest (a worker does not inherit the TypeScript loader on Node 20): it
// loads the compiled layout beside it when built (`npm run build`, dist/), else the TypeScript one
// through tsx's API. The pool in renderer.ts owns deadlines, queueing and restarts.
import { existsSync, readFileSync } from 'node:fs';
import { URL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

import { Renderer } from '@takumi-rs/core';

const compiled = new URL('./layout.js', import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- tsImport is typed any; this is the module it loads
const { cardLayout } = /** @type {typeof import('./layout.ts')} */ (
  existsSync(compiled) ? await import(compiled.href) : await (await import('tsx/esm/api')).tsImport('./layout.ts', import.meta.url)
);

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
