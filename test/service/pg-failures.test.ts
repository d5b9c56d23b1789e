// PostgreSQL failing under the store: the connection of an import is lost half-way (the process
// must not end, the import must), and a service process starts while another session holds a lock
// on the store's tables (it must not wait for it, nor wait forever when it has to create something).
import { createServer, connect, type Server, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { IMPORT_LOCK, PgStore, unavailable } from '../../src/service/pg-store.js';
import { startStatsServer } from '../../src/service/server.js';
import { TEST_PG_URL, TEST_STORE } from '../helpers/service.js';

const prefix = `pgfail_${process.pid}_${Date.now()}`;
const schemas: string[] = [];
let admin: pg.Client;

/** A schema of this file's, dropped after; its name also names its store's connections. */
function schemaName(what: string): string {
  const schema = `${prefix}_${what}`;
  schemas.push(schema);
  return schema;
}

/** The store's URL, its sessions named `name` in pg_stat_activity. */
function urlOf(name: string): string {
  const url = new URL(TEST_PG_URL);
  url.searchParams.set('application_name', name);
  return url.toString();
}

const playerLine = (id: string) => JSON.stringify({ type: 'player', title: 'title_a', platform: 'pc_store_a', id, handle: id });

function matchLine(i: number): string {
  const players = Array.from({ length: 4 }, (_, j) => ({
    id: `p${(i * 3 + j) % 500}`,
    platform: 'pc_store_a',
    result: j < 2 ? 'win' : 'loss',
    stats: { kills: (i + j) % 17, deaths: ((i * j) % 11) + 1 },
  }));
  const startedAt = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString().replace('.000Z', 'Z');
  return JSON.stringify({ type: 'match', title: 'title_a', platform: 'pc_store_a', id: `m-${i}`, startedAt, durationSeconds: 600, players });
}

/** A store on `schema` with one player and its tables made, closed again. */
async function existingStore(schema: string): Promise<void> {
  const store = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 2 });
  try {
    await importLines(store, [playerLine('nova')]);
  } finally {
    await store.close();
  }
}

/**
 * Waits for a session of `name` to wait on an advisory lock (the one the test holds), and ends it as
 * an operator would. Only that wait: on a busy machine a batch's statements can wait a moment on a
 * table's lock too, and ending one of those failed the import before its first batch was written.
 */
async function terminateWaiting(name: string): Promise<void> {
  return waitingOnLock(name, true);
}

/** Waits for a session of `name` to wait on an advisory lock (the one the test holds); ends it when asked. */
async function waitingOnLock(name: string, terminate = false): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const { rows } = await admin.query<{ done: boolean }>(
      `SELECT ${terminate ? 'pg_terminate_backend(pid)' : 'true'} AS done FROM pg_stat_activity
       WHERE application_name = $1 AND wait_event_type = 'Lock' AND wait_event = 'advisory'`,
      [name],
    );
    if (rows.some((r) => r.done)) return;
    await sleep(50);
  }
  throw new Error(`no session of ${name} came to wait on the lock`);
}

beforeAll(async () => {
  admin = new pg.Client(TEST_PG_URL);
  await admin.connect();
});

afterAll(async () => {
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await admin.end();
});

/** A TCP proxy to the test server that can be cut (its connections ended, new ones refused), as a server going down is. */
async function cuttableProxy(): Promise<{ url: string; cut: () => Promise<void> }> {
  const target = new URL(TEST_PG_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(TEST_PG_URL);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    cut: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
  };
}

