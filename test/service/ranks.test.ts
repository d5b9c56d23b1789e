import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

import { describe, expect, it } from 'vitest';

import { buildRankChunks, mergeSorted, placeInChunk, sortedLists, sortedValues } from '../../src/service/ranks.js';

/** buildRankChunks(sortedLists(byKey)) in a worker thread, given `ms` to answer: a loop that never ends there fails the test instead of hanging it. */
async function buildInWorker(byKey: Map<string, number[]>, ms: number): Promise<ReturnType<typeof buildRankChunks>> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import('tsx/esm/api')
      .then(({ tsImport }) => tsImport(workerData.ranks, workerData.ranks))
      .then((ranks) => parentPort.postMessage(ranks.buildRankChunks(ranks.sortedLists(workerData.byKey))));`;
  const workerData = {
    ranks: pathToFileURL(fileURLToPath(new URL('../../src/service/ranks.ts', import.meta.url))).href,
    byKey,
  };
  const worker = new Worker(code, { eval: true, workerData });
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`buildRankChunks did not return within ${ms} ms`)), ms);
      worker.once('message', (chunks: ReturnType<typeof buildRankChunks>) => {
        clearTimeout(timer);
        resolve(chunks);
      });
      worker.once('error', reject);
    });
  } finally {
    await worker.terminate();
  }
}

describe('rank chunks', () => {
  it('leave out NaN and the infinities instead of looping for ever on them', async () => {
    const byKey = new Map([
      ['kd', [2, Number.NaN, 1, Number.POSITIVE_INFINITY, 2, Number.NEGATIVE_INFINITY, 0.5]],
      ['nothing', [Number.NaN]],
    ]);
    const chunks = await buildInWorker(byKey, 20_000);
    expect(chunks.map(({ key, lo, below, population }) => ({ key, lo, below, population }))).toEqual([{ key: 'kd', lo: 0.5, below: 0, population: 4 }]);
    const [kd] = chunks;
    if (!kd) throw new Error('no chunk');
    const data = { ...kd, data: Buffer.from(kd.data) };
    expect(placeInChunk(data, 2)).toEqual({ below: 2, atOrBelow: 4, population: 4 });
    // Here too, once the worker has shown it returns.
    expect(buildRankChunks(sortedLists(byKey))).toHaveLength(1);
  });

  it('merge sorted parts of the values into the list one sort of them all gives', () => {
    const values = Array.from({ length: 500 }, (_, i) => ((i * 7919) % 101) / 4);
    const [a, b] = [sortedValues(values.slice(0, 180)), sortedValues(values.slice(180))];
    expect([...mergeSorted(a, b)]).toEqual([...sortedValues(values)]);
    expect([...mergeSorted(new Float64Array(), b)]).toEqual([...b]);
  });
});
