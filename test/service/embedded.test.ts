// The bot's embedded service keeps its store in a file across restarts and imports again only when
// the dataset changed; then the store holds exactly the new dataset.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';

import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';

import { heavyMatches } from '../../bench/heavy-player.js';
import { scaleLines } from '../../bench/scale-data.js';

import { errorReply } from '../../src/embeds/errors.js';
import { errorFromResponse, isRetryable } from '../../src/lookup/errors.js';
import { LOADING_MESSAGE, LOOKUP_THREAD_NICE } from '../../src/service/embedded.js';
import { openEmbeddedService, startEmbeddedService } from '../../src/service/embedded-thread.js';
import { StatsStore } from '../../src/service/store.js';
import { memoryLogger } from '../helpers/lookup.js';

const dir = mkdtempSync(join(tmpdir(), 'stats-embedded-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function profileStatus(url: string, path: string): Promise<number> {
  return (await fetch(url + path)).status;
}

describe('the embedded service with a kept store', () => {
  it('imports once, serves the kept file after a restart, and imports again when the dataset changes', async () => {
    const data = join(dir, 'data.jsonl');
    const db = join(dir, 'stats.sqlite');
    const lines = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    writeFileSync(data, lines.join('\n'));
    const ash = '/v2/title_a/standard/profile/pc_store_a/ashplays';

    const first = await startEmbeddedService({ data, db });
    expect(first.summary?.taken).toBe(lines.length);
    expect(await profileStatus(first.url, ash)).toBe(200);
    await first.close();

    const second = await startEmbeddedService({ data, db });
    expect(second.summary).toBeNull();
    expect(await profileStatus(second.url, ash)).toBe(200);
    await second.close();

    // Without ashplays' player record and matches, the store no longer knows them.
    const without = lines.filter((l) => !l.includes('76561198000000042'));
    expect(without.length).toBeLessThan(lines.length);
    writeFileSync(data, without.join('\n'));
    const third = await startEmbeddedService({ data, db });
    expect(third.summary?.taken).toBe(without.length);
    expect(await profileStatus(third.url, ash)).toBe(404);
    await third.close();
    const kept = new StatsStore(db);
    expect((await kept.counts()).matches).toBeGreaterThan(0);
    await kept.close();
  });

  it('makes the folder of its store when it does not exist yet (STATS_STORE=.data/stats.sqlite in a fresh clone)', async () => {
    const db = join(dir, 'fresh-clone', '.data', 'stats.sqlite');
    const service = await startEmbeddedService({ data: 'examples/small-dataset.jsonl', db });
    try {
      expect(service.summary?.taken).toBeGreaterThan(0);
      expect(await profileStatus(service.url, '/v2/title_a/standard/profile/pc_store_a/ashplays')).toBe(200);
    } finally {
      await service.close();
    }
    expect(readdirSync(join(dir, 'fresh-clone', '.data'))).toContain('stats.sqlite');
  });

  it('tells the operator the first 20 refused lines one by one and counts the rest', async () => {
    const data = join(dir, 'refusals.jsonl');
    const lines = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    writeFileSync(data, [...lines, ...Array.from({ length: 500 }, (_, i) => `{"type":"nothing","n":${i}}`)].join('\n'));
    const { logger, logs } = memoryLogger();
    const service = await startEmbeddedService({ data, db: join(dir, 'refusals.sqlite') }, logger);
    try {
      expect(service.summary).toMatchObject({ taken: lines.length, refused: 500 });
      const said = logs()
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { msg: string }).msg);
      expect(said.filter((m) => m === 'dataset line refused')).toHaveLength(20);
      expect(said.filter((m) => m.startsWith('further refused dataset lines are counted'))).toHaveLength(1);
    } finally {
      await service.close();
    }
  });

  it('leaves the kept store as it was when the dataset cannot be read', async () => {
    const db = join(dir, 'kept.sqlite');
    const ok = await startEmbeddedService({ data: 'examples/small-dataset.jsonl', db });
    await ok.close();
    await expect(startEmbeddedService({ data: join(dir, 'missing.jsonl'), db })).rejects.toThrow(/could not be imported/);
    const again = await startEmbeddedService({ data: 'examples/small-dataset.jsonl', db });
    expect(again.summary).toBeNull();
    await again.close();
  });

  it('listens at once: "still loading" until the first import ends, then the new data', async () => {
    const data = join(dir, 'first.jsonl');
    writeFileSync(data, readFileSync('examples/small-dataset.jsonl', 'utf8'));
    const ash = '/v2/title_a/standard/profile/pc_store_a/ashplays';
    const service = await openEmbeddedService({ data, db: join(dir, 'first.sqlite') }, undefined, { holdMs: 0 });
    // The child has not even started its import yet.
    const loading = await fetch(service.url + ash);
    expect(loading.status).toBe(503);
    expect(loading.headers.get('retry-after')).toBe('5');
    const body = await loading.text();
    expect(JSON.parse(body)).toMatchObject({ errors: [{ code: 'ServiceLoading', message: LOADING_MESSAGE }] });
    // What the bot makes of it: no retry (it asks to come back later than a lookup waits), and a clear reply.
    const error = errorFromResponse(503, body, 5_000);
    expect(isRetryable(error)).toBe(false);
    expect(errorReply(error, { title: 'title_a', locale: 'en-US' }).content).toBe('The stats service is still loading its data. Try again in a moment.');
    expect(service.serving()).toBe(false);
    expect((await service.ready)?.taken).toBeGreaterThan(0);
    expect(service.serving()).toBe(true);
    expect(await profileStatus(service.url, ash)).toBe(200);
    await service.close();

    // A request that arrives while the store loads waits for it, up to the hold (LOADING_HOLD_MS by default).
    const held = await openEmbeddedService({ data, db: join(dir, 'held.sqlite') }, undefined, { holdMs: 30_000 });
    expect(held.serving()).toBe(false);
    expect(await profileStatus(held.url, ash)).toBe(200);
    await held.close();
  });

  it('serves the kept store while a changed dataset is imported, and keeps it when the import fails', async () => {
    const data = join(dir, 'kept-while.jsonl');
    const db = join(dir, 'kept-while.sqlite');
    const lines = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    writeFileSync(data, lines.join('\n'));
    await (await startEmbeddedService({ data, db })).close();
    const ash = '/v2/title_a/standard/profile/pc_store_a/ashplays';
    writeFileSync(data, lines.filter((l) => !l.includes('76561198000000042')).join('\n'));
    const service = await openEmbeddedService({ data, db });
    expect(await profileStatus(service.url, ash)).toBe(200);
    expect((await service.ready)?.taken).toBeGreaterThan(0);
    expect(await profileStatus(service.url, ash)).toBe(404);
    await service.close();

    const broken = await openEmbeddedService({ data: join(dir, 'missing.jsonl'), db });
    await expect(broken.ready).rejects.toThrow(/could not be imported/);
    expect(broken.serving()).toBe(true);
    expect(await profileStatus(broken.url, '/v2/title_a/standard/search?platform=pc_store_a&query=a')).toBe(200);
    await broken.close();
  });

  it('imports a dataset again when it was written to while the import read it, and serves the version it read whole', async () => {
    const data = join(dir, 'rewritten.jsonl');
    const db = join(dir, 'rewritten.sqlite');
    const small = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    // Big enough that an import takes a while; the final version without one player of the first.
    const bulk = [...scaleLines(4_000, 21)];
    const first = [...small, ...bulk].join('\n');
    const final = [...small.filter((l) => !l.includes('76561198000000042')), ...bulk].join('\n');
    writeFileSync(data, first);
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const service = await openEmbeddedService({ data, db }, logger);
    // Rewritten in place, again and again, until the import says it starts over; then once, whole.
    let flip = false;
    const deadline = Date.now() + 30_000;
    while (!lines.some((l) => l.includes('importing it again')) && Date.now() < deadline) {
      flip = !flip;
      writeFileSync(data, flip ? final : first);
      await sleep(30);
    }
    writeFileSync(data, final);
    const retried = lines.find((l) => l.includes('importing it again'));
    expect(retried).toContain('changed while it was read');
    expect(retried).toContain('"attempt":1');
    expect((await service.ready)?.taken).toBeGreaterThan(0);
    expect(await profileStatus(service.url, '/v2/title_a/standard/profile/pc_store_a/ashplays')).toBe(404);
    await service.close();
    // Its fingerprint is the final version's: the next start imports nothing.
    const again = await startEmbeddedService({ data, db });
    expect(again.summary).toBeNull();
    await again.close();
  }, 60_000);

  it("answers from a thread of its own: a heavy player's lookups leave the caller's event loop free", async () => {
    const data = join(dir, 'heavy.jsonl');
    const lines = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    for (const m of heavyMatches('title_b', 'heavy_b', 20_000)) lines.push(JSON.stringify(m));
    writeFileSync(data, lines.join('\n'));
    const service = await startEmbeddedService({ data });
    // The first request opens the client's connection pool: not part of what is measured.
    expect(await profileStatus(service.url, '/v2/title_b/standard/profile/pc_store_b/nobody')).toBe(404);
    const heavy = '/v2/title_b/standard/profile/pc_store_b/heavy_b';
    const stalls = monitorEventLoopDelay({ resolution: 1 });
    stalls.enable();
    const started = performance.now();
    const statuses = await Promise.all(
      [`${heavy}/sessions`, heavy].map(async (path) => (await fetch(service.url + path).then(async (r) => (await r.arrayBuffer(), r))).status),
    );
    const busyMs = performance.now() - started;
    stalls.disable();
    await service.close();
    expect(statuses).toEqual([200, 200]);
    // The lookups took long enough to matter (20,000 matches, cold), and this thread's longest stall
    // meanwhile was a small part of that: served on this thread, the stall is nearly the lookups'
    // whole time.
    expect(busyMs).toBeGreaterThan(30);
    expect(stalls.max / 1e6).toBeLessThan(busyMs / 3);
  });

  it.runIf(process.platform === 'linux')("gives way to the thread that started it: its thread runs at a lower priority, the caller's does not", async () => {
    const nice = (tid: string) => {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, 'utf8');
      // Field 19 (nice), the 17th after the parenthesised command name.
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const before = new Set(readdirSync(`/proc/${process.pid}/task`));
    const threads: Worker[] = [];
    const service = await startEmbeddedService({}, undefined, { onThread: (w) => threads.push(w) });
    const started = readdirSync(`/proc/${process.pid}/task`).filter((tid) => !before.has(tid));
    expect(started.map(nice)).toContain(LOOKUP_THREAD_NICE);
    expect(nice(String(process.pid))).toBe(0);
    await service.close();
  });

  it('tells the operator when its thread stops and serves again on the same port', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const threads: Worker[] = [];
    const service = await openEmbeddedService({ data: 'examples/small-dataset.jsonl' }, logger, { onThread: (w) => threads.push(w) });
    await service.ready;
    const ash = '/v2/title_a/standard/profile/pc_store_a/ashplays';
    expect(await profileStatus(service.url, ash)).toBe(200);
    await threads[0]?.terminate();
    expect(service.serving()).toBe(false);
    await expect(fetch(service.url + ash)).rejects.toThrow();
    await expect.poll(() => lines.some((l) => l.includes('is serving again')), { timeout: 20_000 }).toBe(true);
    expect(lines.some((l) => l.includes('the embedded stats service stopped') && l.includes('"restartInMs":1000'))).toBe(true);
    expect(threads).toHaveLength(2);
    // The new thread serves the store file of the first at once: nothing is imported again.
    expect(service.serving()).toBe(true);
    expect(await profileStatus(service.url, ash)).toBe(200);
    await service.close();
  });
});
