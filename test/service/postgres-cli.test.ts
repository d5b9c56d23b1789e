// Several service processes sharing one PostgreSQL database: one imports, another serves the same
// answers, and a later import by a third process reaches the second without a restart.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';

import { TEST_PG_URL } from '../helpers/service.js';

const schema = `cli_${process.pid}_${Date.now()}`;
const db = `${TEST_PG_URL}?schema=${schema}`;
const dir = mkdtempSync(join(tmpdir(), 'stats-pg-cli-'));
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await sleep(300);
  const client = new pg.Client(TEST_PG_URL);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(schema)} CASCADE`);
  await client.end();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `npm run service` with the arguments; resolves with its URL once it listens. */
async function service(args: string[]): Promise<{ url: string; output: () => string }> {
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/service/main.ts', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  for (let i = 0; i < 300; i++) {
    const m = /listening on (http:\/\/\S+)/.exec(output);
    if (m?.[1]) return { url: m[1], output: () => output };
    if (child.exitCode !== null) break;
    await sleep(100);
  }
  throw new Error(`the service did not start: ${output}`);
}

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { data?: { segments?: { stats: Record<string, { value: number }> }[] } } };
};

describe('service processes sharing PostgreSQL', () => {
  it('serve the same data, and follow an import made by another process', async () => {
    const data = join(dir, 'data.jsonl');
    const lines = readFileSync('examples/small-dataset.jsonl', 'utf8').trimEnd().split('\n');
    writeFileSync(data, lines.join('\n'));
    const importer = await service(['--db', db, '--data', data]);
    expect(importer.output()).not.toContain('password');
    const reader = await service(['--db', db]);
    expect(reader.output()).toMatch(/serving the existing store/);
    const path = '/v2/title_a/standard/profile/pc_store_a/ashplays';
    const a = await get(importer.url + path);
    const b = await get(reader.url + path);
    expect(a.status).toBe(200);
    // The same answer, but for the expiry dates (each process's clock).
    const timeless = (body: unknown) => JSON.stringify(body).replace(/"expiryDate":"[^"]*"/g, '');
    expect(timeless(b.body)).toBe(timeless(a.body));
    expect(b.body.data?.segments?.[0]?.stats.kills?.value).toBe(30);

    // Another process imports a match that gives ashplays 5 more kills.
    const extra = JSON.stringify({
      type: 'match',
      title: 'title_a',
      platform: 'pc_store_a',
      id: 'a-extra',
      startedAt: '2026-11-05T18:00:00Z',
      durationSeconds: 600,
      players: [{ id: '76561198000000042', platform: 'pc_store_a', result: 'win', stats: { kills: 5, deaths: 1 } }],
    });
    writeFileSync(data, [...lines, extra].join('\n'));
    await service(['--db', db, '--data', data]);
    let kills = 0;
    for (let i = 0; i < 50 && kills !== 35; i++) {
      kills = (await get(reader.url + path)).body.data?.segments?.[0]?.stats.kills?.value ?? 0;
      if (kills !== 35) await sleep(200);
    }
    expect(kills).toBe(35);
  });

  it('never fill an empty shared database with the demo data: a process started before the first import serves what it holds', async () => {
    const empty = `${TEST_PG_URL}?schema=${schema}_empty`;
    const reader = await service(['--db', empty]);
    expect(reader.output()).toMatch(/the database holds no matches yet: a process started with --data/);
    const client = new pg.Client(TEST_PG_URL);
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*)::int AS n FROM ${pg.escapeIdentifier(`${schema}_empty`)}.matches`);
      expect(rows[0]?.n).toBe(0);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS ${pg.escapeIdentifier(`${schema}_empty`)} CASCADE`);
      await client.end();
    }
  });
});
