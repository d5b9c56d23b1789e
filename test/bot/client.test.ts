import { Events, GatewayDispatchEvents } from 'discord.js';
import { describe, expect, it } from 'vitest';

import { createDiscordClient, createInteractionsRest } from '../../src/bot/client.js';

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

  it('sweeps them every minute in HTTP interactions mode too (its REST client is its own)', () => {
    const rest = createInteractionsRest('http://127.0.0.1:1/api');
    expect(rest.options.handlerSweepInterval).toBe(60_000);
    expect(rest.options.globalRequestsPerSecond).toBe(500);
    expect(rest.options.api).toBe('http://127.0.0.1:1/api');
  });

  it('hands interactions over raw and builds no interaction object of its own (a discord.js upgrade that moves its action fails here)', async () => {
    const client = createDiscordClient('http://127.0.0.1:1/api');
    try {
      const raw: unknown[] = [];
      const built: unknown[] = [];
      client.ws.on(GatewayDispatchEvents.InteractionCreate, (data: unknown) => raw.push(data));
      client.on(Events.InteractionCreate, (i) => built.push(i));
      const payload = {
        id: '1180000000000000001',
        application_id: '1180000000000000002',
        type: 4,
        token: 't',
        user: { id: '1180000000000000003', username: 'a', discriminator: '0', avatar: null },
        data: { id: '1', name: 'stats', type: 1, options: [] },
        locale: 'en-US',
      };
      // What discord.js does with a dispatch: emits it raw on client.ws, then runs its packet handler.
      client.ws.emit(GatewayDispatchEvents.InteractionCreate, payload, 0);
      (client as unknown as { actions: { InteractionCreate: { handle(d: unknown): unknown } } }).actions.InteractionCreate.handle(payload);
      expect(raw).toEqual([payload]);
      expect(built).toEqual([]);
    } finally {
      await client.destroy();
    }
  });

  it('runs one shard when SHARD_COUNT and SHARDS are blank in the environment (as .env.example leaves them), and leaves them as they were', async () => {
    const before = { SHARD_COUNT: process.env.SHARD_COUNT, SHARDS: process.env.SHARDS };
    process.env.SHARD_COUNT = '';
    process.env.SHARDS = '';
    try {
      const client = createDiscordClient('http://127.0.0.1:1/api');
      try {
        expect(client.options.shardCount).toBe(1);
        expect(client.options.shards).toEqual([0]);
      } finally {
        await client.destroy();
      }
      const four = createDiscordClient('http://127.0.0.1:1/api', { count: 4, ids: [2, 3] });
      try {
        expect(four.options.shardCount).toBe(4);
        expect(four.options.shards).toEqual([2, 3]);
      } finally {
        await four.destroy();
      }
      expect(process.env.SHARD_COUNT).toBe('');
      expect(process.env.SHARDS).toBe('');
    } finally {
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
