// HTTP interactions mode end to end: two real bot processes (INTERACTIONS_MODE=http) sharing one
// Redis, the stats service behind a fault proxy, and the Discord double POSTing signed interactions
// to them in turn, as a load balancer would spread them. The double holds the application's key
// pair; the bots get its public key.
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

import type { ChildProcess } from 'node:child_process';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  autocomplete,
  chatInput,
  component,
  startDiscordDouble,
  type DiscordDouble,
  type HttpInteractionHandle,
  type RestCall,
} from '../discord-double/index.js';
import { snowflake } from '../discord-double/ids.js';
import { startBot, type BotProcess } from '../helpers/bot.js';
import { startFaultProxy, type FaultProxy } from '../helpers/fault-proxy.js';
import { settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startService, type TestService } from '../helpers/service.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.http-token-abcdefghijklmnopqrstuv';
const EPHEMERAL = 64;

interface Message {
  content?: string;
  flags?: number;
  embeds?: { title?: string; description?: string; image?: { url: string }; footer?: { text: string } }[];
  components?: { components: { custom_id?: string; label?: string }[] }[];
  choices?: { name: string; value: string }[];
}
interface Callback {
  type: number;
  data?: Message;
}

let double: DiscordDouble;
let service: TestService;
let proxy: FaultProxy;
let redis: ChildProcess;
const workers: { bot: BotProcess; url: string }[] = [];
/** A gateway bot beside the workers, on the same Redis: the same commands either way. */
let gateway: BotProcess;
let turn = 0;
let metricsPort: number;

/** Waits for a worker's "listening" line and returns its endpoint URL. */
async function endpointOf(bot: BotProcess): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const line = bot
      .output()
      .split('\n')
      .find((l) => l.includes('listening for Discord interactions'));
    if (line) return `http://127.0.0.1:${(JSON.parse(line) as { port: number }).port}/interactions`;
    if (bot.child.exitCode !== null) throw new Error(`the bot exited: ${bot.output()}`);
    await sleep(50);
  }
  throw new Error(`the bot never listened: ${bot.output()}`);
}

beforeAll(async () => {
  const redisPort = await freePort();
  redis = await startRedis(redisPort);
  service = await startService();
  proxy = await startFaultProxy(service.url);
  double = await startDiscordDouble({ token: TOKEN });
  const env = {
    INTERACTIONS_MODE: 'http',
    INTERACTIONS_PORT: '0',
    INTERACTIONS_HOST: '127.0.0.1',
    DISCORD_PUBLIC_KEY: double.publicKey,
    DISCORD_TOKEN: TOKEN,
    DISCORD_API_URL: double.apiUrl,
    LOOKUP_BASE_URL: proxy.url,
    CACHE_URL: `redis://127.0.0.1:${redisPort}`,
  };
  metricsPort = await freePort();
  // The first worker serves metrics too.
  const bots = [startBot({ ...env, METRICS_PORT: String(metricsPort) }), startBot(env)];
  gateway = startBot({ ...env, INTERACTIONS_MODE: 'gateway' });
  for (const bot of bots) workers.push({ bot, url: await endpointOf(bot) });
  await double.waitForReady(40_000);
}, 90_000);

afterAll(async () => {
  for (const bot of [...workers.map((w) => w.bot), gateway]) if (bot?.child.exitCode === null) bot.child.kill('SIGKILL');
  await double?.close();
  await proxy?.close();
  await service?.close();
  if (redis) await stopRedis(redis);
});

/** The next worker, in turn: what a round-robin load balancer does. */
function next(): string {
  return workers[turn++ % workers.length]!.url;
}

/** POSTs a signed interaction to a worker and waits for its final answer. */
/**
 * Nova's title_c profile from `url`, asked until it comes with its card. A card drawn too late for
 * its answer's budget (a busy machine) leaves that answer text only, and is kept: the same profile
 * asked again has it at once, whatever the machine's speed.
 */
async function withCard(url: string): Promise<Awaited<ReturnType<typeof send>>> {
  for (let tries = 1; ; tries++) {
    const profile = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }), url);
    if (profile.callback.type === 5 || tries === 5) return profile;
  }
}

async function send(
  payload: Parameters<DiscordDouble['postInteraction']>[1],
  url = next(),
): Promise<{ handle: HttpInteractionHandle; callback: Callback; calls: RestCall[]; final: Message }> {
  const handle = double.postInteraction(url, payload);
  const http = await handle.http;
  expect(http.status).toBe(200);
  const calls = await settled(handle);
  const callback = calls[0]!.body as Callback;
  expect(calls[0]!.status).toBe(204);
  // The message the user ends up with: the callback's, or the last edit or follow-up after a deferral.
  const later = calls.slice(1).filter((c) => c.method === 'PATCH' || c.method === 'POST');
  const final = (later.length > 0 ? later[later.length - 1]!.body : callback.data) as Message;
  return { handle, callback, calls, final };
}

const settledBody = (calls: RestCall[]) => calls[0]!.body as Callback;

