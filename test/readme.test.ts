// The README's promises: every example request it shows answers 200 on the demo data.
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startService, type TestService } from './helpers/service.js';

const examples = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
  .split('\n')
  .map((line) => /^curl "\$B([^"]+)"/.exec(line)?.[1])
  .filter((path): path is string => path !== undefined);

let service: TestService;
beforeAll(async () => {
  service = await startService();
});
afterAll(async () => {
  await service.close();
});

describe('README examples', () => {
  it('shows a dozen example requests', () => {
    expect(examples.length).toBeGreaterThanOrEqual(12);
  });

  it.each(examples)('GET %s answers 200 with data', async (path) => {
    const res = await service.request(path);
    expect(res.status, res.text.slice(0, 200)).toBe(200);
    expect(res.body).toHaveProperty('data');
  });
});
