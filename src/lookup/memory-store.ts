// A bounded in-memory Keyv store: the lookup cache and the bot's paged-reply views when there is no
// Redis. Least recently used entries go first once the bound is reached, expired ones are swept on a
// timer (not only when their key is read again), and values stay objects: a hit costs no parse.
import { LRUCache } from 'lru-cache';

export interface MemoryStoreOptions {
  /** Entries at most. */
  maxEntries: number;
  /** Approximate heap bytes at most (each value's estimated heap cost, `heapBytes`, measured once when it is stored). */
  maxBytes?: number | undefined;
  /** How often expired entries are swept. */
  sweepIntervalMs?: number;
}

/** What one entry costs the heap beyond its value: the key, the LRU's node and Keyv's wrapper. */
export const ENTRY_OVERHEAD_BYTES = 512;

/**
 * The heap bytes an entry of this value costs, estimated from its JSON length. Measured on the
 * lookup answers of the demo data (heap after a full GC against JSON length): a parsed value holds
 * 1.3 times its JSON (large match lists) to 1.6 times (profiles), and each entry some 450 bytes
 * more (search answers of a few results cost 500 bytes on the heap for 70 of JSON). Counting the
 * JSON alone let the cache hold up to seven times its bound.
 */
export function heapBytes(value: unknown): number {
  let known = 0;
  // A value whose JSON length is already known (an answer, from its body) is not serialised again:
  // a busy player's sessions run to megabytes, a long block of the event loop to stringify.
  const json = JSON.stringify(value, (_key, v: unknown) => {
    const length = typeof v === 'object' && v !== null ? jsonLengths.get(v) : undefined;
    if (length === undefined) return v;
    // Written as `0`: one character of the length counted.
    known += length - 1;
    return 0;
  });
  return Math.ceil(1.5 * ((json?.length ?? 0) + known)) + ENTRY_OVERHEAD_BYTES;
}

const jsonLengths = new WeakMap<object, number>();

/** Tells `heapBytes` the JSON length of a value read from a body of that length, so that storing it costs no serialisation. */
export function knownJsonLength(value: object, length: number): void {
  jsonLengths.set(value, length);
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
      ...(options.maxBytes ? { maxSize: options.maxBytes, sizeCalculation: (value: object) => heapBytes(value) } : {}),
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
