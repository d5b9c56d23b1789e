// Resilience: the real bot process stopped (SIGTERM) while a deferred command still waits on a slow
// stats service. The stop waits as long as a command may wait for its lookups, so the deferred
// "thinking…" still gets its answer, and the process exits 0 with its last log line. And an error
// nobody caught is told through the logger (whose censoring Node's own report would bypass).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chatInput } from '../discord-double/index.js';
import { settled } from '../helpers/interactions.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ LOOKUP_TIMEOUT_MS: '7000' });
}, 40_000);

afterAll(() => stack.close());

describe('a stop while a deferred command waits on the stats service', () => {
  it('answers the command before exiting 0', async () => {
    const { proxy, double, bot } = stack;
    // 6 s: past the direct-reply budget (the command is deferred), and a stop's old 4 s of grace.
    proxy.setFault('slow', 6_000);
    const handle = double.dispatchInteraction(chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }));
    const first = await handle.firstResponse(5_000);
    expect((first.body as { type: number }).type).toBe(5);
    const exited = new Promise<number | null>((resolve) => bot.child.once('exit', resolve));
    bot.child.kill('SIGTERM');
    const calls = await settled(handle, 15_000);
    const last = calls.at(-1)!.body as { embeds?: unknown[] };
    expect(last.embeds?.length).toBeGreaterThan(0);
    expect(await exited).toBe(0);
    expect(await bot.printed('"msg":"stopped"')).toContain('"msg":"stopped"');
  }, 30_000);
});

describe('an error nobody caught', () => {
  it('is one fatal line without the interaction token in it, then the bot stops and exits 1', async () => {
    // Loaded into the bot process before it starts: a rejection nobody handles, carrying a webhook
    // URL as a DiscordAPIError does, made when the test says (SIGUSR2), once the bot is up: on a
    // timer it could come before a slow start ended, and the start was then waited for in vain.
    const dir = mkdtempSync(join(tmpdir(), 'uncaught-'));
    const script = join(dir, 'reject.mjs');
    writeFileSync(
      script,
      "process.on('SIGUSR2', () => Promise.reject(Object.assign(new Error('boom'), { url: 'http://127.0.0.1/api/v10/webhooks/1/SECRET-INTERACTION-TOKEN/messages/@original' })));\n",
    );
    const other = await startStack({ NODE_OPTIONS: `--import=${script}` });
    try {
      const exited = new Promise<number | null>((resolve) => other.bot.child.once('exit', resolve));
      other.bot.child.kill('SIGUSR2');
      expect(await exited).toBe(1);
      const output = other.bot.output();
      expect(output).toContain('"msg":"unhandled rejection: stopping"');
      expect(output).toContain('"err":"boom"');
      expect(output).not.toContain('SECRET-INTERACTION-TOKEN');
    } finally {
      await other.close();
    }
  }, 40_000);
});
