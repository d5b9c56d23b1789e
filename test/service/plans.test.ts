// The hot statements find their rows through an index, with or without planner statistics: a scan
// of a whole title (the match report once walked every row of its title) fails here.
import { describe, expect, it } from 'vitest';

import { demoLines } from '../../src/service/demo.js';
import { importLines } from '../../src/service/import.js';
import { StatsStore } from '../../src/service/store.js';

describe('query plans of the hot statements (SQLite)', () => {
  it.each([
    ['an empty store', false],
    ['the demo data, statistics gathered', true],
  ])('use an index on %s', async (_, filled) => {
    const store = new StatsStore();
    try {
      if (filled) await importLines(store, demoLines());
      const plans = await store.hotPlans();
      expect(plans.length).toBeGreaterThanOrEqual(10);
      for (const { name, plan } of plans) {
        expect(plan, name).toMatch(/SEARCH/);
        expect(plan, name).not.toMatch(/^SCAN /m);
        // A search by the title alone walks the whole title: the trap the match report fell into.
        expect(plan, name).not.toMatch(/\((?:mp\.)?title=\?\)/);
      }
    } finally {
      await store.close();
    }
  });
});
