// What `npm start` runs: the bot compiled to dist/ by `npm run build` (no TypeScript loader in the
// long-running process). The built bot starts its embedded service (the import in its compiled child
// process), answers a command with its card (the compiled card worker) and an autocomplete. `npm
// test` builds before vitest starts (a first build beside the other tests starved their processes);
// here the build is then one with nothing to do.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { autocomplete, chatInput, startDiscordDouble, type DiscordDouble } from './discord-double/index.js';
import { buildDist, startBot, type BotProcess } from './helpers/bot.js';
import { settled } from './helpers/interactions.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.build-token-abcdefghijklmnopqrstuv';

let double: DiscordDouble;
let bot: BotProcess;

beforeAll(async () => {
  const build = buildDist();
  expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
  double = await startDiscordDouble({ token: TOKEN });
  bot = startBot(
    { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, STATS_STORE: join(mkdtempSync(join(tmpdir(), 'built-')), 'stats.sqlite') },
    'dist/src/bot/main.js',
  );
  await double.waitForReady(30_000);
  await bot.storeLoaded();
}, 240_000);

afterAll(async () => {
  if (bot && bot.child.exitCode === null) bot.child.kill('SIGKILL');
  await double?.close();
});

describe('the built bot (npm run build, then npm start)', () => {
  it('runs without the TypeScript loader and answers from its embedded service', async () => {
    for (let i = 0; i < 100 && !bot.output().includes('"msg":"ready"'); i++) await sleep(100);
    expect(bot.output()).toContain('embedded service');
    const handle = double.dispatchInteraction(
      autocomplete({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'No' }, focused: 'player' }),
    );
    const call = await handle.firstResponse(5_000);
    const choices = (call.body as { data: { choices: { name: string }[] } }).data.choices.map((c) => c.name);
    expect(choices.some((c) => c.startsWith('Nova'))).toBe(true);
  });

  it('draws a profile card in its compiled worker', async () => {
    const input = { group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } } as const;
    // The first card starts the worker: on a busy machine the text may go alone, and the card next time.
    let calls = await settled(double.dispatchInteraction(chatInput(input)), 15_000, null);
    for (let attempt = 0; attempt < 10 && !calls.some((c) => c.files.length > 0); attempt++) {
      await sleep(500);
      calls = await settled(double.dispatchInteraction(chatInput(input)), 15_000, null);
    }
    const card = calls.find((c) => c.files.length > 0);
    expect(card?.files[0]?.filename, bot.output().slice(-2000)).toBe('card.png');
    expect(bot.output()).not.toMatch(/"level":(50|60)/);
  });
});
