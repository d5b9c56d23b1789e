// `npm run bench:micro`: what one of the router's log lines costs, with the bot's logger
// (src/observe/logger.ts) and with pino's path censoring of nested fields, which it replaced.
import { Writable } from 'node:stream';

import { pino } from 'pino';
import { bench, describe } from 'vitest';

import { createLogger } from '../src/observe/logger.js';

const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.bench-token-abcdefghijklmnopqrstuv';
const bot = createLogger('info', [TOKEN, 'lookup-key-0123456789'], sink);
const nestedPaths = pino(
  { level: 'info', redact: { paths: ['token', '*.token', 'headers.authorization', '*.headers.authorization'], censor: '[redacted]' } },
  sink,
);
/** The router's line for an answered interaction (fields as src/bot/router.ts writes them). */
const line = () => ({
  interaction: '1180000000000000001',
  type: 2,
  kind: 'command',
  command: 'stats title_c profile',
  guild: '1180000000000000002',
  user: '1180000000000000003',
  outcome: 'direct',
  private: false,
  cache: 'hit',
  ms: 0.42,
  readAt: 123456.789,
  sentAt: 123457.1,
});

describe("one of the router's log lines", () => {
  bench('the bot logger (secrets taken out of the finished line)', () => {
    bot.info(line(), 'interaction');
  });
  bench("pino's censoring of nested paths ('*.token')", () => {
    nestedPaths.info(line(), 'interaction');
  });
});
