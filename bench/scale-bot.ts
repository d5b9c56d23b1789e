// The bot while its embedded service imports a large dataset (`npm run bench:scale -- --stores bot`):
// the real bot process (`npm start`'s flags) against the Discord double, with STATS_DATASET set to
// the generated file and a fresh STATS_STORE, so that its child process imports all of it. From the
// moment the bot is connected until its log says the store is loaded, an autocomplete (the platform
// option, answered from memory) is dispatched every 5 ms and timed from dispatch to the moment the
// bot's answer went out on its connection (its log says when), and as the double records it; then
// as many again once loaded, for comparison. A profile asked during the import shows what a user
// reads then. Last, autocompletes are timed the same way while typical players' lookups are asked,
// then while the busiest players' are: the embedded service works them out in its own thread, never
// on the bot's event loop.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

import { TITLE_SLUGS, findEndpoint, type PlatformSlug, type TitleSlug } from '../src/catalog/index.js';
import { autocomplete, chatInput, startDiscordDouble, type InteractionHandle } from '../test/discord-double/index.js';
import { cleanEnv, tempLinksDb } from '../test/helpers/bot.js';
import { settled } from '../test/helpers/interactions.js';
import { benchPlayers, scalePlayer } from './scale-data.js';
import { SHIPPED_ENV, SHIPPED_FLAGS, shippedBot } from './shipped-bot.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.bench-token-abcdefghijklmnopqrstuv';

export interface BotFigure {
  figure: string;
  value: number;
  unit: string;
  target?: string;
}

/** `BENCH_BOT_FLAGS="--cpu-prof --cpu-prof-dir=prof"`: more Node flags for the bot process (profiling), as in bench/run.ts. */
const EXTRA_FLAGS = (process.env.BENCH_BOT_FLAGS ?? '').split(' ').filter((w) => w.length > 0);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;

/** How often a lookup is asked while autocompletes are timed against lookups. */
const LOOKUP_EVERY_MS = 40;

/** Each title's five players from activity rank `from` on, every kind of lookup a title has that takes a player. */
function playerCommands(from: number): { group: TitleSlug; subcommand: string; options: Record<string, string> }[] {
  const commands: { group: TitleSlug; subcommand: string; options: Record<string, string> }[] = [];
  for (const title of TITLE_SLUGS)
    for (let rank = from; rank < from + 5; rank++) {
      const { platform, id } = scalePlayer(title, rank);
      for (const kind of ['profile', 'sessions', 'matches'] as const)
        if (findEndpoint(title, kind)?.platforms.includes(platform as PlatformSlug))
          commands.push({ group: title, subcommand: kind, options: { platform, player: id } });
    }
  return commands;
}