describe('which failures of PostgreSQL are its being unavailable', () => {
  it('counts connection failures, lost connections, shutdowns and timeouts, not errors of the statement', () => {
    expect(unavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(true);
    expect(unavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(unavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(true);
    expect(unavailable(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' }))).toBe(true);
    expect(unavailable(Object.assign(new Error('connection failure'), { code: '08006' }))).toBe(true);
    expect(unavailable(Object.assign(new Error('syntax error'), { code: '42601' }))).toBe(false);
    expect(unavailable(Object.assign(new Error('relation does not exist'), { code: '42P01' }))).toBe(false);
  });
});

describe.runIf(TEST_STORE === 'postgres')('PostgreSQL failing under the store', () => {
  it('answers 503 with Retry-After, not 500, at once, while PostgreSQL is down', async () => {
    const schema = schemaName('down');
    await existingStore(schema);
    const proxy = await cuttableProxy();
    const store = await PgStore.open({ url: proxy.url, schema, poolSize: 2 });
    const service = await startStatsServer({ store });
    const profile = () => fetch(`${service.url}/v2/title_a/standard/profile/pc_store_a/nova`);
    try {
      expect((await profile()).status).toBe(200);
      await proxy.cut();
      const started = performance.now();
      const down = await profile();
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(down.status).toBe(503);
      expect(down.headers.get('retry-after')).toBe('5');
      expect(((await down.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('CollectorResultStatus::ExternalError');
    } finally {
      await service.close();
      await store.close();
    }
  });

  it('opens several stores at once on a new schema, each of them', async () => {
    for (let round = 0; round < 3; round++) {
      const schema = schemaName(`race${round}`);
      const opened = await Promise.allSettled(Array.from({ length: 4 }, () => PgStore.open({ url: TEST_PG_URL, schema, poolSize: 1 })));
      for (const o of opened) if (o.status === 'fulfilled') await o.value.close();
      expect(opened.map((o) => (o.status === 'rejected' ? (o.reason as Error).message : 'open'))).toEqual(Array(4).fill('open'));
    }
  });

  it('works in a schema whose name has capitals and a space', async () => {
    const schema = schemaName('Mixed Case');
    const store = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 1 });
    try {
      await importLines(store, [playerLine('nova')]);
      expect(await store.playerById('title_a', 'pc_store_a', 'nova')).toMatchObject({ id: 'nova' });
      const { rows } = await admin.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${pg.escapeIdentifier(schema)}.players`);
      expect(rows[0]?.n).toBe(1);
    } finally {
      await store.close();
    }
  });

  it('gathers statistics of its own tables after an import, not of every table in the database', async () => {
    const schema = schemaName('analyse');
    const other = schemaName('other');
    await admin.query(
      `CREATE SCHEMA ${pg.escapeIdentifier(other)}; CREATE TABLE ${pg.escapeIdentifier(other)}.t (x int); INSERT INTO ${pg.escapeIdentifier(other)}.t VALUES (1)`,
    );
    const store = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 1 });
    try {
      await importLines(store, [playerLine('nova'), matchLine(1)]);
    } finally {
      await store.close();
    }
    const analysed = async (s: string, table: string) =>
      (await admin.query<{ at: Date | null }>('SELECT last_analyze AS at FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2', [s, table])).rows[0]
        ?.at ?? null;
    expect(await analysed(schema, 'match_players')).not.toBeNull();
    expect(await analysed(other, 't')).toBeNull();
  });

  it('serves the store as it was while another process imports, then the whole import; a failed import changes nothing', async () => {
    const schema = schemaName('serving');
    await existingStore(schema);
    const serving = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 2 });
    const importing = await PgStore.open({ url: urlOf(`${schema}-importing`), schema, poolSize: 2 });
    const service = await startStatsServer({ store: serving });
    const profile = async (id: string) =>
      (await (await fetch(`${service.url}/v2/title_a/standard/profile/pc_store_a/${id}`)).json()) as {
        data?: { segments: { stats: Record<string, { value: number; rank: number | null }> }[] };
      };
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 100 && !(await check()); i++) await sleep(100);
      return check();
    };
    try {
      // nova's profile, computed and remembered by the serving process before the import.
      expect((await profile('nova')).data?.segments[0]?.stats.matchesPlayed?.value ?? 0).toBe(0);
      const novaPlays = JSON.stringify({
        type: 'match',
        title: 'title_a',
        platform: 'pc_store_a',
        id: 'm-nova',
        startedAt: '2026-01-02T00:00:00Z',
        durationSeconds: 600,
        players: [{ id: 'nova', platform: 'pc_store_a', result: 'win', stats: { kills: 3, deaths: 1 } }],
      });
      // A source that fails half-way: nothing of it is taken.
      const failing = async function* () {
        yield novaPlays;
        await sleep(10);
        throw new Error('the dataset could not be read further');
      };
      await expect(importLines(importing, failing())).rejects.toThrow('the dataset could not be read further');
      expect(await serving.counts()).toEqual({ players: 1, matches: 0 });
      // An import held in its transaction (the lock importers take turns with): the store is served as it was.
      await admin.query('SELECT pg_advisory_lock(hashtext($1))', [IMPORT_LOCK + schema]);
      const outcome = importLines(importing, [novaPlays, matchLine(0)]);
      await waitingOnLock(`${schema}-importing`);
      expect((await profile('nova')).data?.segments[0]?.stats.matchesPlayed?.value ?? 0).toBe(0);
      await admin.query('SELECT pg_advisory_unlock_all()');
      await outcome;
      // Then the whole of it, ranked: what the serving process remembered is dropped (the generation moved on).
      expect(await until(async () => (await profile('nova')).data?.segments[0]?.stats.matchesPlayed?.value === 1)).toBe(true);
      expect((await profile('p1')).data?.segments[0]?.stats.kills?.rank).not.toBeNull();
    } finally {
      await admin.query('SELECT pg_advisory_unlock_all()');
      await service.close();
      await importing.close();
      await serving.close();
    }
  });

  it("imports beside a store of another schema whose import holds its lock: the locks are each store's own", async () => {
    const busy = schemaName('busy');
    const free = schemaName('free');
    const store = await PgStore.open({ url: TEST_PG_URL, schema: free, poolSize: 1 });
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [IMPORT_LOCK + busy]);
    try {
      await importLines(store, [playerLine('nova'), matchLine(1)]);
      expect(await store.playerById('title_a', 'pc_store_a', 'nova')).toMatchObject({ id: 'nova' });
    } finally {
      await admin.query('SELECT pg_advisory_unlock_all()');
      await store.close();
    }
  });

  it('fails an import whose connection is terminated in its transaction, changes nothing, goes on living, and answers lookups', async () => {
    const schema = schemaName('import');
    const store = await PgStore.open({ url: urlOf(schema), schema, poolSize: 2 });
    try {
      const matches = 3_000;
      // The import is made to wait in its transaction (on the lock importers take turns with), so
      // that it is surely there when its backend is terminated.
      const lines = async function* () {
        for (let i = 0; i < matches; i++) {
          if (i === 1_000) await admin.query('SELECT pg_advisory_lock(hashtext($1))', [IMPORT_LOCK + schema]);
          yield matchLine(i);
        }
      };
      const outcome = importLines(store, lines()).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      await terminateWaiting(schema);
      const error = await outcome;
      expect(error?.message).toMatch(/^lost the connection to PostgreSQL: /);
      // Nothing of it is taken; the pool replaced the dead connection, and the next import goes through.
      expect(await store.counts()).toEqual({ players: 0, matches: 0 });
      await admin.query('SELECT pg_advisory_unlock_all()');
      await importLines(store, [matchLine(1)]);
      expect(await store.playerById('title_a', 'pc_store_a', 'p3')).toMatchObject({ id: 'p3' });
    } finally {
      await admin.query('SELECT pg_advisory_unlock_all()');
      await store.close();
    }
  });

  it('starts over existing tables while another session holds players locked, and answers once the lock is let go', async () => {
    const schema = schemaName('locked');
    await existingStore(schema);
    const locker = new pg.Client(TEST_PG_URL);
    await locker.connect();
    let store: PgStore | undefined;
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.players IN ACCESS EXCLUSIVE MODE`);
      // A statement deadline of 3 s: creating the tables would have waited that long and failed.
      store = await PgStore.open({ url: TEST_PG_URL, schema, statementTimeoutMs: 3_000, poolSize: 2 });
      expect(Number(await store.getMeta('generation'))).toBeGreaterThanOrEqual(1);
      const lookup = store.playerById('title_a', 'pc_store_a', 'nova');
      await sleep(200);
      await locker.query('COMMIT');
      expect(await lookup).toMatchObject({ id: 'nova' });
    } finally {
      await locker.end();
      await store?.close();
    }
  });

  it('creates what is missing once a lock held for a while is let go, and fails saying a lock held it when it is not', async () => {
    const schema = schemaName('ddl');
    await existingStore(schema);
    await admin.query(`DROP INDEX ${pg.escapeIdentifier(schema)}.players_by_vanity`);
    const locker = new pg.Client(TEST_PG_URL);
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`LOCK TABLE ${pg.escapeIdentifier(schema)}.players IN ACCESS EXCLUSIVE MODE`);
      await expect(PgStore.open({ url: TEST_PG_URL, schema, poolSize: 2 })).rejects.toThrow(/a lock another PostgreSQL session holds on them/);

      const started = performance.now();
      const opening = PgStore.open({ url: TEST_PG_URL, schema, poolSize: 2 });
      await sleep(2_500);
      await locker.query('COMMIT');
      const store = await opening;
      // It waited out the first try's lock timeout (2 s) and got through on another.
      expect(performance.now() - started).toBeGreaterThan(2_500);
      expect(await store.sql("SELECT to_regclass('players_by_vanity')::text AS index")).toEqual([{ index: 'players_by_vanity' }]);
      await store.close();
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
      await locker.end();
    }
  });
});
