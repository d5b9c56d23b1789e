// Weeks unattended, in fast versions: housekeeping never holds answers back, link and view stores
// that fail or stop answering are told (never "Linked" for a link not saved, never a hang), a
// fatal gateway close ends the process non-zero, and an avatar URL Discord refuses never costs a
// player their reply.
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';

import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { embedReply } from '../../src/embeds/index.js';
import { startStatsServer } from '../../src/service/server.js';
import { importLines } from '../../src/service/import.js';
import { StatsStore } from '../../src/service/store.js';
import { chatInput, component, snowflake, startDiscordDouble, type InteractionHandle, type RestCall } from '../discord-double/index.js';
import { startBot, tempLinksDb } from '../helpers/bot.js';
import { allSettled, settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { STACK_TOKEN, startStack, type Stack } from '../helpers/stack.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the user finally reads: the reply, the edit after a deferral, or the follow-up. */
function finalMessage(calls: RestCall[]): {
  content?: string;
  flags?: number;
  embeds?: { thumbnail?: unknown; author?: { icon_url?: string } }[];
  components?: { components: { custom_id?: string }[] }[];
} {
  const last = calls.at(-1)!;
  const body = last.body as { type?: number; data?: unknown };
  return (last.path.endsWith('/callback') ? body.data : body) as ReturnType<typeof finalMessage>;
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | null | 'running'> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('running'), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

const matchesOf = (player: string) => chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player } });
const link = (user?: { id: string; username: string }) =>
  chatInput({ command: 'link', options: { title: 'title_c', platform: 'console_a', player: 'Nova' }, ...(user ? { user } : {}) });
const linkedProfile = (user?: { id: string; username: string }) => chatInput({ group: 'title_c', subcommand: 'profile', ...(user ? { user } : {}) });

describe('housekeeping never holds answers back', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ CONTROLS_TTL_MS: '1000', LOG_LEVEL: 'warn' });
  }, 40_000);
  afterAll(() => stack.close());

  it('a deferred answer right after 250 paged replies expire arrives within 3 s, and no message is edited to expire them', async () => {
    const { double, proxy } = stack;
    await settled(double.dispatchInteraction(matchesOf('novaplays')));
    const paged: InteractionHandle[] = [];
    for (let i = 0; i < 250; i++) paged.push(double.dispatchInteraction(matchesOf('novaplays')));
    expect(await allSettled(paged, 20_000)).toHaveLength(0);
    expect(paged.every((h) => (finalMessage(h.responses()).components ?? []).length > 0)).toBe(true);
    // Their controls expire now; an answer that has to wait on a slow service comes right then.
    await sleep(1_100);
    proxy.setFault('slow', 1_200);
    const slow = double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nova#2231' } }));
    const calls = await settled(slow, 15_000);
    proxy.setFault('pass');
    expect((calls[0]!.body as { type: number }).type).toBe(5);
    expect(calls.at(-1)!.at - slow.dispatchedAt).toBeLessThan(3_000);
    await sleep(500);
    expect(paged.flatMap((h) => h.responses()).filter((c) => c.method === 'PATCH')).toHaveLength(0);
    // A press on an expired control is answered, privately.
    const id = finalMessage(paged[0]!.responses())
      .components!.flatMap((r) => r.components)
      .find((c) => c.custom_id?.startsWith('pg:'))!.custom_id!;
    const press = await settled(double.dispatchInteraction(component({ customId: id })));
    expect(finalMessage(press)).toMatchObject({ content: 'These controls have expired. Run the command again.', flags: 64 });
  }, 60_000);
});