export async function botWhileImporting(data: string, matches: number, record: (f: BotFigure) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'scale-bot-'));
  const double = await startDiscordDouble({ token: TOKEN });
  let output = '';
  const child = spawn(process.execPath, [...SHIPPED_FLAGS, ...EXTRA_FLAGS, shippedBot()], {
    env: {
      ...cleanEnv(),
      ...SHIPPED_ENV,
      DISCORD_TOKEN: TOKEN,
      DISCORD_API_URL: double.apiUrl,
      LINKS_DB: tempLinksDb(),
      STATS_DATASET: data,
      STATS_STORE: join(dir, 'store.sqlite'),
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const started = performance.now();
  try {
    await double.waitForReady(120_000);
    const connected = performance.now();
    const loaded = () => output.includes('embedded stats service loaded');
    const platform = () => autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'c' }, focused: 'platform' });
    // The host's monotonic clock, which the bot's log lines use: performance.now() counts from this process's start on it.
    const monotonicOffset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
    // Autocompletes, one every 5 ms, `count` of them or until `until`: the round trip as the double
    // sees it, from dispatch to the answer written out on the bot's connection as the bot's log
    // says (its whole share: the target is set on it, as in the cards bench), and the bot's own part
    // (frame read to answer written), in ms.
    const burst = async (until: () => boolean, count = Infinity) => {
      const handles: InteractionHandle[] = [];
      for (let i = 0; i < count && !until(); i++) {
        handles.push(double.dispatchInteraction(platform()));
        await sleep(5);
      }
      const calls = await Promise.all(handles.map((h) => settled(h, 30_000, null)));
      await sleep(500);
      const stamps = new Map<string, { readAt: number; writtenAt?: number }>();
      for (const line of output.split('\n')) {
        if (!line.includes('"sentAt"')) continue;
        const j = JSON.parse(line) as { interaction: string; readAt: number; writtenAt?: number };
        stamps.set(j.interaction, j);
      }
      const sorted = (xs: number[]) => xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
      // An answer without a written stamp went through discord.js' queue (the direct way failed): not timed.
      const written = (h: InteractionHandle) => stamps.get(h.id)?.writtenAt ?? NaN;
      return {
        n: handles.length,
        roundTrip: sorted(calls.map((c, i) => (c[0]?.at ?? NaN) - (handles[i]?.dispatchedAt ?? 0))),
        untilWritten: sorted(handles.map((h) => written(h) - (h.dispatchedAt + monotonicOffset))),
        inBot: sorted(handles.map((h) => written(h) - (stamps.get(h.id)?.readAt ?? NaN))),
      };
    };
    type Burst = Awaited<ReturnType<typeof burst>>;
    const recordBurst = (when: string, b: Burst, target?: string) => {
      record({
        figure: `autocomplete ${when} p99, dispatch to answer written out by the bot`,
        value: round(quantile(b.untilWritten, 0.99)),
        unit: 'ms',
        ...(target ? { target } : {}),
      });
      record({ figure: `autocomplete ${when} p50 (round trip)`, value: round(quantile(b.roundTrip, 0.5)), unit: 'ms' });
      record({
        figure: `autocomplete ${when} p99 (round trip, as the double in the bench process sees it)`,
        value: round(quantile(b.roundTrip, 0.99)),
        unit: 'ms',
      });
      record({ figure: `autocomplete ${when} p99, in the bot (frame read to answer written out)`, value: round(quantile(b.inBot, 0.99)), unit: 'ms' });
      record({ figure: `autocompletes ${when}`, value: b.n, unit: 'answered' });
    };
    record({ figure: 'bot connected, seconds after its start', value: round((connected - started) / 1000, 1), unit: 's' });
    if (loaded()) {
      // A small dataset is loaded before the bot connects: nothing to time while it imports.
      record({ figure: 'store loaded before the bot connected, seconds after its start', value: round((connected - started) / 1000, 1), unit: 's' });
    } else {
      const profile = double.dispatchInteraction(chatInput({ group: 'title_a', subcommand: 'profile', options: { platform: 'pc_store_a', player: 'ap1' } }));
      const during = await burst(loaded);
      const importSeconds = (performance.now() - started) / 1000;
      const load = loadavg()[0] ?? 0;
      const answer = (await settled(profile, 30_000, null)).at(-1)?.body as { data?: { content?: string }; content?: string } | undefined;
      const after = await burst(() => false, during.n);
      record({ figure: 'store loaded (the bot log says so), seconds after its start', value: round(importSeconds, 1), unit: 's' });
      recordBurst('while importing', during, '< 10');
      recordBurst('after loading', after);
      record({ figure: 'load average as the import ended', value: round(load, 1), unit: 'on the machine' });
      process.stderr.write(`  a profile asked during the import was answered: ${JSON.stringify(answer?.content ?? answer?.data?.content ?? answer)}\n`);
    }
    // Lookups of typical players, one asked every 40 ms, while autocompletes are timed until all are
    // answered: what the bot's own part of answering costs the autocompletes. Then the same lookups
    // for the busiest players, each cold in the service (hundreds of milliseconds of its work at a
    // million matches): the embedded service works in its own thread, so the difference is what
    // the bot does with larger answers. First, untimed, the same kinds of lookups for other typical
    // players: the bot's first answers after a start (its code not yet optimised) would otherwise
    // count against whichever section came first.
    const { heavy, typical } = benchPlayers(matches);
    for (const [who, rank] of [
      ['warm-up', typical + 5],
      ["typical players'", typical],
      ["the busiest players'", heavy],
    ] as const) {
      const commands = playerCommands(rank);
      let answered = 0;
      const lookupsStarted = performance.now();
      const answers: Promise<unknown>[] = [];
      const asking = (async () => {
        for (const c of commands) {
          answers.push(settled(double.dispatchInteraction(chatInput(c)), 60_000, null).finally(() => (answered += 1)));
          await sleep(LOOKUP_EVERY_MS);
        }
      })();
      const during = await burst(() => answered === commands.length);
      await asking;
      await Promise.all(answers);
      if (EXTRA_FLAGS.length > 0)
        process.stderr.write(
          `  ${who} lookups ran from ${round(lookupsStarted + monotonicOffset)} to ${round(performance.now() + monotonicOffset)} ms on the host's monotonic clock (a CPU profile's clock)\n`,
        );
      if (who === 'warm-up') continue;
      record({
        figure: `${who} lookups (${commands.length}, one every ${LOOKUP_EVERY_MS} ms: ${[...new Set(commands.map((c) => c.subcommand))].join(', ')}), seconds until all answered`,
        value: round((performance.now() - lookupsStarted) / 1000, 2),
        unit: 's',
      });
      recordBurst(`while ${who} lookups run`, during, '< 10');
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await Promise.race([exited, sleep(8_000).then(() => child.kill('SIGKILL'))]);
    await double.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
