// The README's promises: every example request it shows answers as it says, `$B` ones on the demo
// data and `$M` ones on the example dataset.
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { smallLines } from './fixtures/small-dataset.js';
import { startService, type TestService } from './helpers/service.js';

const examples = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => /^curl "\$([BM])([^"]+)"\s*(?:#\s*(\d{3})?.*)?$/.exec(line))
  .filter((m): m is RegExpExecArray => m !== null)
  .map((m) => ({ on: m[1] as 'B' | 'M', path: m[2] ?? '', status: Number(m[3] ?? 200) }));

const services: Partial<Record<'B' | 'M', TestService>> = {};
beforeAll(async () => {
  services.B = await startService();
  services.M = await startService(smallLines());
});
afterAll(async () => {
  await services.B?.close();
  await services.M?.close();
});

describe('README examples', () => {
  it('shows example requests for the demo and for the example dataset', () => {
    expect(examples.filter((e) => e.on === 'B').length).toBeGreaterThanOrEqual(12);
    expect(examples.filter((e) => e.on === 'M').length).toBeGreaterThanOrEqual(8);
  });

  it.each(examples)('$on $path answers $status', async ({ on, path, status }) => {
    const res = await services[on]!.request(path);
    expect(res.status, res.text.slice(0, 200)).toBe(status);
    expect(res.body).toHaveProperty(status === 200 ? 'data' : 'errors');
  });
});
