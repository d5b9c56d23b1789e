// Resilience: the bot process with its cache in Redis, and Redis stopping and coming back.
import type { ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput, startDiscordDouble, type DiscordDouble } from '../discord-double/index.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startService, type TestService } from '../helpers/service.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.redis-token-abcdefghijklmnopqrstuv';

let service: TestService;
let proxy: FaultProxy;
let double: DiscordDouble;
let bot: BotProcess;
let redis: ChildProcess;
let port: number;

beforeAll(async () => {
  service = await startService();
  proxy = await startFaultProxy(service.url);
  double = await startDiscordDouble({ token: TOKEN });
  port = await freePort();
  redis = await startRedis(port);
  bot = startBot({ DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LOOKUP_BASE_URL: proxy.url, CACHE_URL: `redis://127.0.0.1:${port}` });
  await double.waitForReady(30_000);
}, 40_000);

afterAll(async () => {
  bot.child.kill('SIGKILL');
  await stopRedis(redis);
  await double.close();
  await proxy.close();
  await service.close();
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
    const link = await settled(double.dispatchInteraction(chatInput({ command: 'link', options: { title: 'title_c', platform: 'console_a', player: 'Nova' } })));
    expect((link.at(-1)!.body as { data?: { flags?: number } }).data?.flags ?? (link.at(-1)!.body as { flags?: number }).flags).toBe(64);
    expect(bot.child.exitCode).toBeNull();
    expect(bot.output().match(/cache unavailable/g)).toHaveLength(1);
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
    expect(bot.output()).toContain('cache reachable again');
  });
});
