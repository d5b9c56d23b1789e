// A Keyv store in an SQLite file (better-sqlite3, already the service's driver): what keeps account
// links across restarts when no Redis is configured.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

import Database from 'better-sqlite3';
import { LRUCache } from 'lru-cache';

/** Keys whose stored text (or absence) is kept in memory: a profile reads its viewer's link every time. */
const READ_CACHE_ENTRIES = 10_000;
/**
 * And their text at most, in characters: a link is a hundred, but a server's member list (the same
 * store) can be 20 K, and 10,000 of those would be 200 MB.
 */
export const READ_CACHE_CHARS = 8_000_000;

const NONE = { none: true } as const;

export class SqliteKeyvStore {
  private readonly db: Database.Database;
  private readonly s;
  /** Keyv sets this; keys already carry it as a prefix. */
  namespace?: string;
  /**
   * What was last read or written per key (`null`: no row). Exact, since one process owns the file
   * (a second process on the same LINKS_DB is not supported); bounded, least recently used out first.
   */
  private readonly read = new LRUCache<string, string | { none: true }>({
    max: READ_CACHE_ENTRIES,
    maxSize: READ_CACHE_CHARS,
    // A text longer than the whole budget is not kept (lru-cache refuses it) and is read from the file each time.
    sizeCalculation: (value, key) => key.length + (typeof value === 'string' ? value.length : 1),
  });

  /** Reads the file, past the read cache (a readiness check): throws what SQLite throws when it cannot. */
  probe(): void {
    this.s.get.get('readiness-probe');
  }

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    // A lock held elsewhere fails an operation after 250 ms instead of freezing the process 5 s
    // (better-sqlite3's default): every call here is synchronous.
    this.db = new Database(path, { timeout: 250 });
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 250');
    this.db.exec('CREATE TABLE IF NOT EXISTS keyv (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID');
    this.s = {
      get: this.db.prepare('SELECT value FROM keyv WHERE key = ?').pluck(),
      set: this.db.prepare('INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      delete: this.db.prepare('DELETE FROM keyv WHERE key = ?'),
      clear: this.db.prepare('DELETE FROM keyv'),
      all: this.db.prepare('SELECT key, value FROM keyv').raw(),
      expired: this.db.prepare("SELECT key FROM keyv WHERE key >= ? AND key < ? AND json_extract(value, '$.expires') < ?").pluck(),
      count: this.db.prepare('SELECT count(*) FROM keyv WHERE key >= ? AND key < ?').pluck(),
    };
  }

  get(key: string): string | undefined {
    const known = this.read.get(key);
    if (known !== undefined) return typeof known === 'string' ? known : undefined;
    const value = this.s.get.get(key) as string | undefined;
    this.read.set(key, value ?? NONE);
    return value;
  }

  set(key: string, value: string): this {
    // A failed write leaves the cache without the key: the next read asks the file.
    this.read.delete(key);
    this.s.set.run(key, value);
    this.read.set(key, value);
    return this;
  }

  delete(key: string): boolean {
    this.read.delete(key);
    const deleted = this.s.delete.run(key).changes > 0;
    this.read.set(key, NONE);
    return deleted;
  }

  clear(): void {
    this.read.clear();
    this.s.clear.run();
  }

  /**
   * Deletes the rows under `prefix` whose time (Keyv's `expires`, in the stored text) has passed,
   * and says how many are left under it. Keyv drops an expired value only when it is read: keys
   * never read again (a verification started and left) would otherwise stay in the file for good.
   */
  sweep(prefix: string, now: number): number {
    const [from, to] = [prefix, `${prefix}\uffff`];
    for (const key of this.s.expired.all(from, to, now) as string[]) this.delete(key);
    return this.s.count.get(from, to) as number;
  }

  /** Every key and its stored text. */
  entries(): [string, string][] {
    return this.s.all.all() as [string, string][];
  }

  close(): void {
    this.db.close();
  }
}
