// How an import offers a store its totals (offerTotals, src/service/import.ts): parts of the players
// totalled by its workers and by the store's thread, each part handed to the store once, as soon as
// it is written. The workers here are stand-ins, told by the test when to write and when to end.
// And how the files of the import's own (its stages) are written.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';

import { takeNext } from '../../src/service/file-lines.js';
import { Stage, dropMatchLines, partsOf } from '../../src/service/import-stage.js';
import type { ImportTask } from '../../src/service/import-worker.js';
import { offerTotals } from '../../src/service/import.js';
import type { RankValues } from '../../src/service/ranks.js';
import type { TotalsOffer } from '../../src/service/store-api.js';

/** A worker that takes a part as soon as it starts, then tells it written and ends when the test says. */
function standIn() {
  let onStep: (n: number) => void = () => undefined;
  let end: (values: RankValues) => void = () => undefined;
  let fail: (e: Error) => void = () => undefined;
  let part = -1;
  const threads = {
    run: <T>(tasks: ImportTask[], step: (n: number) => void): Promise<T>[] => {
      onStep = step;
      return tasks.map((task) => {
        if (task.kind === 'totals') part = takeNext(task.parts);
        return new Promise<T>((resolve, reject) => {
          end = (values) => resolve(values as T);
          fail = reject;
        });
      });
    },
  };
  return { threads, part: () => part, write: () => onStep(part), end: () => end(new Map()), fail: (e: Error) => fail(e) };
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The totals of two empty stages offered, started with one stand-in worker, and the number of parts. */
function started() {
  const dir = mkdtempSync(join(tmpdir(), 'import-totals-'));
  dirs.push(dir);
  const files = [0, 1].map((i) => join(dir, `stage-${i}.sqlite`));
  for (const file of files) new Stage(file, files.length).close();
  const outs = Array.from({ length: partsOf(files.length) }, (_, i) => join(dir, `totals-${i}.sqlite`));
  const worker = standIn();
  const offer = offerTotals(worker.threads, 1, files, outs);
  offer.start();
  return { offer, worker, parts: outs.length };
}

/** Asks for the parts this thread totals itself (all but the worker's), as the store would. */
async function allButTheWorkers(offer: TotalsOffer, parts: number): Promise<number[]> {
  const given: number[] = [];
  for (let i = 1; i < parts; i++) given.push(...(await offer.more()));
  return given;
}

describe("an import's totals offered to the store", () => {
  it("gives each part once: this thread's as it totals them, then a worker's as soon as the worker tells it", async () => {
    const { offer, worker, parts } = started();
    expect(worker.part()).toBe(0);
    // Nothing written yet: this thread totals the parts the worker has not taken, one at a time.
    expect(await allButTheWorkers(offer, parts)).toEqual([1, 2, 3]);
    // None left to take: it waits for the worker's.
    const waiting = offer.more();
    let settled = false;
    void waiting.then(() => (settled = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(settled).toBe(false);
    worker.write();
    expect(await waiting).toEqual([0]);
    worker.end();
    expect(await offer.more()).toEqual([]);
    expect(await offer.values()).toEqual(new Map());
  });

  it("fails with the worker's reason when a worker fails while this thread waits for its part", async () => {
    const { offer, worker, parts } = started();
    await allButTheWorkers(offer, parts);
    const waiting = offer.more();
    worker.fail(new Error('disk full'));
    await expect(waiting).rejects.toThrow('disk full');
  });

  it('fails, rather than waits for ever, when a worker ends without telling a part it took', async () => {
    const { offer, worker, parts } = started();
    await allButTheWorkers(offer, parts);
    worker.end();
    await expect(offer.more()).rejects.toThrow('a part taken was not written');
  });

  it('leaves no failure unhandled when the store fails before it asks for more', async () => {
    const { offer, worker } = started();
    // The store's transaction failed and never asks: the worker's failure must not surface as an unhandled rejection.
    worker.fail(new Error('stopped'));
    await new Promise((resolve) => setImmediate(resolve));
    await expect(offer.values()).rejects.toThrow('stopped');
  });
});

describe("an import's stages", () => {
  const line = (id: string) => JSON.stringify({ type: 'player', title: 'title_a', platform: 'pc_store_a', id, handle: id });

  it('are written without a rollback journal: each is thrown away after the import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-stages-'));
    dirs.push(dir);
    const file = join(dir, 'stage-0.sqlite');
    const stage = new Stage(file, 1);
    stage.add(0, line('a-1'));
    // Inside the chunk's transaction, where a journal would be.
    expect(existsSync(`${file}-journal`)).toBe(false);
    stage.commit();
    stage.add(1, line('a-2'));
    expect(existsSync(`${file}-journal`)).toBe(false);
    expect(stage.close().players).toBe(2);

    // Lines taken out of a stage later (a match given again), the same.
    const db = new Database(':memory:');
    db.prepare('ATTACH ? AS stage0').run(file);
    dropMatchLines(db, 1, [0]);
    expect(db.pragma('stage0.journal_mode', { simple: true })).toBe('off');
    db.close();
  });
});