describe('a bot that fell behind', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ LOG_LEVEL: 'warn' });
  }, 40_000);
  afterAll(() => stack.close());

  it('skips interactions read too late for Discord to take an answer, says so once, and answers the rest', async () => {
    const { double } = stack;
    const profile = () => chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } });
    await settled(double.dispatchInteraction(profile()));
    // Discord sent these 5 s ago: a backlog the bot is only now reading.
    const late = Array.from({ length: 20 }, () => double.dispatchInteraction({ ...profile(), id: snowflake(Date.now() - 5_000) }));
    const fresh = await settled(double.dispatchInteraction(profile()));
    expect(finalMessage(fresh).embeds).toHaveLength(1);
    await sleep(300);
    expect(late.flatMap((h) => h.responses())).toHaveLength(0);
    expect(stack.bot.output().match(/read too late to answer/g)).toHaveLength(1);
  }, 30_000);
});

describe('links in SQLite', () => {
  let stack: Stack;
  const file = tempLinksDb();
  beforeAll(async () => {
    stack = await startStack({ LINKS_DB: file, LOG_LEVEL: 'warn' });
  }, 40_000);
  afterAll(() => stack.close());

  it('a locked file: /link says the account was not linked, within Discord’s 3 s, and links again once it is free', async () => {
    const { double } = stack;
    expect(finalMessage(await settled(double.dispatchInteraction(link()))).embeds).toHaveLength(1);
    const holder = new Database(file);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const handle = double.dispatchInteraction(link());
      const calls = await settled(handle);
      expect(calls.at(-1)!.at - handle.dispatchedAt).toBeLessThan(3_000);
      expect(finalMessage(calls)).toMatchObject({ flags: 64, content: expect.stringContaining('was **not** linked') as unknown });
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    expect(finalMessage(await settled(double.dispatchInteraction(link()))).embeds?.length).toBe(1);
    expect(await stack.bot.printed('link or view store unavailable')).toContain('link or view store unavailable');
  }, 30_000);
});

describe('links and views in a Redis that stops answering', () => {
  let stack: Stack;
  let redis: ChildProcess;
  const user = { id: '1180000000000000777', username: 'frozen' };
  beforeAll(async () => {
    const port = await freePort();
    redis = await startRedis(port);
    stack = await startStack({ CACHE_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'warn' });
  }, 40_000);
  afterAll(async () => {
    redis.kill('SIGCONT');
    await stack.close();
    await stopRedis(redis);
  });

  it('tells /link, linked lookups and button presses that the store is unavailable, within 3 s each', async () => {
    const { double } = stack;
    expect(finalMessage(await settled(double.dispatchInteraction(link(user)))).embeds).toHaveLength(1);
    const paged = finalMessage(await settled(double.dispatchInteraction(matchesOf('novaplays'))));
    const id = paged.components!.flatMap((r) => r.components).find((c) => c.custom_id?.startsWith('pg:'))!.custom_id!;
    // Accepts connections, answers nothing: the kernel keeps the sockets open.
    redis.kill('SIGSTOP');
    // Each interaction made as it is sent: one made before the others had their answers would be
    // as old as they took by then (its id carries when Discord made it), and read too late.
    for (const [payload, told] of [
      // A write past its deadline may still land when Redis answers again: told so, not that it was not made.
      [() => link(user), 'may or may not have been kept'],
      [() => linkedProfile(user), 'Linked accounts cannot be read right now'],
      [() => component({ customId: id }), 'These controls cannot be used right now'],
    ] as const) {
      const handle = double.dispatchInteraction(payload());
      // A press whose view the store is slow to give is acknowledged first (an update's defer), and
      // told after: settled waits for the notice that follows.
      const calls = await settled(handle, 10_000);
      expect(calls[0]!.at - handle.dispatchedAt).toBeLessThan(3_000);
      expect(calls.at(-1)!.at - handle.dispatchedAt).toBeLessThan(3_000);
      expect(finalMessage(calls)).toMatchObject({ flags: 64, content: expect.stringContaining(told) as unknown });
    }
    redis.kill('SIGCONT');
    await sleep(300);
    expect(finalMessage(await settled(double.dispatchInteraction(linkedProfile(user)))).embeds).toHaveLength(1);
    expect(stack.bot.child.exitCode).toBeNull();
  }, 40_000);
});

