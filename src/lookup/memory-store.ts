// A bounded in-memory Keyv store: the lookup cache and the bot's paged-reply views when there is no
// Redis. Least recently used entries go first once the bound is reached, expired ones are swept on a
// timer (not only when their key is read again), and values stay objects: a hit costs no parse.
import { LRUCache } from 'lru-cache';

export interface MemoryStoreOptions {
  /** Entries at most. */
  maxEntries: number;
  /** Approximate bytes at most (the JSON length of each value, measured once when it is stored). */
  maxBytes?: number | undefined;
  /** How often expired entries are swept. */
  sweepIntervalMs?: number;
}

/**
 * A Keyv store (Keyv 5 calls `get`, `set(key, value, ttl)`, `delete`, `clear`) over an LRU cache.
 * Values are kept as given: callers must not change what `get` returns.
 */
export class BoundedMemoryStore {
  private readonly lru: LRUCache<string, object>;
  private readonly sweeper: NodeJS.Timeout;
  /** Keyv sets this; keys already carry it as a prefix. */
  namespace?: string;

  constructor(options: MemoryStoreOptions) {
    this.lru = new LRUCache<string, object>({
      max: options.maxEntries,
      ...(options.maxBytes ? { maxSize: options.maxBytes, sizeCalculation: (value: object) => Math.max(1, JSON.stringify(value)?.length ?? 1) } : {}),
    });
    this.sweeper = setInterval(() => this.lru.purgeStale(), options.sweepIntervalMs ?? 30_000);
    this.sweeper.unref();
  }

  get(key: string): object | undefined {
    return this.lru.get(key);
  }

  set(key: string, value: object, ttl?: number): boolean {
    this.lru.set(key, value, typeof ttl === 'number' && ttl > 0 ? { ttl } : {});
    return true;
  }

  delete(key: string): boolean {
    return this.lru.delete(key);
  }

  clear(): void {
    this.lru.clear();
  }

  has(key: string): boolean {
    return this.lru.has(key);
  }

  /** Entries held now. */
  get size(): number {
    return this.lru.size;
  }

  /** Approximate bytes held now (0 when not bounded by bytes). */
  get bytes(): number {
    return this.lru.calculatedSize;
  }

  close(): void {
    clearInterval(this.sweeper);
    this.lru.clear();
  }
}