/** A raw POST to a worker with the given headers and body. */
async function raw(url: string, body: string, headers: Record<string, string>, method = 'POST'): Promise<number> {
  const res = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, ...(method === 'GET' ? {} : { body }) });
  await res.text();
  return res.status;
}

describe('signatures and refusals', () => {
  it('passes the developer portal’s check on every worker: PING answered, a bad signature refused', async () => {
    for (const { url } of workers) {
      const check = await double.verifyEndpoint(url);
      expect(check.ping).toMatchObject({ status: 200, body: { type: 1 } });
      expect(check.badSignature.status).toBe(401);
      expect(check.ok).toBe(true);
    }
  });

  it('refuses unsigned, badly signed and stale requests with 401, other methods with 405, big bodies with 413, bad JSON with 400', async () => {
    const url = workers[0]!.url;
    const body = JSON.stringify(chatInput({ group: 'title_c', subcommand: 'search', options: { query: 'nov', platform: 'pc_store_c' } }));
    expect(await raw(url, body, {})).toBe(401);
    const signed = double.signatureHeaders(body);
    expect(await raw(url, body.replace('nov', 'nox'), signed)).toBe(401);
    expect(await raw(url, body, { ...signed, 'x-signature-ed25519': 'zz' })).toBe(401);
    // Signed correctly, but ten minutes old: a replay.
    expect(await raw(url, body, double.signatureHeaders(body, Math.floor(Date.now() / 1000) - 600))).toBe(401);
    expect(await raw(url, body, signed, 'GET')).toBe(405);
    const big = JSON.stringify({ pad: 'x'.repeat(300 * 1024) });
    expect(await raw(url, big, double.signatureHeaders(big))).toBe(413);
    const broken = '{"type": 2,';
    expect(await raw(url, broken, double.signatureHeaders(broken))).toBe(400);
    // The second worker was never refused for its own traffic: the callbacks above reached no one.
    expect(double.restCalls.filter((c) => c.path.includes('/callback'))).toHaveLength(0);
  });

  it('refuses a request without signature headers before reading its body, closing its connection; keeps Discord’s idle ones past a load balancer’s 60 s', async () => {
    // A body that never ends: only a refusal that does not wait for it answers within the second.
    const answered = await new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      const req = request(workers[0]!.url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection });
        req.destroy();
      });
      req.on('error', reject);
      req.write('{"type": 2, "pad": "' + 'x'.repeat(64 * 1024));
      setTimeout(() => reject(new Error('no answer within a second: the body was waited for')), 1_000).unref();
    });
    expect(answered).toEqual({ status: 401, connection: 'close' });
    // A signed one (a PING) keeps its connection for the next.
    const ping = JSON.stringify({ id: snowflake(), application_id: double.applicationId, type: 1, token: 'ping-token', version: 1 });
    const kept = await new Promise<string | undefined>((resolve, reject) => {
      const req = request(workers[0]!.url, { method: 'POST', headers: { 'content-type': 'application/json', ...double.signatureHeaders(ping) } }, (res) => {
        res.resume();
        resolve(String(res.headers['keep-alive']));
      });
      req.on('error', reject);
      req.end(ping);
    });
    expect(kept).toBe('timeout=65');
  });
});

