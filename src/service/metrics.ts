// The stats service's Prometheus metrics (METRICS_PORT): requests by route and status and their
// latency, the store's query time by operation, and Node's own (memory, event loop delay, GC).
// Routes are the catalog's endpoints (`title_a.profile`), never a path: a player's name never
// becomes a label.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

import type { Store } from './store-api.js';

/** What the request handler tells the metrics, once per request. Cheap, never throws. */
export interface RequestObserver {
  /** `route`: an endpoint as `title.kind`, `health`, or `none` (no endpoint at that path, or refused before routing). */
  request(route: string, status: number, seconds: number): void;
}

export interface ServiceMetrics {
  registry: Registry;
  requests: RequestObserver;
  /** The store with each of its operations timed. */
  timed(store: Store): Store;
}

const REQUEST_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The store's reads and writes, timed; anything else (its kind, its generation) passes as it is. */
const TIMED_OPERATIONS = new Set([
  'importStages',
  'playerById',
  'playerByVanity',
  'playersByHandlePrefix',
  'aggregateRows',
  'keyCounts',
  'playerSummary',
  'timeline',
  'matchRowsSince',
  'matchPage',
  'ratings',
  'match',
  'totalsOf',
  'places',
  'counts',
  'getMeta',
  'setMeta',
]);

export function createServiceMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'service_requests_total',
    help: 'Requests answered, by route (title.kind of the endpoint) and HTTP status.',
    labelNames: ['route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'service_request_duration_seconds',
    help: 'From reading a request to its answer written, by route.',
    labelNames: ['route'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  const queries = new Histogram({
    name: 'service_store_query_seconds',
    help: 'Time of one store operation, by operation.',
    labelNames: ['operation', 'store'] as const,
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  return {
    registry,
    requests: {
      request(route, status, seconds) {
        requests.labels(route, String(status)).inc();
        latency.labels(route).observe(seconds);
      },
    },
    timed(store) {
      const wrapped = new Map<string, unknown>();
      return new Proxy(store, {
        get(target, name, receiver) {
          const value: unknown = Reflect.get(target, name, receiver);
          if (typeof name !== 'string' || typeof value !== 'function' || !TIMED_OPERATIONS.has(name)) return value;
          let fn = wrapped.get(name);
          if (!fn) {
            const child = queries.labels(name, target.kind);
            const original = value as (...args: unknown[]) => Promise<unknown>;
            fn = (...args: unknown[]) => {
              const started = performance.now();
              const done = () => child.observe((performance.now() - started) / 1000);
              const result = original.apply(target, args);
              result.then(done, done);
              return result;
            };
            wrapped.set(name, fn);
          }
          return fn;
        },
      });
    },
  };
}
