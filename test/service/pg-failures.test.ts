// PostgreSQL failing under the store: the connection of an import is lost half-way (the process
// must not end, the import must), and a service process starts while another session holds a lock
// on the store's tables (it must not wait for it, nor wait forever when it has to create something).
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { PgStore } from '../../src/service/pg-store.js';
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

/** Waits for a session of `name` to wait on a lock, and ends it as an operator would. */
async function terminateWaiting(name: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const { rows } = await admin.query<{ done: boolean }>(
      "SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
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

describe.runIf(TEST_STORE === 'postgres')('PostgreSQL failing under the store', () => {
  it('fails an import whose connection is terminated half-way, goes on living, and still answers lookups', async () => {
    const schema = schemaName('import');
    const store = await PgStore.open({ url: urlOf(schema), schema, poolSize: 2 });
    try {
      const matches = 3_000;
      // After two batches are written, the next one is made to wait (on the lock importers take
      // turns with), so that it is surely in its transaction when its backend is terminated.
      const lines = async function* () {
        for (let i = 0; i < matches; i++) {
          if (i === 1_000) await admin.query("SELECT pg_advisory_lock(hashtext('player-stats import'))");
          yield matchLine(i);
        }
      };
      const outcome = importLines(store, lines(), { batchSize: 500 }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      await terminateWaiting(schema);
      const error = await outcome;
      expect(error?.message).toMatch(/^lost the connection to PostgreSQL: /);
      // The two batches before are whole; the pool replaced the dead connection.
      expect(await store.counts()).toEqual({ players: 500, matches: 1_000 });
      expect(await store.playerById('title_a', 'pc_store_a', 'p7')).toMatchObject({ id: 'p7' });
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
      expect(await store.getMeta('generation')).toBe('1');
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