describe('commands, autocomplete and components over HTTP', () => {
  it('answers a quick command in the HTTP response, and autocomplete with choices', async () => {
    const search = await send(chatInput({ group: 'title_b', subcommand: 'search', options: { query: 'W', platform: 'pc_store_b' } }));
    expect(search.callback.type).toBe(4);
    expect(search.calls).toHaveLength(1);
    expect(search.final.embeds?.[0]?.description).toContain('Wraithling');
    const typed = await send(autocomplete({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: 'Nov' }, focused: 'player' }));
    expect(typed.callback.type).toBe(8);
    expect(typed.callback.data?.choices?.map((c) => c.value)).toContain('Nova#2231');
  });

  it('sends a profile’s card by an edit: deferred in the response, then the PNG through the webhook', async () => {
    const profile = await withCard(workers[1]!.url);
    expect(profile.callback.type).toBe(5);
    const edit = profile.calls.find((c) => c.method === 'PATCH');
    expect(edit?.path).toMatch(/\/webhooks\/\d+\/[^/]+\/messages\/@original$/);
    expect(edit?.files.map((f) => f.filename)).toEqual(['card.png']);
    expect(edit?.status).toBe(200);
    expect(profile.final.embeds?.[0]?.title).toBe('Nova');
  });

  it('counts a worker’s requests to Discord’s REST API (the edit after a deferral) in its metrics', async () => {
    const counted = async () =>
      Number(/^bot_discord_rest_requests_total\{result="ok"\} (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())?.[1] ?? NaN);
    // The card drawn and kept first, so that the answer measured is deferred and edited whatever the machine's speed.
    await withCard(workers[0]!.url);
    const before = await counted();
    const profile = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }), workers[0]!.url);
    expect(profile.calls.some((c) => c.method === 'PATCH')).toBe(true);
    expect(await counted()).toBeGreaterThan(before);
  });

  it('a link made through one worker is seen by the other', async () => {
    const user = { id: '1180000000000000611', username: 'roamer' };
    const [a, b] = workers.map((w) => w.url) as [string, string];
    const link = await send(chatInput({ command: 'link', options: { title: 'title_c', platform: 'pc_store_c', player: 'nova#2231' }, user }), a);
    expect(link.final.embeds?.[0]?.title).toBe('Linked: Nova#2231');
    const mine = await send(chatInput({ group: 'title_c', subcommand: 'profile', options: { card: false }, user }), b);
    expect(mine.final.embeds?.[0]?.title).toBe('Nova#2231');
  });

  it('a paged reply’s button pressed on the other worker turns the page', async () => {
    const owner = { id: '1180000000000000612', username: 'pager' };
    const [a, b] = workers.map((w) => w.url) as [string, string];
    const list = await send(chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: 'pc_store_a', player: 'novaplays' }, user: owner }), a);
    const button = list.final.components?.flatMap((r) => r.components).find((c) => c.label === 'Next ▶');
    expect(button?.custom_id).toMatch(/^pg:[\w-]+:1$/);
    const page2 = await send(component({ customId: button!.custom_id!, user: owner }), b);
    expect(page2.callback.type).toBe(7);
    expect(page2.final.embeds?.[0]?.footer?.text).toContain('page 2');
  });

  it('tells a server-only command used in a DM that it needs a server, privately', async () => {
    const dm = await send(chatInput({ command: 'leaderboard', options: { title: 'title_c' }, guildId: null }));
    expect(dm.callback).toMatchObject({ type: 4, data: { flags: EPHEMERAL } });
    expect(dm.final.content ?? dm.final.embeds?.[0]?.description).toContain('server');
  });

  it('defers a slow answer in the HTTP response and edits it in through the webhook', async () => {
    proxy.setFault('slow', 1_500);
    try {
      const slow = await send(chatInput({ group: 'title_d', subcommand: 'profile', options: { player: 'novaplays', card: false } }));
      expect(slow.callback.type).toBe(5);
      const edit = slow.calls.find((c) => c.method === 'PATCH');
      expect(edit?.status).toBe(200);
      expect(slow.final.embeds?.[0]?.title).toMatch(/nova/i);
    } finally {
      proxy.setFault('pass');
    }
  });

  it('answers alike through the gateway and through HTTP, links shared between them', async () => {
    const user = { id: '1180000000000000613', username: 'both' };
    const viaGateway = await settled(
      double.dispatchInteraction(chatInput({ command: 'link', options: { title: 'title_b', platform: 'pc_store_b', player: 'Wraithling' }, user })),
    );
    expect(viaGateway[0]!.path).toMatch(/^\/interactions\/\d+\/[^/]+\/callback$/);
    const command = { group: 'title_b', subcommand: 'search', options: { query: 'W', platform: 'pc_store_b' }, user };
    const gatewayData = settledBody(await settled(double.dispatchInteraction(chatInput(command)))).data!;
    const http = await send(chatInput(command));
    // The same embeds; the same controls but for the id of each reply's own state.
    const plain = (m: Message) => JSON.stringify({ embeds: m.embeds, components: m.components }).replace(/"(\w\w):[\w-]+(:[^"]*)?"/g, '"$1:<state>$2"');
    expect(plain(http.final)).toBe(plain(gatewayData));
    expect(http.final.embeds?.[0]?.description).toContain('Wraithling');
    // The link made through the gateway, read by an HTTP worker.
    const mine = await send(chatInput({ group: 'title_b', subcommand: 'profile', options: { card: false }, user }));
    expect(mine.final.embeds?.[0]?.title).toBe('Wraithling');
  });

  it('never writes an interaction token or the public key to the log, and each worker answered', () => {
    const tokens = double.restCalls.flatMap((c) => /\/webhooks\/\d+\/([^/]+)/.exec(c.path)?.[1] ?? []);
    expect(tokens.length).toBeGreaterThan(0);
    for (const bot of [...workers.map((w) => w.bot), gateway]) {
      const out = bot.output();
      expect(out).toContain('"msg":"interaction"');
      for (const token of tokens) expect(out).not.toContain(token);
      expect(out).not.toContain(double.publicKey);
    }
  });

  it('stops on SIGTERM: lets go of its port and exits 0, while the other worker goes on answering', async () => {
    const [first, second] = workers as [(typeof workers)[number], (typeof workers)[number]];
    const exited = new Promise<number | null>((resolve) => first.bot.child.once('exit', resolve));
    first.bot.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await first.bot.printed('"msg":"stopped"')).toContain('"msg":"stopped"');
    await expect(fetch(first.url, { method: 'POST', body: '{}' })).rejects.toThrow();
    const still = await send(chatInput({ group: 'title_b', subcommand: 'search', options: { query: 'W', platform: 'pc_store_b' } }), second.url);
    expect(still.callback.type).toBe(4);
  });
});
