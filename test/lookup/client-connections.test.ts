// Slow answers must not hold quick ones back: the client's own pool opens enough connections that
// lookups in flight to a service holding each of them are sent at once, not queued behind 32.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { createLookupCache } from '../../src/lookup/cache.js';
import { LOOKUP_CONNECTIONS, LookupClient } from '../../src/lookup/client.js';

describe('connections to the stats service', () => {
  it('sends 100 slow lookups at once rather than queueing them behind a small pool', async () => {
    let inflight = 0;
    let most = 0;
    let release: () => void = () => undefined;
    const allIn = new Promise<void>((resolve) => (release = resolve));
    const server = createServer((_req, res) => {
      inflight++;
      most = Math.max(most, inflight);
      if (inflight >= 100) release();
      // Held until every lookup has arrived (or 3 s): a pool smaller than 100 never gets there.
      void Promise.race([allIn, new Promise((r) => setTimeout(r, 3_000))]).then(() => {
        inflight--;
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end(JSON.stringify({ errors: [{ code: 'CollectorResultStatus::NotFound', message: 'no such player', data: {} }] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const cache = await createLookupCache();
    const client = new LookupClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, cache, maxAttempts: 1 });
    try {
      await Promise.all(Array.from({ length: 100 }, (_, i) => client.profile('title_c', 'pc_store_c', `nobody-${i}`, { deadlineMs: 8_000 })));
      expect(LOOKUP_CONNECTIONS).toBeGreaterThanOrEqual(100);
      expect(most).toBe(100);
    } finally {
      await client.close();
      await cache.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
