// The bot's embedded service keeps its store in a file across restarts and imports again only when
// the dataset changed; then the store holds exactly the new dataset.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { startEmbeddedService } from '../../src/service/embedded.js';

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
    expect((await third.store.counts()).matches).toBeGreaterThan(0);
    await third.close();
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
});
