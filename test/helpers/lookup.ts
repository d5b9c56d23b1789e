// Builds a lookup client for a test: a memory (or given) cache, a logger whose lines are kept, and
// a clock the test can move.
import { Writable } from 'node:stream';

import { pino, type Logger } from 'pino';

import { createLookupCache, type LookupCache } from '../../src/lookup/cache.js';
import { LookupClient, type LookupClientOptions } from '../../src/lookup/client.js';

export interface TestLookup {
  client: LookupClient;
  cache: LookupCache;
  logger: Logger;
  /** Every log line written so far. */
  logs: () => string;
  /** Moves the client's clock forward. */
  advance(ms: number): void;
}

export function memoryLogger(): { logger: Logger; logs: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), logs: () => text };
}

export async function testLookup(baseUrl: string, options: Partial<LookupClientOptions> = {}): Promise<TestLookup> {
  let offset = 0;
  const { logger, logs } = memoryLogger();
  const cache = options.cache ?? (await createLookupCache({ logger }));
  const client = new LookupClient({
    baseUrl,
    cache,
    logger,
    now: () => Date.now() + offset,
    backoffMs: 10,
    ...options,
  });
  return {
    client,
    cache,
    logger,
    logs,
    advance: (ms) => {
      offset += ms;
    },
  };
}
