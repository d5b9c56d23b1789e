// Starts the real stats service on an ephemeral loopback port for a test file, over the store the
// run is for: SQLite by default, PostgreSQL when TEST_STORE=postgres (the service suite runs under
// both; see vitest.config.ts). Each PostgreSQL store lives in a schema of its own, dropped at close.
import { randomBytes } from 'node:crypto';

import pg from 'pg';

import { demoLines } from '../../src/service/demo.js';
import { importLines } from '../../src/service/import.js';
import { startStatsServer, type ServiceOptions } from '../../src/service/server.js';
import { PgStore } from '../../src/service/pg-store.js';
import type { Store } from '../../src/service/store-api.js';
import { StatsStore } from '../../src/service/store.js';

export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TEST_STORE === 'postgres' ? 'postgres' : 'sqlite';
export const TEST_PG_URL = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh, empty store of the kind this run tests. */
export async function createTestStore(): Promise<Store> {
  if (TEST_STORE === 'sqlite') return new StatsStore();
  const schema = `test_${process.pid}_${randomBytes(4).toString('hex')}`;
  let store: PgStore;
  try {
    store = await PgStore.open({ url: TEST_PG_URL, schema, poolSize: 4 });
  } catch (e) {
    throw new Error(
      `the service tests need PostgreSQL at ${TEST_PG_URL} (TEST_STORE=postgres) and could not reach it: ${(e as Error).message}. ` +
        'Start it with: pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    );
  }
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    const client = new pg.Client(TEST_PG_URL);
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
    } finally {
      await client.end();
    }
  };
  return store;
}

export interface TestService {
  url: string;
  store: Store;
  /** GET (or another method) a path; the body parsed as JSON when it is JSON. */
  request(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: unknown; text: string }>;
  close(): Promise<void>;
}

export async function startService(lines: Iterable<string> = demoLines(), options: Omit<ServiceOptions, 'store'> = {}): Promise<TestService> {
  const store = await createTestStore();
  const summary = await importLines(store, lines);
  if (summary.refused > 0) throw new Error(`fixture refused: ${JSON.stringify(summary.refusedLines)}`);
  const running = await startStatsServer({ store, ...options });
  return {
    url: running.url,
    store,
    async request(path, init) {
      const res = await fetch(running.url + path, init);
      const text = await res.text();
      let body: unknown = undefined;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: res.status, headers: res.headers, body, text };
    },
    async close() {
      await running.close();
      await store.close();
    },
  };
}