describe('a fatal gateway close after login', () => {
  for (const [code, embedded] of [
    [4004, false],
    [4014, true],
  ] as const) {
    it(`${code} (${embedded ? 'embedded service' : 'LOOKUP_BASE_URL'}): one fatal line and a non-zero exit`, async () => {
      const double = await startDiscordDouble({ token: STACK_TOKEN });
      const service = embedded ? undefined : await startStatsServer({ store: new StatsStore() });
      const bot = startBot({
        DISCORD_TOKEN: STACK_TOKEN,
        DISCORD_API_URL: double.apiUrl,
        LOG_LEVEL: 'warn',
        ...(service ? { LOOKUP_BASE_URL: service.url } : { STATS_DATASET: 'examples/small-dataset.jsonl' }),
      });
      try {
        await double.waitForReady(30_000);
        double.dropConnection(code);
        expect(await exitOf(bot.child, 10_000)).toBe(1);
        const fatal = bot
          .output()
          .split('\n')
          .filter((l) => l.includes('"level":60'));
        expect(fatal).toHaveLength(1);
        expect(fatal[0]).toContain(`"code":${code}`);
        expect(bot.output()).not.toContain(STACK_TOKEN);
      } finally {
        bot.child.kill('SIGKILL');
        await double.close();
        await service?.close();
      }
    }, 40_000);
  }
});

describe('an avatar URL Discord would refuse', () => {
  it('is dropped by the embed builders whatever the payload holds; an http(s) one is kept', () => {
    const bad = embedReply({
      title: 'x',
      url: 'javascript:x',
      thumbnail: { url: 'javascript:alert(1)' },
      image: { url: 'data:image/png;base64,AA' },
      author: { name: 'a', icon_url: 'https://cdn.example.com/a b.png' },
      footer: { text: 'f', icon_url: 'ftp://x/y' },
    }).embeds[0]!;
    expect(bad).not.toHaveProperty('url');
    expect(bad).not.toHaveProperty('thumbnail');
    expect(bad).not.toHaveProperty('image');
    expect(bad.author).toEqual({ name: 'a' });
    expect(bad.footer).toEqual({ text: 'f' });
    const good = embedReply({
      title: 'x',
      thumbnail: { url: 'https://cdn.example.com/a.png' },
      author: { name: 'a', icon_url: 'http://cdn.example.com/b.png' },
    }).embeds[0]!;
    expect(good.thumbnail).toEqual({ url: 'https://cdn.example.com/a.png' });
    expect(good.author?.icon_url).toBe('http://cdn.example.com/b.png');
  });

  it('never costs the player their reply: the embed goes without it', async () => {
    const store = new StatsStore();
    const played = (id: string) => ({ id, platform: 'pc_store_c' as const, result: 'win' as const, hero: 'Sol', stats: { kills: 5, deaths: 2 } });
    await importLines(store, [
      JSON.stringify({
        type: 'match',
        title: 'title_c',
        platform: 'pc_store_c',
        id: 'c-avatar',
        startedAt: '2026-11-20T18:00:00Z',
        durationSeconds: 600,
        players: [played('Bad#1'), played('Spaced#1')],
      }),
    ]);
    // Another service (or an old store) may hold what this project's import refuses.
    const avatar = store.db.prepare('UPDATE players SET avatar_url = ? WHERE id = ?');
    avatar.run('javascript:alert(1)', 'Bad#1');
    avatar.run('https://cdn.example.com/a b.png', 'Spaced#1');
    const service = await startStatsServer({ store });
    const double = await startDiscordDouble({ token: STACK_TOKEN });
    const bot = startBot({ DISCORD_TOKEN: STACK_TOKEN, DISCORD_API_URL: double.apiUrl, LOOKUP_BASE_URL: service.url, LOG_LEVEL: 'warn' });
    try {
      await double.waitForReady(30_000);
      for (const player of ['Bad#1', 'Spaced#1']) {
        const calls = await settled(
          double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player } })),
        );
        expect(
          calls.every((c) => c.status < 300),
          JSON.stringify(calls.map((c) => c.body)),
        ).toBe(true);
        const embed = finalMessage(calls).embeds?.[0];
        expect(embed, JSON.stringify(finalMessage(calls))).toBeDefined();
        expect(embed?.thumbnail).toBeUndefined();
        expect(embed?.author?.icon_url).toBeUndefined();
      }
    } finally {
      bot.child.kill('SIGKILL');
      await double.close();
      await service.close();
      await store.close();
    }
  }, 40_000);
});

