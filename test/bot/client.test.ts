import { describe, expect, it } from 'vitest';

import { createGatewayRest, createInteractionsRest } from '../../src/bot/client.js';

describe('the REST clients', () => {
  it('sweep the rate-limit queues of answered interactions every minute, not every hour, and keep no global limit of 50 a second', () => {
    for (const rest of [createGatewayRest('http://127.0.0.1:1/api', 'token'), createInteractionsRest('http://127.0.0.1:1/api')]) {
      expect(rest.options.handlerSweepInterval).toBe(60_000);
      expect(rest.options.globalRequestsPerSecond).toBe(500);
      expect(rest.options.api).toBe('http://127.0.0.1:1/api');
    }
  });
});
