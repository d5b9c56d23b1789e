// Which interactions were taken already, so that each runs at most once whatever the transport. A
// signed HTTP interaction stays valid for the whole signature window (MAX_SKEW_S either side of its
// timestamp): sent again in it, the same bytes would run the command again and hand the sender its
// answer, a member's private reply included. HTTP workers that share Redis share the ledger there
// (one SET NX an interaction), so a copy sent to another worker is caught too; otherwise, and for
// the gateway (which brings each interaction once, over the bot's own authenticated connection),
// the process's bounded memory. A Redis that does not answer in time leaves the memory to decide,
// so that a store blip refuses nothing Discord sent.
import { LRUCache } from 'lru-cache';

import { within } from '../lookup/within.js';

/**
 * How long a taken interaction is remembered: a signed request is accepted while its timestamp is
 * within 5 minutes of the worker's clock, either way, so one replayed copy can arrive up to
 * 10 minutes after the first; a minute more for clocks that differ.
 */
export const TAKEN_TTL_MS = 11 * 60_000;
/** Interactions a process remembers at most: a few hours of a busy bot's traffic; the oldest go first. */
export const TAKEN_MAX_ENTRIES = 100_000;
/**
 * How long an interaction waits for Redis to say whether it was taken (a healthy Redis answers in a
 * millisecond): past it the memory decides, so that a stalled Redis costs each interaction this
 * much, not a store call's whole deadline on top of the ones its command makes.
 */
export const LEDGER_TIMEOUT_MS = 250;

export interface InteractionLedger {
  /** True the first time an id is taken; false for every later time (a replay, a duplicate). */
  take(id: string): Promise<boolean>;
}

/** What a shared ledger needs of Redis: SET with NX and PX. */
export interface LedgerRedis {
  set(key: string, value: string, options: { NX: true; PX: number }): Promise<string | null>;
}

export interface LedgerOptions {
  maxEntries?: number;
  ttlMs?: number;
  /** Shared with other workers; without it, the memory alone. */
  redis?: { client: LedgerRedis; namespace: string; timeoutMs: number; onUnavailable: (e: Error) => void } | undefined;
}

export function interactionLedger(options: LedgerOptions = {}): InteractionLedger {
  const ttl = options.ttlMs ?? TAKEN_TTL_MS;
  const seen = new LRUCache<string, true>({ max: options.maxEntries ?? TAKEN_MAX_ENTRIES, ttl, ttlAutopurge: false });
  const redis = options.redis;
  return {
    async take(id) {
      // Memory first, and at once: two copies arriving together are told apart before either waits on Redis.
      if (seen.has(id)) return false;
      seen.set(id, true);
      if (!redis) return true;
      try {
        const answer = await within(redis.client.set(`${redis.namespace}-taken:${id}`, '1', { NX: true, PX: ttl }), redis.timeoutMs);
        if (answer.done) return answer.value === 'OK';
        redis.onUnavailable(new Error(`Redis took longer than ${redis.timeoutMs} ms`));
      } catch (e) {
        redis.onUnavailable(e as Error);
      }
      return true;
    },
  };
}
