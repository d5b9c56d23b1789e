// The ledger of interactions taken: once an id is taken, it is never taken again within its time,
// in one process (memory) or across workers (Redis); a Redis that fails or stalls leaves the
// process's own memory to decide, and says so.
import { describe, expect, it } from 'vitest';

import { interactionLedger, type LedgerRedis } from '../../src/bot/interaction-ledger.js';

/** SET NX PX as Redis does it (time aside). */
function redisDouble(): LedgerRedis & { keys: Set<string> } {
  const keys = new Set<string>();
  return {
    keys,
    set: (key) => {
      if (keys.has(key)) return Promise.resolve(null);
      keys.add(key);
      return Promise.resolve('OK');
    },
  };
}

describe('the interactions ledger', () => {
  it('takes an id once in one process, copies arriving together included', async () => {
    const ledger = interactionLedger();
    expect(await Promise.all([ledger.take('1'), ledger.take('1'), ledger.take('2')])).toEqual([true, false, true]);
    expect(await ledger.take('1')).toBe(false);
  });

  it('forgets the oldest past its bound', async () => {
    const ledger = interactionLedger({ maxEntries: 2 });
    for (const id of ['1', '2', '3']) expect(await ledger.take(id)).toBe(true);
    expect(await ledger.take('3')).toBe(false);
    expect(await ledger.take('1')).toBe(true);
  });

  it('takes an id once across workers that share Redis', async () => {
    const redis = redisDouble();
    const told: Error[] = [];
    const options = { redis: { client: redis, namespace: 'ns', timeoutMs: 1_000, onUnavailable: (e: Error) => told.push(e) } };
    const [a, b] = [interactionLedger(options), interactionLedger(options)];
    expect(await a.take('7')).toBe(true);
    expect(await b.take('7')).toBe(false);
    expect([...redis.keys]).toEqual(['ns-taken:7']);
    expect(told).toEqual([]);
  });

  it('lets the memory decide when Redis fails or does not answer in time, and says so', async () => {
    const told: string[] = [];
    const onUnavailable = (e: Error) => told.push(e.message);
    const failing = interactionLedger({
      redis: { client: { set: () => Promise.reject(new Error('connection lost')) }, namespace: 'ns', timeoutMs: 1_000, onUnavailable },
    });
    expect(await failing.take('8')).toBe(true);
    expect(await failing.take('8')).toBe(false);
    const stalled = interactionLedger({ redis: { client: { set: () => new Promise(() => undefined) }, namespace: 'ns', timeoutMs: 10, onUnavailable } });
    expect(await stalled.take('9')).toBe(true);
    expect(told).toEqual(['connection lost', 'Redis took longer than 10 ms']);
  });
});
