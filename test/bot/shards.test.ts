// Gateway shards: the Discord double asks for two shards, and the real bot runs them as one process
// per shard (SHARD_IDS=0 and SHARD_IDS=1 of SHARD_COUNT=2) sharing Redis, or both in one process.
// Discord sends a guild's interactions to shard (guild_id >> 22) % 2 only, and direct messages to
// shard 0: each process answers what its shard receives, with the links the other made.
import { setTimeout as sleep } from 'node:timers/promises';

import type { ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startService, type TestService } from '../helpers/service.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.shard-token-abcdefghijklmnopqrstu';
/** A guild id whose shard of two is `shard`. */
const guildOn = (shard: number, n = 1_180_000) => String(BigInt(n * 2 + shard) << 22n);

interface Message {
  embeds?: { title?: string }[];
}

let service: TestService;
let redis: ChildProcess;
let redisUrl: string;

beforeAll(async () => {
  const port = await freePort();
  redis = await startRedis(port);
  redisUrl = `redis://127.0.0.1:${port}`;
  service = await startService();
});

afterAll(async () => {
  await service?.close();
  if (redis) await stopRedis(redis);
});

/** Waits until the process has logged `text`. */
async function logged(bot: BotProcess, text: string, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!bot.output().includes(text)) {
    if (Date.now() > until) throw new Error(`never logged ${text}: ${bot.output()}`);
    await sleep(25);
  }
}

const messageOf = (calls: Awaited<ReturnType<typeof settled>>) => {
  const later = calls.slice(1).filter((c) => c.method === 'PATCH' || c.method === 'POST');
  return (later.length > 0 ? later[later.length - 1]!.body : (calls[0]!.body as { data?: unknown }).data) as Message;
};

describe('one process per shard', () => {
  let double: DiscordDouble;
  const bots: BotProcess[] = [];

  beforeAll(async () => {
    double = await startDiscordDouble({ token: TOKEN, shardCount: 2 });
    const env = { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LOOKUP_BASE_URL: service.url, CACHE_URL: redisUrl, SHARD_COUNT: '2', CARDS: 'off' };
    bots.push(startBot({ ...env, SHARD_IDS: '0' }), startBot({ ...env, SHARD_IDS: '1' }));
    await double.waitForReady(40_000);
  }, 60_000);

  afterAll(async () => {
    for (const bot of bots) if (bot.child.exitCode === null) bot.child.kill('SIGKILL');
    await double?.close();
  });

  it('identifies each shard once, from its own process', () => {
    const shards = double.identifies.map((d) => (d as { shard: [number, number] }).shard).sort((a, b) => a[0] - b[0]);
    expect(shards).toEqual([
      [0, 2],
      [1, 2],
    ]);
    expect(double.stats().liveShards).toEqual([0, 1]);
  });

  it('answers each guild from the process of its shard, with links made on the other shard', async () => {
    const user = { id: '1180000000000000711', username: 'sharded' };
    const [on0, on1] = [guildOn(0), guildOn(1)];
    expect([double.shardOf(on0), double.shardOf(on1)]).toEqual([0, 1]);
    const link = double.dispatchInteraction(
      chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'nova#2231' }, user, guildId: on0 }),
    );
    expect(messageOf(await settled(link)).embeds?.[0]?.title).toBe('Linked: Nova#2231');
    const mine = double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: {}, user, guildId: on1 }));
    expect(messageOf(await settled(mine)).embeds?.[0]?.title).toBe('Nova#2231');
    expect([link.shard, mine.shard]).toEqual([0, 1]);
    await logged(bots[0]!, link.id);
    await logged(bots[1]!, mine.id);
    expect(bots[0]!.output()).not.toContain(mine.id);
    expect(bots[1]!.output()).not.toContain(link.id);
  });

  it('answers direct messages on shard 0', async () => {
    const dm = double.dispatchInteraction(
      chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' }, guildId: null }),
    );
    expect(messageOf(await settled(dm)).embeds?.[0]?.title).toBe('Nova');
    expect(dm.shard).toBe(0);
    await logged(bots[0]!, dm.id);
  });
});

describe('a shard range in one process', () => {
  it('runs every shard of SHARD_COUNT when SHARD_IDS is unset, and answers on each', async () => {
    // max_concurrency 2: both shards identify at once instead of 5 s apart.
    const double = await startDiscordDouble({ token: TOKEN, shardCount: 2, maxConcurrency: 2 });
    const bot = startBot({
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      LOOKUP_BASE_URL: service.url,
      CACHE_URL: redisUrl,
      SHARD_COUNT: '2',
      CARDS: 'off',
    });
    try {
      await double.waitForReady(40_000);
      for (const shard of [0, 1]) {
        const handle = double.dispatchInteraction(
          chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' }, guildId: guildOn(shard, 1_190_000) }),
        );
        expect(handle.shard).toBe(shard);
        expect(messageOf(await settled(handle)).embeds?.[0]?.title).toBe('Nova');
      }
      await logged(bot, '"shards":[0,1]');
    } finally {
      bot.child.kill('SIGKILL');
      await double.close();
    }
  });
});
