// The stats service's health and metrics: `/healthz` and `/readyz` on the interface port (outside
// its /v1 and /v2 paths, no API key), and `/metrics` on the metrics listener counting requests by
// route and status, their latency and the store's query time.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHealthServer, type HealthServer } from '../../src/observe/health-server.js';
import { demoLines } from '../../src/service/demo.js';
import { importLines } from '../../src/service/import.js';
import { createServiceMetrics } from '../../src/service/metrics.js';
import { startStatsServer, storeReadiness, type RunningService } from '../../src/service/server.js';
import type { Store } from '../../src/service/store-api.js';
import { memoryLogger } from '../helpers/lookup.js';
import { createTestStore } from '../helpers/service.js';

const KEY = 'health-test-key';
let store: Store;
let service: RunningService;
let health: HealthServer;
let closed = false;
const { logger, logs } = memoryLogger();

beforeAll(async () => {
  const metrics = createServiceMetrics();
  const raw = await createTestStore();
  await importLines(raw, demoLines());
  store = metrics.timed(raw);
  service = await startStatsServer({ store, apiKeys: [KEY], metrics: metrics.requests, logger });
  health = await startHealthServer({ port: 0, registry: metrics.registry, readiness: storeReadiness(store), logger });
});

afterAll(async () => {
  await service.close();
  await health.close();
  if (!closed) await store.close();
});

const get = (path: string, key?: string) => fetch(service.url + path, key ? { headers: { 'trn-api-key': key } } : {});
const line = (text: string, start: string) => text.split('\n').find((l) => l.startsWith(start));
const value = (text: string, start: string) => Number(line(text, start)?.split(' ').at(-1) ?? 0);

describe('the service’s health and metrics', () => {
  it('answers /healthz and /readyz on its own port without an API key, while the interface still wants one', async () => {
    const live = await get('/healthz');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await get('/v2/title_c/standard/profile/pc_store_c/Nova%232231')).status).toBe(401);
    // /metrics is the metrics listener's, not the interface's.
    expect((await get('/metrics', KEY)).status).toBe(404);
  });

  it('counts requests by route and status, their latency, and the store’s query time, with no identifier in a label', async () => {
    expect((await get('/v2/title_c/standard/profile/pc_store_c/Nova%232231', KEY)).status).toBe(200);
    expect((await get('/v2/title_c/standard/profile/pc_store_c/NoSuchPlayerHere', KEY)).status).toBe(404);
    expect((await get('/v9/nothing', KEY)).status).toBe(404);
    const res = await fetch(`${health.url}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(value(text, 'service_requests_total{route="title_c.profile",status="200"}')).toBe(1);
    expect(value(text, 'service_requests_total{route="title_c.profile",status="404"}')).toBe(1);
    // No endpoint: /v9/nothing here, /metrics in the test above.
    expect(value(text, 'service_requests_total{route="none",status="404"}')).toBe(2);
    expect(value(text, 'service_requests_total{route="none",status="401"}')).toBe(1);
    expect(value(text, 'service_request_duration_seconds_count{route="title_c.profile"}')).toBe(2);
    expect(value(text, `service_store_query_seconds_count{operation="playerById",store="${store.kind}"}`)).toBeGreaterThanOrEqual(2);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(text).not.toMatch(/Nova|NoSuchPlayer|nothing/);
  });

  it('names what is not ready once the store cannot answer, and tells why to the log only', async () => {
    await store.close();
    closed = true;
    for (const url of [`${service.url}/readyz`, `${health.url}/readyz`]) {
      const res = await fetch(url);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; failed: Record<string, unknown>[] };
      expect(body).toEqual({ status: 'not ready', failed: [{ check: 'store' }] });
    }
    const warned = logs()
      .split('\n')
      .filter((l) => l.includes('"msg":"not ready"'))
      .map((l) => JSON.parse(l) as { failed: { check: string; reason: string }[] });
    expect(warned.length).toBeGreaterThan(0);
    expect(warned[0]?.failed[0]?.reason.length).toBeGreaterThan(0);
    expect((await fetch(`${health.url}/healthz`)).status).toBe(200);
  });
});

it('tells no caller of /readyz the address or the driver error of a store that is down', async () => {
  const down = { name: 'store', check: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:35829')) };
  const quiet = memoryLogger();
  const raw = await createTestStore();
  const refusing = await startStatsServer({ store: raw, apiKeys: [KEY], readiness: [down], logger: quiet.logger });
  try {
    for (const key of [undefined, 'wrong', KEY]) {
      const res = await fetch(`${refusing.url}/readyz`, key ? { headers: { 'trn-api-key': key } } : {});
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(text).not.toMatch(/127\.0\.0\.1|35829|ECONNREFUSED/);
      expect(JSON.parse(text)).toEqual({ status: 'not ready', failed: [{ check: 'store' }] });
    }
    expect(quiet.logs()).toContain('ECONNREFUSED 127.0.0.1:35829');
  } finally {
    await refusing.close();
    await raw.close();
  }
});
