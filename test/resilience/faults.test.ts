// Resilience: the real bot process, the Discord double, and a fault-injecting proxy between the bot
// and the stats service. Whatever the service does, every interaction is answered in time and the
// process stays up.
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { autocomplete, chatInput, type DiscordDouble, type RestCall } from '../discord-double/index.js';
import type { BotProcess } from '../helpers/bot.js';
import type { Fault, FaultProxy } from '../helpers/fault-proxy.js';
import { settled } from '../helpers/interactions.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let proxy: FaultProxy;
let double: DiscordDouble;
let bot: BotProcess;
/** Demo players on title_c's pc_store_c, each looked up cold once. */
let players: string[];

beforeAll(async () => {
  stack = await startStack({ LOOKUP_TIMEOUT_MS: '800' });
  ({ proxy, double, bot } = stack);
  players = (await stack.service.store.sql("SELECT id FROM players WHERE title = 'title_c' AND platform = 'pc_store_c' AND private = 0")).map((r) =>
    String(r.id),
  );
}, 40_000);

afterAll(() => stack.close());

const EPHEMERAL = 64;

/** The text the user finally reads. */
function finalText(calls: RestCall[]): { ephemeral: boolean; text: string; embed: boolean } {
  const last = calls.at(-1)!;
  const body = last.body as { type?: number; data?: Record<string, unknown>; flags?: number } & Record<string, unknown>;
  const message = (body.type !== undefined ? body.data : body) ?? {};
  return {
    ephemeral: ((message.flags as number | undefined) ?? 0) === EPHEMERAL,
    text: typeof message.content === 'string' ? message.content : '',
    embed: Array.isArray(message.embeds) && message.embeds.length > 0,
  };
}

/**
 * Each fault and what the user reads when a lookup meets it. The 429 comes last: the client then
 * holds every lookup for its Retry-After (1 s from the proxy), as a service over its quota asks.
 */
const FAULTS: [Exclude<Fault, 'pass'>, RegExp][] = [
  ['hang', /did not answer in time/],
  [500, /down right now/],
  [503, /down right now/],
  ['truncate', /could not read/],
  ['html', /could not read/],
  ['close', /down right now/],
  [429, /busy/],
];

describe('when the stats service fails', () => {
  let next = 0;
  const coldPlayer = () => players[next++ % players.length]!;

  it('answers normally while it works, and warms a profile into the cache', async () => {
    proxy.setFault('pass');
    const calls = await settled(
      double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } })),
    );
    expect(finalText(calls).embed).toBe(true);
  });

  it.each(FAULTS)('service %s: every interaction is answered in time, with the right message', async (fault, expected) => {
    proxy.setFault(fault);
    const cold = double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: coldPlayer() } }));
    const cached = double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }));
    const typed = `zz${fault}`;
    const choices = double.dispatchInteraction(
      autocomplete({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: typed }, focused: 'player' }),
    );

    const coldAnswer = finalText(await settled(cold));
    expect(coldAnswer.ephemeral).toBe(true);
    expect(coldAnswer.text).toMatch(expected);
    // What is cached is still served.
    expect(finalText(await settled(cached)).embed).toBe(true);
    const offered = await choices.firstResponse(3_000);
    expect(offered.at - choices.dispatchedAt).toBeLessThan(2_500);
    expect(offered.body).toEqual({ type: 8, data: { choices: [{ name: typed, value: typed }] } });
    expect(bot.child.exitCode).toBeNull();
  });

  it('recovers when the service is back', async () => {
    proxy.setFault('pass');
    // The 429's Retry-After runs out first.
    await sleep(1_100);
    const calls = await settled(
      double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'pc_store_c', player: coldPlayer() } })),
    );
    expect(finalText(calls).embed).toBe(true);
    expect(bot.output()).not.toContain('"level":50');
  });
});
