import { describe, expect, it } from 'vitest';

import { createDiscordClient } from '../../src/bot/client.js';

describe('the discord.js client', () => {
  it('sweeps the rate-limit queues of answered interactions every minute, not every hour', async () => {
    const client = createDiscordClient('http://127.0.0.1:1/api');
    try {
      expect(client.rest.options.handlerSweepInterval).toBe(60_000);
      expect(client.rest.options.globalRequestsPerSecond).toBe(500);
    } finally {
      await client.destroy();
    }
  });
});
