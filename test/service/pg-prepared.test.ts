// PostgreSQL's hot statements are prepared once a connection, by name (src/service/pg-store.ts,
// PREPARED): they must be, and a prepared statement must go on answering when a column is added to
// the table it reads (a later version's migration, while this process runs).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { importLines } from '../../src/service/import.js';
import { PgStore } from '../../src/service/pg-store.js';
import { TEST_PG_URL, TEST_STORE } from '../helpers/service.js';

const schema = `pgprep_${process.pid}_${Date.now()}`;
let admin: pg.Client;

function matchLine(i: number): string {
  const players = Array.from({ length: 4 }, (_, j) => ({
    id: `p${i + j}`,
    platform: 'pc_store_a',
    result: j < 2 ? 'win' : 'loss',
    stats: { kills: j + 1, deaths: 2 },
  }));
  const startedAt = new Date(Date.UTC(2026, 0, 1) + i * 3_600_000).toISOString().replace('.000Z', 'Z');
  return JSON.stringify({ type: 'match', title: 'title_a', platform: 'pc_store_a', id: `m-${i}`, startedAt, durationSeconds: 600, players });
}

beforeAll(async () => {
  admin = new pg.Client(TEST_PG_URL);
  await admin.connect();
});

afterAll(async () => {
  await admin.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await admin.end();
});

describe.runIf(TEST_STORE === 'postgres')('PostgreSQL statements prepared once a connection', () => {
  it('prepares the hot statements under their names, and they still answer once a column is added to the table they read', async () => {
    // One connection: what it has prepared is what pg_prepared_statements shows it.
    const store = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 1 });
    try {
      await importLines(store, [matchLine(1), matchLine(2)]);
      const player = await store.playerById('title_a', 'pc_store_a', 'p1');
      expect(player?.id).toBe('p1');
      expect((await store.match('title_a', 'm-1'))?.players).toHaveLength(4);
      const prepared = (await store.sql('SELECT name FROM pg_prepared_statements')).map((r) => r.name);
      expect(prepared).toEqual(expect.arrayContaining(['playerById', 'match', 'participants4']));

      // A prepared `SELECT *` would now fail ("cached plan must not change result type").
      await admin.query(`ALTER TABLE ${pg.escapeIdentifier(schema)}.players ADD COLUMN added_later TEXT`);
      expect((await store.playerById('title_a', 'pc_store_a', 'p2'))?.id).toBe('p2');
      expect((await store.match('title_a', 'm-2'))?.players).toHaveLength(4);
    } finally {
      await store.close();
    }
  });
});
