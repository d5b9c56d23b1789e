// The bot while its embedded service imports a large dataset (`npm run bench:scale -- --stores bot`):
// the real bot process (`npm start`'s flags) against the Discord double, with STATS_DATASET set to
// the generated file and a fresh STATS_STORE, so that its child process imports all of it. From the
// moment the bot is connected until its log says the store is loaded, an autocomplete (the platform
// option, answered from memory) is dispatched every 5 ms and timed from dispatch to the bot's
// answer as the double records it; then as many again once loaded, for comparison. A profile asked
// during the import shows what a user reads then.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { autocomplete, chatInput, startDiscordDouble, type InteractionHandle } from '../test/discord-double/index.js';
import { cleanEnv, tempLinksDb } from '../test/helpers/bot.js';
import { settled } from '../test/helpers/interactions.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.bench-token-abcdefghijklmnopqrstuv';
const SHIPPED_FLAGS = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ').filter((w) => w.startsWith('--max-'));

export interface BotFigure {
  figure: string;
  value: number;
  unit: string;
  target?: string;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

export async function botWhileImporting(data: string, record: (f: BotFigure) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scale-bot-'));
  const double = await startDiscordDouble({ token: TOKEN });
  let output = '';
  const child = spawn(process.execPath, [...SHIPPED_FLAGS, '--import', 'tsx', 'src/bot/main.ts'], {
    env: { ...cleanEnv(), DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LINKS_DB: tempLinksDb(), STATS_DATASET: data, STATS_STORE: join(dir, 'store.sqlite'), LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const started = performance.now();
  try {
    await double.waitForReady(120_000);
    const connected = performance.now();
    const loaded = () => output.includes('embedded stats service loaded');
    if (loaded()) throw new Error('the store was loaded before the bot connected: use a larger dataset');
    const platform = () => autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'c' }, focused: 'platform' });
    // A burst of `count` (or until `until`) autocompletes, one every 5 ms; round trips in ms.
    const burst = async (until: () => boolean, count = Infinity): Promise<number[]> => {
      const handles: InteractionHandle[] = [];
      for (let i = 0; i < count && !until(); i++) {
        handles.push(double.dispatchInteraction(platform()));
        await sleep(5);
      }
      const calls = await Promise.all(handles.map((h) => settled(h, 30_000, null)));
      return calls.map((c, i) => (c[0]?.at ?? NaN) - (handles[i]?.dispatchedAt ?? 0)).sort((a, b) => a - b);
    };
    const profile = double.dispatchInteraction(chatInput({ group: 'title_a', subcommand: 'profile', options: { platform: 'pc_store_a', player: 'ap1' } }));
    const during = await burst(loaded);
    const importSeconds = (performance.now() - started) / 1000;
    const load = loadavg()[0] ?? 0;
    const answer = (await settled(profile, 30_000, null)).at(-1)?.body as { data?: { content?: string }; content?: string } | undefined;
    const after = await burst(() => false, during.length);
    record({ figure: 'bot connected, seconds after its start', value: round((connected - started) / 1000, 1), unit: 's' });
    record({ figure: 'store loaded (the bot log says so), seconds after its start', value: round(importSeconds, 1), unit: 's' });
    record({ figure: 'autocomplete while importing p50', value: round(quantile(during, 0.5)), unit: 'ms' });
    record({ figure: 'autocomplete while importing p99', value: round(quantile(during, 0.99)), unit: 'ms', target: '< 10' });
    record({ figure: 'autocompletes while importing', value: during.length, unit: 'answered' });
    record({ figure: 'autocomplete after loading p50', value: round(quantile(after, 0.5)), unit: 'ms' });
    record({ figure: 'autocomplete after loading p99', value: round(quantile(after, 0.99)), unit: 'ms' });
    record({ figure: 'load average as the import ended', value: round(load, 1), unit: 'on the machine' });
    process.stderr.write(`  a profile asked during the import was answered: ${JSON.stringify(answer?.content ?? answer?.data?.content ?? answer)}\n`);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(8_000).then(() => child.kill('SIGKILL'))]);
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
