// PostgreSQL whose connection goes silent (a network partition, a failover that drops packets):
// the server's statement_timeout cannot end that wait, so a lookup gives up on its own, and the
// check of other processes' imports says once that it fails and once that it is back.
import { createServer, Socket, type Server } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PgStore } from '../../src/service/pg-store.js';
import { TEST_PG_URL } from '../helpers/service.js';

const target = new URL(TEST_PG_URL);
const schema = `silent_${process.pid}_${Date.now()}`;
let relay: Server;
let silent = false;
const sockets = new Set<Socket>();

beforeAll(async () => {
  // A TCP relay to PostgreSQL that, once silent, passes nothing either way and closes nothing.
  relay = createServer((client) => {
    const server = new Socket();
    server.connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, server]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    client.on('data', (d) => void (silent || server.write(d)));
    server.on('data', (d) => void (silent || client.write(d)));
    client.on('close', () => server.destroy());
    server.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => relay.close(() => resolve()));
  const client = new pg.Client(TEST_PG_URL);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await client.end();
});

describe('PostgreSQL gone silent', () => {
  it('ends a lookup after its deadline, and tells the operator once when the import check fails and once when it is back', async () => {
    const url = new URL(TEST_PG_URL);
    url.host = `127.0.0.1:${(relay.address() as { port: number }).port}`;
    const lines: { level: string; msg: string }[] = [];
    const logger = {
      warn: (_o: unknown, msg?: string) => void lines.push({ level: 'warn', msg: msg ?? '' }),
      info: (o: unknown, msg?: string) => void lines.push({ level: 'info', msg: typeof o === 'string' ? o : (msg ?? '') }),
    };
    const store = await PgStore.open({ url: url.toString(), schema, statementTimeoutMs: 500, poolSize: 2, logger: logger });
    try {
      expect(await store.playerById('title_a', 'pc_store_a', 'nobody')).toBeUndefined();
      silent = true;
      const started = performance.now();
      await expect(store.playerById('title_a', 'pc_store_a', 'nobody')).rejects.toThrow(/timeout/i);
      const ms = performance.now() - started;
      // statement_timeout (500 ms) + 2 s on this side; without it, the wait lasts as long as TCP's.
      expect(ms).toBeGreaterThan(2_000);
      expect(ms).toBeLessThan(6_000);
      // The import check (every 2 s) fails: told once, however many polls fail.
      for (let i = 0; i < 80 && !lines.some((l) => l.level === 'warn'); i++) await sleep(100);
      await sleep(2_500);
      expect(lines.filter((l) => l.msg.includes('import generation'))).toHaveLength(1);
      silent = false;
      for (let i = 0; i < 100 && !lines.some((l) => l.level === 'info'); i++) await sleep(100);
      expect(lines.filter((l) => l.level === 'info').map((l) => l.msg)).toEqual([expect.stringContaining('PostgreSQL answers again')]);
      expect(await store.playerById('title_a', 'pc_store_a', 'nobody')).toBeUndefined();
    } finally {
      silent = false;
      await store.close();
    }
  }, 30_000);
});
