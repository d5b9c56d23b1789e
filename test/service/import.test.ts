import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';

import { MAX_STAT_NAMES, parseDatasetLine } from '../../src/service/dataset.js';
import { FileChangedError, MAX_LINE_BYTES } from '../../src/service/file-lines.js';
import { STAGES, importFile, importLines, retryWhileChanging, settleStages } from '../../src/service/import.js';
import { Stage } from '../../src/service/import-stage.js';
import type { Store } from '../../src/service/store-api.js';
import { StatsStore } from '../../src/service/store.js';
import { TEST_STORE, createTestStore } from '../helpers/service.js';
import { smallLines } from '../fixtures/small-dataset.js';
import { scaleLines } from '../../bench/scale-data.js';
import { standing, standingOfCounts } from '../../src/service/aggregate.js';
import { storedValues } from '../../src/service/totals.js';
import { RANK_CHUNK } from '../../src/service/ranks.js';

const snapshot = async (store: Store) => ({
  players: await store.sql('SELECT * FROM players ORDER BY title, platform, id_norm'),
  matches: await store.sql('SELECT * FROM matches ORDER BY title, id'),
  rows: await store.sql('SELECT * FROM match_players ORDER BY title, match_id, platform, player'),
  totals: await store.sql('SELECT * FROM player_totals ORDER BY title, platform, player'),
  ranks: await store.sql('SELECT * FROM rank_chunks ORDER BY title, key, lo'),
  meta: await store.sql("SELECT * FROM meta WHERE key <> 'generation' ORDER BY key"),
});
const stores: Store[] = [];
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});
/** A fresh store of the kind this run tests, closed after the file. */
async function fresh(): Promise<Store> {
  const store = await createTestStore();
  stores.push(store);
  return store;
}

/** A match line of title_a: one player, `p1`, unless told. */
const matchLine = (id: string, patch: Record<string, unknown> = {}, player: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'match',
    title: 'title_a',
    platform: 'pc_store_a',
    id,
    startedAt: '2026-11-20T18:00:00Z',
    durationSeconds: 720,
    ...patch,
    players: [{ id: 'p1', platform: 'pc_store_a', stats: { kills: 3, deaths: 1 }, ...player }],
  });