describe('start-up', () => {
  function run(env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
    const bot = startBot(env);
    let stdout = '';
    let stderr = '';
    bot.child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
    bot.child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
    return exitOf(bot.child, 30_000).then((status) => ({ status: status === 'running' ? null : status, stdout, stderr }));
  }

  it('an unusable LINKS_DB stops the bot with one line naming it', async () => {
    const file = tempLinksDb();
    writeFileSync(file, 'this is not an SQLite database, just text standing where one should be.\n'.repeat(100));
    const double = await startDiscordDouble({ token: STACK_TOKEN });
    try {
      const r = await run({
        DISCORD_TOKEN: STACK_TOKEN,
        DISCORD_API_URL: double.apiUrl,
        LINKS_DB: file,
        STATS_DATASET: 'examples/small-dataset.jsonl',
        LOG_LEVEL: 'warn',
      });
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/^Could not start: LINKS_DB \(.*links\.sqlite\) cannot be used: /);
    } finally {
      await double.close();
    }
  }, 40_000);

  it('never logs credentials inside LOOKUP_BASE_URL', async () => {
    const double = await startDiscordDouble({ token: STACK_TOKEN });
    const service = await startStatsServer({ store: new StatsStore() });
    const bot = startBot({
      DISCORD_TOKEN: STACK_TOKEN,
      DISCORD_API_URL: double.apiUrl,
      LOOKUP_BASE_URL: service.url.replace('http://', 'http://operator:hunter2-secret@'),
      LOG_LEVEL: 'info',
    });
    try {
      await double.waitForReady(30_000);
      expect(await bot.printed('"msg":"ready"')).toContain('"msg":"ready"');
      expect(bot.output()).not.toContain('hunter2-secret');
    } finally {
      bot.child.kill('SIGKILL');
      await double.close();
      await service.close();
    }
  }, 40_000);

  it('moves the links kept in LINKS_DB to Redis on the first start with CACHE_URL', async () => {
    const file = tempLinksDb();
    const port = await freePort();
    const redis = await startRedis(port);
    const user = { id: '1180000000000000888', username: 'mover' };
    let stack = await startStack({ LINKS_DB: file, LOG_LEVEL: 'info' });
    try {
      expect(finalMessage(await settled(stack.double.dispatchInteraction(link(user)))).embeds).toHaveLength(1);
      await stack.close();
      stack = await startStack({ LINKS_DB: file, CACHE_URL: `redis://127.0.0.1:${port}`, LOG_LEVEL: 'info' });
      const profile = finalMessage(await settled(stack.double.dispatchInteraction(linkedProfile(user))));
      expect(profile.embeds).toHaveLength(1);
      expect(await stack.bot.printed('links moved from LINKS_DB to Redis')).toContain('links moved from LINKS_DB to Redis');
      expect(existsSync(file)).toBe(false);
      expect(existsSync(`${file}.moved-to-redis`)).toBe(true);
    } finally {
      await stack.close();
      await stopRedis(redis);
    }
    // Two stacks started one after the other: on a crowded machine that takes far past the default timeout.
  }, 120_000);
});
