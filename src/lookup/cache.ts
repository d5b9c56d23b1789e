// The lookup cache: Keyv in memory by default, or Redis (`CACHE_URL=redis://...`) shared by several
// bot processes. A cache failure is a miss, never a user error: when Redis is unreachable, lookups
// go on uncached, the failure is logged once, and caching resumes by itself when Redis is back.
// The Redis client (./redis.ts) is loaded only when a Redis URL is configured.
import { Keyv } from 'keyv';
import type { Logger } from 'pino';

import { BoundedMemoryStore } from './memory-store.js';
import { withTimeout } from './within.js';

export interface LookupCache {
  /** The stored value, or undefined on a miss or a cache failure. Never throws. */
  get(key: string): Promise<unknown>;
  /** Stores a value for `ttlMs`. Never throws. */
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  /** Whether the cache answered its last operation. */
  readonly healthy: boolean;
  /**
   * True when `get` returns the very objects given to `set` (memory): they were checked when
   * stored, need no parse, and must not be changed by whoever reads them.
   */
  readonly keepsObjects?: boolean;
  /** Resolves when the cache answers one read within its deadline, rejects otherwise (readiness). */
  ping?(): Promise<void>;
  close(): Promise<void>;
}

export interface CacheOptions {
  /** `redis://[user:password@]host:port[/db]`; memory when undefined. */
  url?: string | undefined;
  /** Prefix of every key, so that several projects can share one Redis. */
  namespace?: string;
  logger?: Logger | undefined;
  /** How long one cache operation may take before it counts as a failure. */
  operationTimeoutMs?: number;
  /** While the cache is down, how often one operation is let through to see whether it is back. */
  probeIntervalMs?: number;
  /** In memory: approximate bytes at most (least recently used entries go first). */
  maxBytes?: number;
  /** In memory: entries at most. */
  maxEntries?: number;
}

/** The in-memory cache's bounds unless configured: a cached answer is a few kilobytes. */
export const DEFAULT_MEMORY_CACHE = { maxBytes: 32 * 2 ** 20, maxEntries: 50_000 };

/** Keyv behind a guard: bounded operations, and an up/down state that is logged once per change. */
class GuardedCache implements LookupCache {
  private down = false;
  private nextProbe = 0;

  constructor(
    private readonly keyv: Keyv,
    private readonly options: Required<Pick<CacheOptions, 'operationTimeoutMs' | 'probeIntervalMs'>> & { logger?: Logger | undefined },
    private readonly onClose: () => Promise<void>,
    readonly keepsObjects = false,
  ) {}

  /** Starts in the down state (the first connection failed): logged once, probed like any outage. */
  markDown(reason: string): void {
    this.down = true;
    this.nextProbe = Date.now() + this.options.probeIntervalMs;
    this.options.logger?.warn({ reason }, 'cache unavailable; lookups continue uncached');
  }

  get healthy(): boolean {
    return !this.down;
  }

  private async run<T>(operation: () => Promise<T>): Promise<T | undefined> {
    if (this.down && Date.now() < this.nextProbe) return undefined;
    if (this.down) this.nextProbe = Date.now() + this.options.probeIntervalMs;
    try {
      const value = await withTimeout(operation(), this.options.operationTimeoutMs);
      if (this.down) {
        this.down = false;
        this.options.logger?.info('cache reachable again; caching resumes');
      }
      return value;
    } catch (e) {
      if (!this.down) {
        this.down = true;
        this.nextProbe = Date.now() + this.options.probeIntervalMs;
        this.options.logger?.warn({ reason: (e as Error).message }, 'cache unavailable; lookups continue uncached');
      }
      return undefined;
    }
  }

  get(key: string): Promise<unknown> {
    return this.run(() => this.keyv.get(key));
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    await this.run(() => this.keyv.set(key, value, ttlMs));
  }

  /** One real read, bypassing the down state: readiness asks whether the cache answers now. */
  async ping(): Promise<void> {
    await withTimeout(this.keyv.get('readiness-probe'), this.options.operationTimeoutMs, 'the lookup cache');
  }

  close(): Promise<void> {
    return this.onClose();
  }
}

/**
 * Creates the cache: Redis when `url` is given, memory otherwise. Waits up to `connectTimeoutMs` for
 * Redis; when it is not there, the cache starts down and lookups go uncached until it comes.
 */
export async function createLookupCache(options: CacheOptions & { connectTimeoutMs?: number } = {}): Promise<LookupCache> {
  const guard = {
    operationTimeoutMs: options.operationTimeoutMs ?? 250,
    probeIntervalMs: options.probeIntervalMs ?? 1_000,
    logger: options.logger,
  };
  const namespace = options.namespace ?? 'player-stats';
  if (!options.url) {
    const store = new BoundedMemoryStore({
      maxBytes: options.maxBytes ?? DEFAULT_MEMORY_CACHE.maxBytes,
      maxEntries: options.maxEntries ?? DEFAULT_MEMORY_CACHE.maxEntries,
    });
    // No serialize/deserialize: values stay objects, so a hit costs no JSON round trip.
    const keyv = new Keyv({ store, namespace, serialize: undefined, deserialize: undefined });
    return new GuardedCache(
      keyv,
      guard,
      async () => {
        await keyv.disconnect();
        store.close();
      },
      true,
    );
  }
  const { keyvOnRedis, notConnected } = await import('./redis.js');
  const { keyv, ready, lastError, close } = keyvOnRedis(options.url, namespace);
  const cache = new GuardedCache(keyv, guard, close);
  try {
    await withTimeout(ready, options.connectTimeoutMs ?? 1_000);
  } catch (e) {
    cache.markDown(notConnected(e as Error, lastError()));
  }
  return cache;
}
