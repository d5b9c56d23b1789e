import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { parseDatasetLine } from '../../src/service/dataset.js';
import { importFile, importLines } from '../../src/service/import.js';
import { StatsStore } from '../../src/service/store.js';
import { smallLines } from '../fixtures/small-dataset.js';

const snapshot = (store: StatsStore) => ({
  players: store.db.prepare('SELECT * FROM players ORDER BY title, platform, id_norm').all(),
  matches: store.db.prepare('SELECT * FROM matches ORDER BY title, id').all(),
  rows: store.db.prepare('SELECT * FROM match_players ORDER BY title, match_id, platform, player').all(),
  totals: store.db.prepare('SELECT * FROM player_totals ORDER BY title, platform, player, key').all(),
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
      JSON.stringify({ type: 'match', title: 'title_a', platform: 'pc_store_a', id: 'm', startedAt: '2026-01-01T00:00:00Z', durationSeconds: 1, players: [{ id: 'a', platform: 'pc_store_a', stats: { kills: 'many' } }] }),
      JSON.stringify({ type: 'team', title: 'title_a' }),
      JSON.stringify({ type: 'player', title: 'title_a', platform: 'console_a', id: 'bad/slash', handle: 'x' }),
      ...good.slice(1),
    ];
    const refused: { line: number; reason: string }[] = [];
    const store = new StatsStore();
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
    expect(store.counts()).toEqual({ players: 9, matches: 9 });
  });

  it('changes nothing when the same file is imported twice', async () => {
    const store = new StatsStore();
    await importLines(store, smallLines());
    const first = snapshot(store);
    const again = await importLines(store, smallLines());
    expect(again.refused).toBe(0);
    expect(snapshot(store)).toEqual(first);
  });

  it('replaces a match imported again under the same id, totals included', async () => {
    const store = new StatsStore();
    await importLines(store, smallLines());
    const ash = store.playerById('title_a', 'pc_store_a', '76561198000000042')!;
    expect(store.totalsOf(ash).kills).toBe(30);
    const knight = store.playerById('title_a', 'console_a', 'Ashen Knight')!;
    expect(store.totalsOf(knight).matchesPlayed).toBe(2);
    // a-1 again, now without Ashen Knight and with 20 kills for Ash.
    await importLines(store, [
      JSON.stringify({ type: 'match', title: 'title_a', platform: 'pc_store_a', id: 'a-1', startedAt: '2026-11-01T18:00:00Z', durationSeconds: 600, players: [{ id: '76561198000000042', platform: 'pc_store_a', result: 'win', stats: { kills: 20, deaths: 5 } }] }),
    ]);
    expect(store.totalsOf(ash).kills).toBe(40);
    expect(store.totalsOf(knight).matchesPlayed).toBe(1);
    expect(store.counts().matches).toBe(9);
  });

  it('keeps a player record’s handle over an implicit one, whatever the order', async () => {
    const store = new StatsStore();
    await importLines(store, [
      JSON.stringify({ type: 'match', title: 'title_c', platform: 'console_b', id: 'x-1', startedAt: '2026-11-01T18:00:00Z', durationSeconds: 60, players: [{ id: 'late_one', platform: 'console_b', stats: { kills: 1 } }] }),
      JSON.stringify({ type: 'player', title: 'title_c', platform: 'console_b', id: 'Late_One', handle: 'Late One', avatarUrl: null }),
    ]);
    expect(store.playerById('title_c', 'console_b', 'LATE_ONE')).toMatchObject({ handle: 'Late One', id: 'Late_One' });
    const implicit = await importLines(new StatsStore(), [
      JSON.stringify({ type: 'match', title: 'title_c', platform: 'console_b', id: 'x-1', startedAt: '2026-11-01T18:00:00Z', durationSeconds: 60, players: [{ id: 'solo', platform: 'console_b', stats: {} }] }),
    ]);
    expect(implicit.taken).toBe(1);
  });

  it('refuses a vanity name on a platform that has none', () => {
    const r = parseDatasetLine(JSON.stringify({ type: 'player', title: 'title_c', platform: 'console_a', id: 'x', handle: 'x', vanity: 'xx' }));
    expect(r).toEqual({ reason: 'vanity: console_a has no vanity names' });
  });

  it('refuses a match naming the same player twice', () => {
    const r = parseDatasetLine(JSON.stringify({ type: 'match', title: 'title_c', platform: 'console_b', id: 'x', startedAt: '2026-11-01T18:00:00Z', durationSeconds: 60, players: [{ id: 'A', platform: 'console_b', stats: {} }, { id: 'a', platform: 'console_b', stats: {} }] }));
    expect(r).toEqual({ reason: 'players.1.id: player a appears twice' });
  });

  it('streams a file and reports progress in bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-import-'));
    const file = join(dir, 'data.jsonl');
    writeFileSync(file, smallLines().join('\r\n') + '\n\n');
    const progress: [number, number][] = [];
    const summary = await importFile(new StatsStore(), file, { batchSize: 5, onBytes: (read, total) => progress.push([read, total]) });
    expect(summary.taken).toBe(smallLines().length);
    expect(summary.refused).toBe(0);
    expect(progress.length).toBeGreaterThan(2);
    expect(progress.at(-1)?.[0]).toBe(progress.at(-1)?.[1]);
  });
});
