// The hot statements find their rows through an index, with or without planner statistics: a scan
// of a whole title (the match report once walked every row of its title) fails here.
import { describe, expect, it } from 'vitest';

import { demoLines } from '../../src/service/demo.js';
import { importLines } from '../../src/service/import.js';
import { TEST_STORE, createTestStore } from '../helpers/service.js';

describe(`query plans of the hot statements (${TEST_STORE})`, () => {
  // SQLite's plans for these statements do not depend on statistics (the store names its indexes
  // where it must); PostgreSQL's do, and the import gathers them (ANALYZE) before it ends.
  const cases: [string, boolean][] = [['the demo data, statistics gathered', true]];
  if (TEST_STORE === 'sqlite') cases.unshift(['an empty store', false]);
  it.each(cases)('use an index on %s', async (_, filled) => {
    const store = await createTestStore();
    try {
      if (filled) await importLines(store, demoLines());
      const plans = await store.hotPlans();
      expect(plans.length).toBeGreaterThanOrEqual(10);
      for (const { name, plan } of plans) {
        if (TEST_STORE === 'sqlite') {
          expect(plan, name).toMatch(/SEARCH/);
          expect(plan, name).not.toMatch(/^SCAN /m);
          // A search by the title alone walks the whole title: the trap the match report fell into.
          expect(plan, name).not.toMatch(/\((?:mp\.)?title=\?\)/);
        } else {
          expect(plan, name).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
          expect(plan, name).not.toMatch(/Seq Scan/);
          // Rows read and then filtered out: the index range was wider than the answer (a player by
          // id found by walking the platform's players, say).
          expect(plan, name).not.toMatch(/^\s*Filter:/m);
          // A lookup by the title alone walks the whole title.
          expect(plan, name).not.toMatch(/Index Cond: \(\(?title = [^)]*\)\)?$/m);
        }
      }
    } finally {
      await store.close();
    }
  });
});