describe('importing a dataset', () => {
  it('reports each bad line with its number and reason, and imports the rest', async () => {
    const good = smallLines();
    const lines = [
      good[0]!,
      '{not json',
      '',
      JSON.stringify({ type: 'player', title: 'title_z', platform: 'pc_store_a', id: 'x', handle: 'x' }),
      JSON.stringify({ type: 'player', title: 'title_d', platform: 'console_a', id: 'x', handle: 'x' }),
      JSON.stringify({ type: 'match', title: 'title_a', platform: 'pc_store_a', id: 'm', startedAt: 'yesterday', durationSeconds: 1, players: [] }),
      JSON.stringify({
        type: 'match',
        title: 'title_a',
        platform: 'pc_store_a',
        id: 'm',
        startedAt: '2026-01-01T00:00:00Z',
        durationSeconds: 1,
        players: [{ id: 'a', platform: 'pc_store_a', stats: { kills: 'many' } }],
      }),
      JSON.stringify({ type: 'team', title: 'title_a' }),
      JSON.stringify({ type: 'player', title: 'title_a', platform: 'console_a', id: 'bad/slash', handle: 'x' }),
      ...good.slice(1),
    ];
    const refused: { line: number; reason: string }[] = [];
    const store = await fresh();
    const summary = await importLines(store, lines, { onRefused: (r) => refused.push(r) });
    expect(summary).toMatchObject({ lines: lines.length, taken: good.length, refused: 7 });
    expect(summary.refusedLines).toEqual(refused);
    expect(refused.map((r) => r.line)).toEqual([2, 4, 5, 6, 7, 8, 9]);
    expect(refused[0]?.reason).toMatch(/^not JSON/);
    expect(refused[1]?.reason).toMatch(/^title:/);
    expect(refused[2]?.reason).toBe('platform: title_d has no platform console_a (allowed: pc_store_a)');
    expect(refused[3]?.reason).toMatch(/^startedAt:/);
    expect(refused[4]?.reason).toMatch(/^players\.0\.stats\.kills:/);
    expect(refused[5]?.reason).toMatch(/^type:/);
    expect(refused[6]?.reason).toBe('id: contains a slash');
    expect(await store.counts()).toEqual({ players: 9, matches: 9 });
  });

  it('changes nothing when the same file is imported twice', async () => {
    const store = await fresh();
    await importLines(store, smallLines());
    const first = await snapshot(store);
    const again = await importLines(store, smallLines());
    expect(again.refused).toBe(0);
    expect(await snapshot(store)).toEqual(first);
  });

  it("answers what a player's matches hold as they are after each import, though it keeps the answer between imports", async () => {
    const store = await fresh();
    const weapons = { Carbine: { kills: 3, shotsFired: 10, shotsHit: 4 } };
    await importLines(store, [
      matchLine('k-1', { map: 'Foundry', mode: 'Domination', queue: 'ranked', season: 3 }),
      matchLine('k-2', { map: 'Foundry', startedAt: '2026-11-21T18:00:00Z', season: 1 }),
      // Names that are also names of an object's own workings.
      matchLine('k-3', { map: 'constructor', mode: '__proto__', startedAt: '2026-11-22T18:00:00Z' }),
    ]);
    const p1 = (await store.playerById('title_a', 'pc_store_a', 'p1'))!;
    const expected = { distinct: { map: 2, mode: 2, playlist: 0, legend: 0, hero: 0 }, hasWeapons: false, queues: ['ranked'], seasons: [1, 3] };
    expect(await store.playerSummary(p1)).toEqual(expected);
    // Asked again, as kept (SQLite keeps it beside the player's totals).
    if (store instanceof StatsStore) expect(await store.sql("SELECT keys IS NOT NULL AS kept FROM player_totals WHERE player = 'p1'")).toEqual([{ kept: 1 }]);
    expect(await store.playerSummary(p1)).toEqual(expected);
    expect(await store.keyCounts(p1, 'map')).toEqual(
      new Map([
        ['Foundry', 2],
        ['constructor', 1],
      ]),
    );
    expect(await store.keyCounts(p1, 'mode')).toEqual(
      new Map([
        ['Domination', 1],
        ['__proto__', 1],
      ]),
    );
    // A new match, and one replaced (k-1 now on another map, with weapons).
    const second = await importLines(store, [
      matchLine('k-4', { map: 'Harbor', startedAt: '2026-11-23T18:00:00Z', queue: 'social', season: 4 }),
      matchLine('k-1', { map: 'Canal', mode: 'Domination', queue: 'ranked', season: 3 }, { weapons }),
    ]);
    expect(second.refused).toBe(0);
    expect(await store.keyCounts(p1, 'map')).toEqual(
      new Map([
        ['Foundry', 1],
        ['constructor', 1],
        ['Harbor', 1],
        ['Canal', 1],
      ]),
    );
    expect(await store.playerSummary(p1)).toEqual({
      ...expected,
      distinct: { ...expected.distinct, map: 4 },
      hasWeapons: true,
      queues: ['ranked', 'social'],
      seasons: [1, 3, 4],
    });
    // A player with no match: nothing held.
    await importLines(store, [JSON.stringify({ type: 'player', title: 'title_a', platform: 'pc_store_a', id: 'idle', handle: 'Idle' })]);
    const idle = (await store.playerById('title_a', 'pc_store_a', 'idle'))!;
    expect(await store.playerSummary(idle)).toEqual({
      distinct: { map: 0, mode: 0, playlist: 0, legend: 0, hero: 0 },
      hasWeapons: false,
      queues: [],
      seasons: [],
    });
    expect(await store.keyCounts(idle, 'hero')).toEqual(new Map());
  });

  it('replaces a match imported again under the same id, totals included', async () => {
    const store = await fresh();
    await importLines(store, smallLines());
    const ash = (await store.playerById('title_a', 'pc_store_a', '76561198000000042'))!;
    expect((await store.totalsOf(ash)).kills).toBe(30);
    const knight = (await store.playerById('title_a', 'console_a', 'Ashen Knight'))!;
    expect((await store.totalsOf(knight)).matchesPlayed).toBe(2);
    // a-1 again, now without Ashen Knight and with 20 kills for Ash.
    await importLines(store, [
      JSON.stringify({
        type: 'match',
        title: 'title_a',
        platform: 'pc_store_a',
        id: 'a-1',
        startedAt: '2026-11-01T18:00:00Z',
        durationSeconds: 600,
        players: [{ id: '76561198000000042', platform: 'pc_store_a', result: 'win', stats: { kills: 20, deaths: 5 } }],
      }),
    ]);
    expect((await store.totalsOf(ash)).kills).toBe(40);
    expect((await store.totalsOf(knight)).matchesPlayed).toBe(1);
    expect((await store.counts()).matches).toBe(9);
  });

  it("sums a stat named as an object's own methods are like any other, into new totals and stored ones", async () => {
    const store = await fresh();
    const stats = { constructor: 2, toString: 3, hasOwnProperty: 1, kills: 1 };
    await importLines(store, [matchLine('m-1', {}, { stats })]);
    await importLines(store, [matchLine('m-2', { startedAt: '2026-11-21T18:00:00Z' }, { stats })]);
    const p1 = (await store.playerById('title_a', 'pc_store_a', 'p1'))!;
    expect(await store.totalsOf(p1)).toMatchObject({ matchesPlayed: 2, constructor: 4, toString: 6, hasOwnProperty: 2, kills: 2 });
  });

  it('keeps a player record’s handle over an implicit one, whatever the order', async () => {
    const store = await fresh();
    await importLines(store, [
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'console_b',
        id: 'x-1',
        startedAt: '2026-11-01T18:00:00Z',
        durationSeconds: 60,
        players: [{ id: 'late_one', platform: 'console_b', stats: { kills: 1 } }],
      }),
      JSON.stringify({ type: 'player', title: 'title_c', platform: 'console_b', id: 'Late_One', handle: 'Late One', avatarUrl: null }),
    ]);
    expect(await store.playerById('title_c', 'console_b', 'LATE_ONE')).toMatchObject({ handle: 'Late One', id: 'Late_One' });
    const implicit = await importLines(await fresh(), [
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'console_b',
        id: 'x-1',
        startedAt: '2026-11-01T18:00:00Z',
        durationSeconds: 60,
        players: [{ id: 'solo', platform: 'console_b', stats: {} }],
      }),
    ]);
    expect(implicit.taken).toBe(1);
  });

  it('names a player without a record by the id their first row gives, however it is written, across workers and chunks', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-first-id-'));
    // Each line a chunk of its own, the chunks shared by two workers: the later rows are in the other stage.
    const lines = [
      matchLine('f-1', {}, { id: 'MiXed' }),
      matchLine('f-2', { startedAt: '2026-11-21T18:00:00Z' }, { id: 'mixed' }),
      matchLine('f-3', {}, { id: 'lower' }),
      matchLine('f-4', { startedAt: '2026-11-21T18:00:00Z' }, { id: 'LOWER' }),
      // Given twice: the first copy is not the player's first row any more, the second is.
      matchLine('f-5', {}, { id: 'Twice' }),
      matchLine('f-5', {}, { id: 'twice' }),
    ];
    writeFileSync(join(dir, 'data.jsonl'), lines.join('\n'));
    const store = await fresh();
    await importFile(store, join(dir, 'data.jsonl'), { workers: 2, chunkBytes: 64 });
    expect(await store.sql("SELECT id, handle, declared FROM players WHERE title = 'title_a' ORDER BY id_norm")).toEqual([
      { id: 'lower', handle: 'lower', declared: 0 },
      { id: 'MiXed', handle: 'MiXed', declared: 0 },
      { id: 'twice', handle: 'twice', declared: 0 },
    ]);
    expect(await store.counts()).toEqual({ players: 3, matches: 5 });
  });

  it.runIf(TEST_STORE === 'sqlite')('leaves the store as it was when the import fails, and takes the next one whole', async () => {
    const store = new StatsStore();
    const line = (id: string) =>
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'console_b',
        id,
        startedAt: '2026-11-01T18:00:00Z',
        durationSeconds: 60,
        players: [{ id: 'Newbie', platform: 'console_b', stats: { kills: 1 } }],
      });
    const dir = mkdtempSync(join(tmpdir(), 'stats-rolled-back-'));
    const file = (name: string, lines: string[]) => {
      writeFileSync(join(dir, name), lines.join('\n') + '\n');
      return join(dir, name);
    };
    store.db.exec("CREATE TRIGGER boom BEFORE INSERT ON matches WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom'); END");
    // The store fails once its workers are totalling the players: they are stopped, and the stages removed.
    await expect(importFile(store, file('a.jsonl', [line('x-1'), line('boom')]), { workers: 1 })).rejects.toThrow('boom');
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(`${STAGES}${process.pid}-`))).toEqual([]);
    expect(await store.playerById('title_c', 'console_b', 'newbie')).toBeUndefined();
    expect(await store.counts()).toEqual({ players: 0, matches: 0 });
    store.db.exec('DROP TRIGGER boom');
    await importFile(store, file('b.jsonl', [line('x-1')]), { workers: 1 });
    expect(await store.playerById('title_c', 'console_b', 'newbie')).toMatchObject({ id: 'Newbie', declared: 0 });
    await store.close();
  });

  it('refuses a vanity name on a platform that has none', () => {
    const r = parseDatasetLine(JSON.stringify({ type: 'player', title: 'title_c', platform: 'console_a', id: 'x', handle: 'x', vanity: 'xx' }));
    expect(r).toEqual({ reason: 'vanity: console_a has no vanity names' });
  });

  it('refuses a match naming the same player twice', () => {
    const r = parseDatasetLine(
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'console_b',
        id: 'x',
        startedAt: '2026-11-01T18:00:00Z',
        durationSeconds: 60,
        players: [
          { id: 'A', platform: 'console_b', stats: {} },
          { id: 'a', platform: 'console_b', stats: {} },
        ],
      }),
    );
    expect(r).toEqual({ reason: 'players.1.id: player a appears twice' });
  });

  it('streams a file and reports progress in bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-progress-'));
    const file = join(dir, 'data.jsonl');
    writeFileSync(file, smallLines().join('\r\n') + '\n\n');
    const progress: [number, number][] = [];
    const summary = await importFile(await fresh(), file, { chunkBytes: 256, onBytes: (read, total) => progress.push([read, total]) });
    expect(summary.taken).toBe(smallLines().length);
    expect(summary.refused).toBe(0);
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)?.[0]).toBe(progress.at(-1)?.[1]);
  });

  it.runIf(TEST_STORE === 'sqlite')('keeps totals and ranks as one import of every line would, through replaced matches and players who leave', async () => {
    const store = new StatsStore();
    const lines = [...scaleLines(400)];
    await importLines(store, lines);
    // Every third match again with other numbers, one player fewer, and a new player.
    const changed = lines
      .filter((l) => l.includes('"type":"match"'))
      .filter((_, i) => i % 3 === 0)
      .map((l) => {
        const m = JSON.parse(l) as { players: { id: string; stats: Record<string, number> }[]; platform: string };
        m.players.pop();
        m.players.push({ id: 'newcomer', platform: (m.players[0] as unknown as { platform: string }).platform, stats: { kills: 1, deaths: 1 } } as never);
        for (const p of m.players) p.stats = { ...p.stats, kills: (p.stats.kills ?? 0) + 2, revives: 1 };
        return JSON.stringify(m);
      });
    await importLines(store, changed);
    const totals = () =>
      store.db.prepare('SELECT title, platform, player, totals FROM player_totals ORDER BY title, platform, player').all() as { totals: string }[];
    const incremental = totals().map((r) => ({ ...r, totals: storedValues(r.totals) }));
    const ranks = store.db.prepare('SELECT * FROM rank_chunks ORDER BY title, key, lo').all();
    // The later of a match given twice wins within an import as across them.
    const once = new StatsStore();
    await importLines(once, [...lines, ...changed]);
    const all = once.db.prepare('SELECT title, platform, player, totals FROM player_totals ORDER BY title, platform, player').all() as { totals: string }[];
    expect(incremental.length).toBeGreaterThan(100);
    expect(incremental).toEqual(all.map((r) => ({ ...r, totals: storedValues(r.totals) })));
    expect(once.db.prepare('SELECT * FROM rank_chunks ORDER BY title, key, lo').all()).toEqual(ranks);
    await Promise.all([store.close(), once.close()]);
  });

  it.runIf(TEST_STORE === 'sqlite')('imports into a new file the store an import into memory makes, and the same lines again change nothing', async () => {
    const lines = [...scaleLines(300), ...smallLines()];
    // The same match twice in the file, changed: the later one wins, as in any import.
    const changed = JSON.parse(lines.find((l) => l.includes('"type":"match"'))!) as {
      players: { platform: string; id: string; stats: Record<string, number> }[];
    };
    for (const p of changed.players) p.stats = { ...p.stats, kills: 99 };
    lines.push(JSON.stringify(changed));
    // Players no record declares (an implicit record each, given once however often they play), and
    // one declared only after their matches: the record's handle wins, as in any import.
    const undeclared = (id: string, at: string, ...players: string[]) =>
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'console_b',
        id,
        startedAt: at,
        durationSeconds: 60,
        players: players.map((p) => ({ id: p, platform: 'console_b', stats: { kills: 1 } })),
      });
    // Drifter's deaths given as -0 in the line: 0 once written as JSON, so in the ranks too.
    lines.push(
      undeclared('u-1', '2026-11-01T18:00:00Z', 'Drifter', 'Late_One').replace('"kills":1}', '"kills":1,"deaths":-0}'),
      undeclared('u-2', '2026-11-02T18:00:00Z', 'drifter', 'late_one'),
    );
    lines.push(JSON.stringify({ type: 'player', title: 'title_c', platform: 'console_b', id: 'Late_One', handle: 'Late One', avatarUrl: null }));
    const memory = new StatsStore();
    await importLines(memory, lines);
    const dir = mkdtempSync(join(tmpdir(), 'stats-bulk-'));
    const file = new StatsStore(join(dir, 'store.sqlite'));
    const cache = file.db.pragma('cache_size', { simple: true });
    await importLines(file, lines);
    // The modes the first import writes in are the store's again.
    expect(file.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(file.db.pragma('cache_size', { simple: true })).toBe(cache);
    expect(await snapshot(file)).toEqual(await snapshot(memory));
    expect(await file.sql('SELECT COUNT(*) AS n FROM match_players WHERE json(stats) LIKE \'%"kills":99%\'')).toEqual([{ n: changed.players.length }]);
    expect(await file.sql("SELECT id, handle, declared FROM players WHERE title = 'title_c' AND id_norm IN ('drifter', 'late_one') ORDER BY id_norm")).toEqual([
      { id: 'Drifter', handle: 'Drifter', declared: 0 },
      { id: 'Late_One', handle: 'Late One', declared: 1 },
    ]);
    // Not empty any more: the same lines again change nothing.
    const before = await snapshot(file);
    await importLines(file, lines);
    expect(file.db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(await snapshot(file)).toEqual(before);
    await Promise.all([memory.close(), file.close()]);
  });

  it.runIf(TEST_STORE === 'sqlite')(
    "reads what a player's matches hold at once while another process holds the file's write lock, and keeps it once free",
    async () => {
      const path = join(mkdtempSync(join(tmpdir(), 'stats-locked-')), 'store.sqlite');
      const store = new StatsStore(path);
      stores.push(store);
      await importLines(store, [matchLine('l-1', { map: 'Foundry' }), matchLine('l-2', { map: 'Canal', startedAt: '2026-11-21T18:00:00Z' })]);
      const p1 = (await store.playerById('title_a', 'pc_store_a', 'p1'))!;
      const kept = () => store.db.prepare("SELECT keys IS NOT NULL FROM player_totals WHERE player = 'p1'").pluck().get();
      expect(kept()).toBe(0);
      // An import in another process holds the lock for a whole batch.
      const other = new Database(path);
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      expect(await store.keyCounts(p1, 'map')).toEqual(
        new Map([
          ['Foundry', 1],
          ['Canal', 1],
        ]),
      );
      // Not after the 5 s busy timeout: at once, and nothing kept.
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(kept()).toBe(0);
      other.exec('COMMIT');
      other.close();
      expect((await store.playerSummary(p1)).distinct.map).toBe(2);
      expect(kept()).toBe(1);
      // The connection waits for other writes as before.
      expect(store.db.pragma('busy_timeout', { simple: true })).toBe(5_000);
    },
  );

  it.runIf(TEST_STORE === 'sqlite')('refuses a file of an earlier layout, saying what to do, and opens its own', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'stats-layout-')), 'store.sqlite');
    const old = new Database(path);
    old.exec('CREATE TABLE matches (title TEXT, id TEXT, players TEXT, digest TEXT)');
    old.close();
    expect(() => new StatsStore(path)).toThrow(/earlier version.*delete the file and import the dataset again/);
    const own = join(dirname(path), 'own.sqlite');
    const store = new StatsStore(own);
    await importLines(store, smallLines());
    await store.close();
    const again = new StatsStore(own);
    expect((await again.counts()).matches).toBeGreaterThan(0);
    await again.close();
  });

  it.runIf(TEST_STORE === 'sqlite')('takes the later of a match given twice a few lines apart (one batch), into a fresh file as into memory', async () => {
    const lines = [...scaleLines(40)];
    const at = lines.findIndex((l) => l.includes('"type":"match"'));
    const changed = JSON.parse(lines[at]!) as { id: string; players: { stats: Record<string, number> }[] };
    for (const p of changed.players) p.stats = { ...p.stats, kills: 99 };
    lines.splice(at + 3, 0, JSON.stringify(changed));
    const memory = new StatsStore();
    await importLines(memory, lines);
    const file = new StatsStore(join(mkdtempSync(join(tmpdir(), 'stats-twice-')), 'store.sqlite'));
    await importLines(file, lines);
    for (const store of [memory, file]) {
      const rows = await store.sql('SELECT json(stats) AS stats FROM match_players WHERE match_id = ?', changed.id);
      expect(rows).toHaveLength(changed.players.length);
      expect(rows.every((r) => (JSON.parse(String(r.stats)) as { kills: number }).kills === 99)).toBe(true);
    }
    expect(await snapshot(file)).toEqual(await snapshot(memory));
    await Promise.all([memory.close(), file.close()]);
  });

  it.runIf(TEST_STORE === 'sqlite')('parses a file in worker threads to the same store, refusals and summary as an import of its lines', async () => {
    const lines = [...scaleLines(300), ...smallLines(), '{not json', ''];
    const changed = JSON.parse(lines.find((l) => l.includes('"type":"match"'))!) as {
      players: { platform: string; id: string; stats: Record<string, number> }[];
    };
    for (const p of changed.players) p.stats = { ...p.stats, kills: 99 };
    // A match changed later in the same file, and an identical line again.
    lines.push(
      JSON.stringify(changed),
      lines.find((l) => l.includes('"type":"match"') && l.includes('"b-5"'))!,
    );
    // Text of more than one byte a character in UTF-8, cut into chunks anywhere.
    const accented = { ...changed, id: 'a-ünï', players: changed.players.map((p, i) => ({ ...p, id: `Jöhn✓${i}` })) };
    lines.push(JSON.stringify(accented));
    // Lines written otherwise than JSON.stringify writes them, each under a match id of its own:
    // ids in capitals, white space after colons, a key twice (the last counts), an escape.
    const variant = (id: string, patch: (line: string) => string) =>
      patch(JSON.stringify({ ...changed, id, players: changed.players.map((p, i) => ({ ...p, id: `${id}P${i}` })) }));
    lines.push(
      variant('v-caps', (l) => l),
      variant('v-spaced', (l) => l.replaceAll('":', '": ')),
      variant('v-twice', (l) => l.replace('"id":"v-twiceP0"', '"id":"v-twiceP0","id":"v-twiceQ0"')),
      variant('v-escaped', (l) => l.replace(/"map":"[^"]*"/, '"map":"Area \\"51\\""')),
    );
    const dir = mkdtempSync(join(tmpdir(), 'stats-worker-'));
    const data = join(dir, 'data.jsonl');
    writeFileSync(data, lines.join('\n'));
    const memory = new StatsStore();
    const refusedInMemory: { line: number; reason: string }[] = [];
    const expected = await importLines(memory, lines, { onRefused: (r) => refusedInMemory.push(r) });
    const file = new StatsStore(join(dir, 'store.sqlite'));
    const refused: { line: number; reason: string }[] = [];
    // Small chunks, so that each worker stages many, and lines are numbered across them.
    const summary = await importFile(file, data, { workers: 2, chunkBytes: 4096, onRefused: (r) => refused.push(r) });
    expect(summary).toEqual(expected);
    expect(refused).toEqual(refusedInMemory);
    expect(await snapshot(file)).toEqual(await snapshot(memory));
    // Stored as text, not as the bytes they came in.
    expect(await file.sql('SELECT DISTINCT typeof(players) AS t FROM matches')).toEqual([{ t: 'text' }]);
    expect(await file.sql("SELECT players FROM matches WHERE id = 'a-ünï'")).toEqual([
      { players: JSON.stringify(accented.players.map((p) => [p.platform, p.id.toLowerCase()])) },
    ]);
    expect(await file.sql("SELECT DISTINCT player FROM match_players WHERE match_id = 'v-twice' AND player LIKE 'v-twice_0'")).toEqual([
      { player: 'v-twiceq0' },
    ]);
    expect(await file.sql("SELECT DISTINCT map FROM match_players WHERE match_id = 'v-escaped'")).toEqual([{ map: 'Area "51"' }]);
    // The same file again changes nothing; a second file of changed and new matches is taken in.
    const before = await snapshot(file);
    await importFile(file, data, { workers: 3, chunkBytes: 5000 });
    expect(await snapshot(file)).toEqual(before);
    // Into other fresh files by this thread alone (it totals every part too), beside one worker, three, and more than SQLite can attach the stages and totals of: the same store.
    for (const workers of [0, 1, 3, 8]) {
      const other = new StatsStore(join(dir, `store-${workers}.sqlite`));
      await importFile(other, data, { workers, chunkBytes: 3000 });
      expect(await snapshot(other)).toEqual(before);
      await other.close();
    }
    const second = join(dir, 'second.jsonl');
    // Other numbers under the same match ids (replacements), and the same under new ids.
    const replacing = [...scaleLines(120, 5)].filter((l) => l.includes('"type":"match"'));
    const more = [...lines.filter((_, i) => i % 7 === 0), ...replacing, ...replacing.map((l) => l.replace(/"id":"(\w)-/, '"id":"$1-x'))];
    writeFileSync(second, more.join('\n'));
    await importFile(file, second, { workers: 2, chunkBytes: 3000 });
    await importLines(memory, more);
    expect(await file.sql("SELECT COUNT(*) AS n FROM matches WHERE id LIKE '_-x%'")).toEqual([{ n: 120 }]);
    expect(await snapshot(file)).toEqual(await snapshot(memory));
    await Promise.all([memory.close(), file.close()]);
  });

  it.runIf(TEST_STORE === 'sqlite')('imports a file in workers into a store of player records without matches as one import of its lines does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-players-first-'));
    const record = (id: string, handle: string) => JSON.stringify({ type: 'player', title: 'title_a', platform: 'pc_store_a', id, handle });
    // Stored first: two records. The file then plays both and a third player, and names one of them again.
    const first = [record('p1', 'Kept'), record('p2', 'Before')];
    const lines = [matchLine('m1'), matchLine('m2', {}, { id: 'P2' }), matchLine('m3', {}, { id: 'p3' }), record('P2', 'After')];
    writeFileSync(join(dir, 'data.jsonl'), lines.join('\n'));
    const [file, memory] = [new StatsStore(join(dir, 'store.sqlite')), new StatsStore()];
    for (const store of [file, memory]) await importLines(store, first);
    await importFile(file, join(dir, 'data.jsonl'), { workers: 2, chunkBytes: 64 });
    await importLines(memory, lines);
    expect(await snapshot(file)).toEqual(await snapshot(memory));
    expect(await file.sql('SELECT id, handle, declared FROM players ORDER BY id_norm')).toEqual([
      { id: 'p1', handle: 'Kept', declared: 1 },
      { id: 'P2', handle: 'After', declared: 1 },
      { id: 'p3', handle: 'p3', declared: 0 },
    ]);
    await Promise.all([memory.close(), file.close()]);
  });

  it.runIf(TEST_STORE === 'sqlite')('fails an import whose workers cannot read the file with the reason, and leaves the store as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-unreadable-'));
    const store = new StatsStore(join(dir, 'store.sqlite'));
    // A directory: it has a size, but reading it fails in each worker.
    await expect(importFile(store, dir, { workers: 2 })).rejects.toThrow(/EISDIR/);
    expect(await store.counts()).toEqual({ players: 0, matches: 0 });
    // The store takes the next import as before.
    const data = join(dir, 'data.jsonl');
    writeFileSync(data, smallLines().join('\n'));
    await importFile(store, data, { workers: 2 });
    expect((await store.counts()).matches).toBeGreaterThan(0);
    await store.close();
  });

  it.runIf(TEST_STORE === 'sqlite')(
    'refuses an import whose file was written to while it was read, with a reason that says so, in workers and in one thread',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'stats-changed-'));
      const data = join(dir, 'data.jsonl');
      const lines = [...scaleLines(600, 11)];
      for (const [workers, change] of [
        [2, 'shorter'],
        [2, 'longer'],
        [2, 'same length'],
        [0, 'shorter'],
        [0, 'same length'],
      ] as const) {
        writeFileSync(data, lines.join('\n'));
        const store = new StatsStore(join(dir, `store-${workers}-${change.replace(' ', '-')}.sqlite`));
        let changed = false;
        const rewrite = () => {
          if (changed) return;
          changed = true;
          // Rewritten in place, as an editor or a script that opens it for writing does.
          const text =
            change === 'shorter'
              ? lines.slice(0, 50).join('\n')
              : change === 'longer'
                ? [...lines, ...lines].join('\n')
                : lines.join('\n').replaceAll('"kills":', '"kills" :').slice(0, lines.join('\n').length);
          writeFileSync(data, text);
        };
        // Small chunks: the file changes while most of it is still unread, or is found changed at the end.
        await expect(importFile(store, data, { workers, chunkBytes: 4096, onProgress: rewrite }), `${workers} workers, ${change}`).rejects.toThrow(
          /changed while it was read/,
        );
        expect(changed).toBe(true);
        await store.close();
      }
    },
  );

  it('tries an import again while its file keeps changing, a few times, and no other failure', async () => {
    const retries: [number, number][] = [];
    let calls = 0;
    const changing = (times: number) => () => (++calls <= times ? Promise.reject(new FileChangedError()) : Promise.resolve('imported'));
    const options = { attempts: 3, waitMs: 5, onRetry: (n: number, ms: number) => retries.push([n, ms]) };
    expect(await retryWhileChanging(changing(2), options)).toBe('imported');
    expect(retries).toEqual([
      [1, 5],
      [2, 10],
    ]);
    calls = 0;
    await expect(retryWhileChanging(changing(3), options)).rejects.toThrow(/changed while it was read/);
    expect(calls).toBe(3);
    calls = 0;
    const unreadable = () => {
      calls++;
      return Promise.reject(new Error('EISDIR'));
    };
    await expect(retryWhileChanging(unreadable, options)).rejects.toThrow('EISDIR');
    expect(calls).toBe(1);
  });

  it.runIf(TEST_STORE === 'sqlite')('imports a file replaced by another under its name while it was read as it was when the import began', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-replaced-'));
    const data = join(dir, 'data.jsonl');
    const lines = [...scaleLines(600, 12)];
    const expected = await importLines(await fresh(), lines);
    for (const workers of [2, 0]) {
      writeFileSync(data, lines.join('\n'));
      const store = new StatsStore(join(dir, `store-${workers}.sqlite`));
      let replaced = false;
      const replace = () => {
        if (replaced) return;
        replaced = true;
        // Written whole beside it, then renamed over it: what the README asks of a dataset that changes.
        writeFileSync(`${data}.new`, lines.slice(0, 30).join('\n'));
        renameSync(`${data}.new`, data);
      };
      expect(await importFile(store, data, { workers, chunkBytes: 4096, onProgress: replace })).toEqual(expected);
      expect(replaced).toBe(true);
      expect((await store.counts()).matches).toBe(expected.matches);
      await store.close();
    }
  });

  it.runIf(TEST_STORE === 'sqlite')(
    'stores each row as its record says, stats and weapons as their JSON, no weapons as NULL, in memory and in a new file',
    async () => {
      const lines = [...smallLines(), ...scaleLines(40)];
      // A match id twice (the small dataset's and the generated ones share a few): the later one is stored.
      const byId = new Map(
        lines
          .map((l) => parseDatasetLine(l))
          .flatMap((p) => ('record' in p && p.record.type === 'match' ? [[`${p.record.title} ${p.record.id}`, p.record] as const] : [])),
      );
      const expected = [...byId.values()]
        .flatMap((m) =>
          m.players.map((p) => ({
            title: m.title,
            match_id: m.id,
            platform: p.platform,
            player: p.id.normalize('NFC').toLowerCase(),
            team: p.team ?? null,
            result: p.result ?? null,
            hero: p.hero ?? null,
            legend: p.legend ?? null,
            map: m.map ?? null,
            season: m.season ?? null,
            stats: JSON.stringify(p.stats),
            weapons: p.weapons ? JSON.stringify(p.weapons) : null,
          })),
        )
        .sort((a, b) => `${a.title} ${a.match_id} ${a.platform} ${a.player}`.localeCompare(`${b.title} ${b.match_id} ${b.platform} ${b.player}`));
      expect(expected.some((r) => r.weapons === null) && expected.some((r) => r.weapons !== null) && expected.some((r) => r.hero !== null)).toBe(true);
      const file = new StatsStore(join(mkdtempSync(join(tmpdir(), 'stats-rows-')), 'store.sqlite'));
      for (const store of [new StatsStore(), file]) {
        await importLines(store, lines);
        const rows = await store.sql(
          'SELECT title, match_id, platform, player, team, result, hero, legend, map, season, json(stats) AS stats, json(weapons) AS weapons FROM match_players',
        );
        rows.sort((a, b) =>
          `${String(a.title)} ${String(a.match_id)} ${String(a.platform)} ${String(a.player)}`.localeCompare(
            `${String(b.title)} ${String(b.match_id)} ${String(b.platform)} ${String(b.player)}`,
          ),
        );
        expect(rows).toEqual(expected);
        await store.close();
      }
    },
  );

  it('places each player among the whole population exactly, across rank chunks', async () => {
    const store = await fresh();
    await importLines(store, scaleLines(8_000));
    const rows = (await store.sql("SELECT platform, player, totals FROM player_totals WHERE title = 'title_c'")) as { totals: string }[];
    const values = rows.map((r) => storedValues(r.totals));
    const keys = ['kills', 'kd', 'damage', 'matchesPlayed', 'deaths', 'winRate'];
    const [chunks] = (await store.sql("SELECT COUNT(*) n FROM rank_chunks WHERE title = 'title_c' AND key = 'damage'")) as { n: number }[];
    expect(new Set(values.map((v) => v.damage)).size).toBeGreaterThan(RANK_CHUNK);
    expect(chunks?.n).toBeGreaterThan(1);
    for (const key of keys) {
      const population = Float64Array.from(values.map((v) => v[key] ?? NaN).filter((v) => !Number.isNaN(v))).sort();
      for (const v of values.slice(0, 300)) {
        const value = v[key];
        if (value === undefined) continue;
        const place = (await store.places('title_c', { [key]: value })).get(key)!;
        const higher = key !== 'deaths';
        expect(standingOfCounts(place.below, place.atOrBelow, place.population, higher)).toEqual(standing(population, value, higher));
      }
    }
  });

  it('refuses a stat value that is not a number of magnitude at most 1e12 with its line, so that sums stay finite and the import ends', async () => {
    // Two such matches once summed to Infinity, stored as null: a K/D of NaN, on which the ranks looped until memory ran out.
    const huge = matchLine('m1', {}, { stats: { kills: 0, deaths: 1e308 } });
    expect(parseDatasetLine(huge)).toEqual({ reason: 'players.0.stats.deaths: must be a number from -1e12 to 1e12' });
    const lines = [
      huge,
      matchLine('m2', {}, { stats: { kills: 0, deaths: 1e308 } }),
      matchLine('m3', {}, { stats: { kills: 1e12, deaths: 1e12 } }),
      matchLine('m4', {}, { stats: { kills: 1e12, deaths: 1e12 } }),
    ];
    const store = await fresh();
    const summary = await importLines(store, lines);
    expect(summary).toMatchObject({ taken: 2, refused: 2 });
    expect(summary.refusedLines.map((r) => r.line)).toEqual([1, 2]);
    const p1 = (await store.playerById('title_a', 'pc_store_a', 'p1'))!;
    expect(await store.totalsOf(p1)).toMatchObject({ matchesPlayed: 2, kills: 2e12, deaths: 2e12, kd: 1 });
  });

  it('refuses a control character in any text field with its line, and imports the rest (PostgreSQL takes no NUL in text)', async () => {
    const player = { type: 'player', title: 'title_a', platform: 'pc_store_a', id: 'p1', handle: 'Player One' };
    const lines = [
      matchLine('m1'),
      matchLine('m2', { map: 'de\u0000dust' }),
      matchLine('m3', { mode: 'Team\u0085Deathmatch' }),
      matchLine('m4', { playlist: '\u007fRanked' }),
      matchLine('m5', {}, { team: 'red\u0000' }),
      matchLine('m6', {}, { hero: 'Ana\u001b[31m' }),
      matchLine('m7', {}, { legend: 'Seer\u0000' }),
      matchLine('m8', {}, { stats: { 'kills\u0000': 1 } }),
      matchLine('m9', {}, { weapons: { 'Carbine\u0000': { kills: 1 } } }),
      JSON.stringify({ ...player, handle: 'Player\u0000One' }),
      JSON.stringify({ ...player, avatarUrl: 'https://cdn.example/\u0000.png' }),
      JSON.stringify(player),
      matchLine('m10'),
    ];
    const store = await fresh();
    const summary = await importLines(store, lines);
    expect(summary.refusedLines).toEqual([
      { line: 2, reason: 'map: contains control characters' },
      { line: 3, reason: 'mode: contains control characters' },
      { line: 4, reason: 'playlist: contains control characters' },
      { line: 5, reason: 'players.0.team: contains control characters' },
      { line: 6, reason: 'players.0.hero: contains control characters' },
      { line: 7, reason: 'players.0.legend: contains control characters' },
      { line: 8, reason: 'players.0.stats."kills\\u0000": contains control characters' },
      { line: 9, reason: 'players.0.weapons."Carbine\\u0000": contains control characters' },
      { line: 10, reason: 'handle: contains control characters' },
      { line: 11, reason: 'avatarUrl: contains control characters' },
    ]);
    expect(summary.taken).toBe(3);
    expect(await store.counts()).toEqual({ players: 1, matches: 2 });
  });

  it('refuses a line longer than 1 MiB with its number and skips it, in worker threads as in this one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-long-'));
    const file = join(dir, 'data.jsonl');
    // A valid record, but 3 MiB: it is refused for its length, unread.
    const long = matchLine('m2', { map: 'x'.repeat(3 * MAX_LINE_BYTES) });
    writeFileSync(file, [matchLine('m1'), long, matchLine('m3')].join('\n'));
    for (const workers of [0, 2]) {
      const store = await fresh();
      const summary = await importFile(store, file, { workers, chunkBytes: 1 << 20 });
      expect(summary, `${workers} workers`).toMatchObject({ lines: 3, taken: 2, refused: 1 });
      expect(summary.refusedLines).toEqual([
        { line: 2, reason: `longer than ${MAX_LINE_BYTES} bytes (1 MiB), the most a line may have: ${Buffer.byteLength(long)} bytes, not read` },
      ]);
      expect(await store.counts()).toEqual({ players: 1, matches: 2 });
    }
    // Given as text, the same.
    expect((await importLines(await fresh(), [matchLine('m1'), long])).refusedLines).toEqual(
      (await importFile(await fresh(), file, { workers: 0 })).refusedLines,
    );
  });

  it(`refuses a match that would bring its title more than ${MAX_STAT_NAMES} stat names, naming the cap, in worker threads as in this one`, async () => {
    // Each match a stat name of its own: every player's totals once made room for all of them, and 3.9 MB of it ran out of memory.
    const own = Array.from({ length: MAX_STAT_NAMES + 40 }, (_, i) => matchLine(`k${i}`, {}, { id: `u${i}`, stats: { kills: 1, [`stat${i}`]: i } }));
    const lines = [
      ...own,
      // Names already taken: taken again; one more new one: refused, whatever else the match has.
      matchLine('known', {}, { id: 'u-known', stats: { stat3: 1, stat200: 2 } }),
      matchLine('one-more', {}, { id: 'u-more', stats: { stat3: 1, fresh: 2 } }),
      // Another title has a count of its own.
      JSON.stringify({
        type: 'match',
        title: 'title_b',
        platform: 'pc_store_b',
        id: 'b1',
        startedAt: '2026-11-20T18:00:00Z',
        durationSeconds: 60,
        players: [{ id: 'b', platform: 'pc_store_b', stats: { fresh: 1 } }],
      }),
    ];
    const expected = await importLines(await fresh(), lines);
    const reason = (i: number, name: string) => ({
      line: i,
      reason: `players.0.stats.${name}: more than ${MAX_STAT_NAMES} distinct stat names for title_a in one import`,
    });
    // `kills` is the first name: stat0 to stat254 fill the cap.
    expect(expected.refusedLines).toEqual([
      ...Array.from({ length: own.length - (MAX_STAT_NAMES - 1) }, (_, i) => reason(MAX_STAT_NAMES + i, `stat${MAX_STAT_NAMES - 1 + i}`)),
      reason(own.length + 2, 'fresh'),
    ]);
    expect(expected.taken).toBe(MAX_STAT_NAMES - 1 + 2);
    // Read from a file in small chunks, by workers that each meet names the others have taken first.
    const file = join(mkdtempSync(join(tmpdir(), 'stats-names-')), 'data.jsonl');
    writeFileSync(file, lines.join('\n'));
    for (const workers of [2, 3]) {
      const store = await fresh();
      expect(await importFile(store, file, { workers, chunkBytes: 2_000 })).toEqual(expected);
      const names = await store.sql("SELECT totals FROM player_totals WHERE title = 'title_a'");
      expect(new Set(names.flatMap((r) => Object.keys((JSON.parse(r.totals as string) as { sums: object }).sums))).size).toBe(MAX_STAT_NAMES);
    }
  });

  it(`takes a match whose stat names came among the file's first ${MAX_STAT_NAMES} in another worker's chunks, however the chunks fell`, () => {
    // A match line of title_a whose one player has these stat names.
    const line = (ord: number, names: string[]) => matchLine(`m${ord}`, {}, { id: `u${ord}`, stats: Object.fromEntries(names.map((n) => [n, 1])) });
    const named = (prefix: string, from: number, to: number) => Array.from({ length: to - from }, (_, i) => `${prefix}${from + i}`);
    const dir = mkdtempSync(join(tmpdir(), 'stats-settle-'));
    const stages = [new Stage(join(dir, 'stage-0.sqlite'), 2), new Stage(join(dir, 'stage-1.sqlite'), 2)];
    // The file's first names: 200 in the first stage's chunk, the rest in the second's.
    stages[0]!.add(0, line(0, named('f', 0, 200)));
    stages[1]!.add(1, line(1, named('f', 200, MAX_STAT_NAMES)));
    // Past them: the second stage now has as many names of its own as a title takes...
    stages[1]!.add(2, line(2, named('x', 0, 200)));
    // ...and meets one of the file's first that came in the other stage: taken.
    stages[1]!.add(3, line(3, ['f10']));
    stages[0]!.add(4, line(4, ['f20', 'y0']));
    // More refused than an import shows: counted.
    for (let ord = 5; ord < 155; ord++) stages[ord % 2]!.add(ord, line(ord, [`z${ord}`]));
    const reports = stages.map((stage) => stage.close());
    expect(reports.flatMap((r) => r.refused)).toEqual([]);
    const reason = (name: string) => `players.0.stats.${name}: more than ${MAX_STAT_NAMES} distinct stat names for title_a in one import`;
    const files = stages.map((stage) => stage.file);
    const late = settleStages(files, reports);
    expect(late.count).toBe(152);
    expect(late.refused).toEqual([
      { ord: 2, reason: reason('x0') },
      { ord: 4, reason: reason('y0') },
      ...Array.from({ length: 98 }, (_, i) => ({ ord: 5 + i, reason: reason(`z${5 + i}`) })),
    ]);
    const kept = stages.flatMap((stage) => {
      const db = new Database(stage.file, { readonly: true });
      const ords = db.prepare('SELECT ord FROM matches').pluck().all() as number[];
      db.close();
      return ords;
    });
    expect(kept.sort((a, b) => a - b)).toEqual([0, 1, 3]);
    rmSync(dir, { recursive: true });
  });

  it("removes the stages an import left when its process was killed, and no other process's", async () => {
    // A process id no process has (Linux's ids stay below 2^22), and this process's own parent's.
    const dead = join(tmpdir(), `${STAGES}${2 ** 22 + 7}-left`);
    const alive = join(tmpdir(), `${STAGES}${process.ppid}-running`);
    for (const dir of [dead, alive]) mkdirSync(dir, { recursive: true });
    await importLines(await fresh(), smallLines());
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(alive)).toBe(true);
    rmSync(alive, { recursive: true });
  });
});
