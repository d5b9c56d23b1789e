// Metrics and health of the real bot process (METRICS_PORT): `/metrics` scraped after interactions
// through the Discord double moves the counters they should; `/readyz` follows the gateway and the
// stores (Redis at CACHE_URL stopped with SIGSTOP: it accepts connections and answers nothing).
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { autocomplete, chatInput } from '../discord-double/index.js';
import { settled } from '../helpers/interactions.js';
import { freePort, startRedis, stopRedis } from '../helpers/redis.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let redis: ChildProcess;
let metricsUrl: string;

/** The value of one series in Prometheus text (0 when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const open = line.indexOf('{');
    const set = open === -1 || open > line.indexOf(' ') ? '' : line.slice(open + 1, line.indexOf('}'));
    if (want.every((w) => set.split(',').includes(w))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

async function scrape(): Promise<string> {
  const res = await fetch(`${metricsUrl}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/plain');
  return res.text();
}

async function ready(): Promise<{ status: number; body: { status: string; failed?: { check: string }[] } }> {
  const res = await fetch(`${metricsUrl}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; failed?: { check: string }[] } };
}

/** Polls `/readyz` until it answers `status` (each answer takes at most the 1 s deadline). */
async function readyBecomes(status: number, withinMs: number): Promise<Awaited<ReturnType<typeof ready>>> {
  const until = Date.now() + withinMs;
  let last = await ready();
  while (last.status !== status && Date.now() < until) {
    await sleep(100);
    last = await ready();
  }
  return last;
}

const profile = (player: string) => chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player, card: false } });

beforeAll(async () => {
  const port = await freePort();
  redis = await startRedis(port);
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  stack = await startStack({ CACHE_URL: `redis://127.0.0.1:${port}`, METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' });
}, 40_000);

afterAll(async () => {
  redis.kill('SIGCONT');
  await stack.close();
  await stopRedis(redis);
});

describe('the bot with METRICS_PORT', () => {
  it('listens on loopback and answers /healthz', async () => {
    const res = await fetch(`${metricsUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect((await fetch(`${metricsUrl}/nothing-here`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/healthz`, { method: 'POST' })).status).toBe(405);
  });

  it('counts interactions by kind and outcome, their latency, the cache and the requests to the service', async () => {
    const before = await scrape();
    const { double, proxy } = stack;
    // A cold profile (a miss and a request to the service), the same again (a hit), an autocomplete.
    for (const payload of [
      profile('Nova'),
      profile('Nova'),
      autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'c' }, focused: 'platform' }),
    ]) {
      await settled(double.dispatchInteraction(payload));
    }
    // The service failing: an error counted by its kind.
    proxy.setFault(500);
    await settled(double.dispatchInteraction(profile('NoSuchPlayerAnywhere')), 15_000, null);
    proxy.setFault('pass');
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);

    expect(moved('bot_interactions_total', { kind: 'command', outcome: 'reply' })).toBe(2);
    expect(moved('bot_interactions_total', { kind: 'autocomplete', outcome: 'answered' })).toBe(1);
    // The service's 500s end as a notice to the user (or a deferral when retries took long).
    expect(
      moved('bot_interactions_total', { kind: 'command', outcome: 'notice' }) + moved('bot_interactions_total', { kind: 'command', outcome: 'deferred' }),
    ).toBe(1);
    expect(moved('bot_interaction_duration_seconds_count', { kind: 'command' })).toBe(3);
    expect(moved('bot_interaction_duration_seconds_count', { kind: 'autocomplete' })).toBe(1);
    expect(moved('bot_interaction_duration_seconds_bucket', { kind: 'command', le: '+Inf' })).toBe(3);
    expect(moved('bot_lookup_cache_total', { result: 'hit' })).toBeGreaterThanOrEqual(1);
    expect(moved('bot_lookup_cache_total', { result: 'miss' })).toBeGreaterThanOrEqual(2);
    expect(moved('bot_upstream_requests_total', { endpoint: 'profile', outcome: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(moved('bot_upstream_requests_total', { endpoint: 'profile', outcome: 'unavailable' })).toBeGreaterThanOrEqual(1);
    expect(moved('bot_discord_rest_requests_total', { result: 'ok' })).toBeGreaterThanOrEqual(4);
    // Node's own: memory and event loop delay; the REST queue empty once everything is answered.
    expect(sample(after, 'process_resident_memory_bytes')).toBeGreaterThan(10 * 2 ** 20);
    expect(after).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(sample(after, 'bot_discord_rest_queue_depth')).toBe(0);
    expect(sample(after, 'bot_gateway_up')).toBe(1);
    // Labels from fixed sets only: no player name reaches a series.
    expect(after).not.toMatch(/Nova|NoSuchPlayer/);
  }, 40_000);

  it('is ready while the gateway and the stores answer, 503 with a reason while Redis does not, and ready again after', async () => {
    expect(await readyBecomes(200, 5_000)).toEqual({ status: 200, body: { status: 'ready' } });
    redis.kill('SIGSTOP');
    const down = await readyBecomes(503, 5_000);
    expect(down.status).toBe(503);
    expect(down.body.status).toBe('not ready');
    expect(down.body.failed?.map((f) => f.check)).toEqual(expect.arrayContaining(['stores', 'lookup cache']));
    // Which checks, never why: the reasons (hosts, driver errors) go to the log.
    expect(down.body.failed?.every((f) => Object.keys(f).join() === 'check')).toBe(true);
    // Liveness is not readiness: the process still runs its loop.
    expect((await fetch(`${metricsUrl}/healthz`)).status).toBe(200);
    redis.kill('SIGCONT');
    expect((await readyBecomes(200, 10_000)).status).toBe(200);
  }, 40_000);
});
