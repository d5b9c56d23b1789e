// Resilience: the bot process with its cache in Redis, and Redis stopping and coming back.
import type { ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput, type DiscordDouble } from '../discord-double/index.js';
import type { BotProcess } from '../helpers/bot.js';
import type { FaultProxy } from '../helpers/fault-proxy.js';
import { settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let proxy: FaultProxy;
let double: DiscordDouble;
let bot: BotProcess;
let redis: ChildProcess;
let port: number;

beforeAll(async () => {
  port = await freePort();
  redis = await startRedis(port);
  stack = await startStack({ CACHE_URL: `redis://127.0.0.1:${port}` });
  ({ proxy, double, bot } = stack);
}, 40_000);

afterAll(async () => {
  await stack.close();
  await stopRedis(redis);
});

/** Looks a profile up through Discord and tells whether it reached the stats service. */
async function profile(player: string): Promise<{ embed: boolean; reachedService: boolean }> {
  const before = proxy.passed();
  const calls = await settled(double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player } })));
  const body = calls.at(-1)!.body as { data?: { embeds?: unknown[] }; embeds?: unknown[] };
  return { embed: (body.data?.embeds ?? body.embeds ?? []).length > 0, reachedService: proxy.passed() > before };
}

describe('when Redis stops and comes back', () => {
  it('caches in Redis while it is up', async () => {
    expect(await profile('Nova')).toEqual({ embed: true, reachedService: true });
    expect(await profile('Nova')).toEqual({ embed: true, reachedService: false });
  });

  it('keeps answering without it, uncached, and logs the outage once', async () => {
    await stopRedis(redis);
    for (let i = 0; i < 3; i++) expect(await profile('Nova')).toEqual({ embed: true, reachedService: true });
    const link = await settled(
      double.dispatchInteraction(chatInput({ command: 'link', options: { title: 'title_c', platform: 'console_a', player: 'Nova' } })),
    );
    expect((link.at(-1)!.body as { data?: { flags?: number } }).data?.flags ?? (link.at(-1)!.body as { flags?: number }).flags).toBe(64);
    expect(bot.child.exitCode).toBeNull();
    // The log line travels through a pipe: waited for, not read at once.
    expect((await bot.printed('cache unavailable')).match(/cache unavailable/g)).toHaveLength(1);
  });

  it('caches again once Redis is back', async () => {
    redis = await startRedis(port);
    let cachedAgain = false;
    for (let i = 0; i < 40 && !cachedAgain; i++) {
      await new Promise((r) => setTimeout(r, 100));
      await profile('Nova');
      cachedAgain = !(await profile('Nova')).reachedService;
    }
    expect(cachedAgain).toBe(true);
    expect(await bot.printed('cache reachable again')).toContain('cache reachable again');
  });
});
