// `npm run bench`: the figures that decide whether the bot keeps Discord's deadlines and the stats
// service's quota, measured in one run on this machine, each against its target and against the
// baseline bot (bench/baseline-bot.ts). Prints a table and writes bench/results/latest.json.
// Not part of `npm test`: it takes a few minutes and wants the machine to itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

import autocannon from 'autocannon';

import { createCardRenderer, type ProfileCardModel } from '../src/cards/index.js';
import { demoLines } from '../src/service/demo.js';
import { autocomplete, chatInput, snowflake, startDiscordDouble, type DiscordDouble, type InteractionHandle } from '../test/discord-double/index.js';
import { interactionToken } from '../test/discord-double/ids.js';
import { cleanEnv, tempLinksDb } from '../test/helpers/bot.js';
import { startFaultProxy } from '../test/helpers/fault-proxy.js';
import { freePort } from '../test/helpers/redis.js';
import { settled } from '../test/helpers/interactions.js';
import { describeMachine } from './machine.js';
import { canCapture, startCapture, type Capture } from './wire.js';
import { heavyMatches } from './heavy-player.js';
import { SHIPPED_ENV, SHIPPED_FLAGS, shippedBot } from './shipped-bot.js';
import { runSoak } from './soak.js';

const TOKEN = 'MTE4MDAwMDAwMDAwMDAwMDAwMQ.Zx9aBQ.bench-token-abcdefghijklmnopqrstuv';

interface Figure {
  section: string;
  name: string;
  value: number;
  unit: string;
  /** `<` or `>=`: what meeting the target means. */
  target?: { op: '<' | '>='; value: number };
  baseline?: number;
  note?: string;
}
const figures: Figure[] = [];
const record = (f: Figure) => {
  figures.push(f);
  process.stderr.write(`  ${f.section} · ${f.name}: ${f.value} ${f.unit}${f.baseline !== undefined ? ` (baseline ${f.baseline})` : ''}\n`);
};

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
function stats(samples: number[]): { p50: number; p99: number; n: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: round(quantile(sorted, 0.5), 2), p99: round(quantile(sorted, 0.99), 2), n: sorted.length };
}

/** CPU time (user + system) a process has used so far, in ms: steadier than wall time on a shared machine. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of /proc/<pid>/stat (11 and 12 after the name), in clock ticks.
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return round(kb / 1024, 1);
}

/**
 * Resident memory once it has settled: read each second until it has not fallen by more than 1 MB
 * in 10 s, 60 s at most. V8 gives back the garbage of a start (the embedded service's dataset
 * import, the commands' modules) some seconds after the process goes idle: read at once, the
 * figure was the start's, not the idle bot's (docs/benchmarks.md).
 */
async function settledRssMb(pid: number): Promise<number> {
  const read: number[] = [];
  for (let second = 0; second < 60; second++) {
    read.push(rssMb(pid));
    if (read.length > 10 && (read.at(-11) ?? 0) - (read.at(-1) ?? 0) <= 1) break;
    await sleep(1_000);
  }
  return read.at(-1) ?? NaN;
}

/** `BENCH_BOT_FLAGS="--cpu-prof --cpu-prof-dir=prof"`: more Node flags for the bot process (profiling). */
const EXTRA_FLAGS = (process.env.BENCH_BOT_FLAGS ?? '').split(' ').filter((w) => w.length > 0);
/** The bot's flags for what is being measured (the shipped ones but while comparing). */
let START_FLAGS = SHIPPED_FLAGS;

/** A process of the project's, started like `npm start`/`npm run service` do, with the given settings. */
function startProcess(script: string, args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  // The bot is measured as it ships (bench/shipped-bot.ts); the rest runs from the sources.
  const command = script === 'src/bot/main.ts' ? [...START_FLAGS, ...EXTRA_FLAGS, shippedBot()] : ['--import', 'tsx', script];
  // The bot and the baseline bot both with the recipes' environment (the allocator's pools).
  const shipped = script === 'src/service/main.ts' ? {} : SHIPPED_ENV;
  const child = spawn(process.execPath, [...command, ...args], {
    env: { ...cleanEnv(), ...shipped, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  return { child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(8_000).then(() => child.kill('SIGKILL'))]);
}

/** Starts `npm run service` on a free port with a dataset file; resolves with its base URL. */
async function startServiceProcess(data: string): Promise<{ url: string; child: ChildProcess }> {
  const p = startProcess('src/service/main.ts', ['--port', '0', '--data', data], {});
  for (let i = 0; i < 600; i++) {
    const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(p.output());
    if (m?.[1]) return { url: m[1], child: p.child };
    await sleep(100);
  }
  throw new Error(`the service did not start: ${p.output()}`);
}

type Bot = { child: ChildProcess; double: DiscordDouble; kind: 'bot' | 'baseline'; output: () => string };

async function startBotAgainst(kind: Bot['kind'], env: Record<string, string>): Promise<Bot> {
  const double = await startDiscordDouble({ token: TOKEN });
  const script = kind === 'bot' ? 'src/bot/main.ts' : 'bench/baseline-bot.ts';
  const p = startProcess(script, [], { DISCORD_TOKEN: TOKEN, DISCORD_API_URL: double.apiUrl, LINKS_DB: tempLinksDb(), ...env });
  try {
    await double.waitForReady(60_000);
  } catch (e) {
    // What the bot said is why it never identified (a crash, a refused setting): the bench says it too.
    await stop(p.child);
    await double.close();
    throw new Error(`${(e as Error).message}; the bot's output:\n${p.output().slice(-4000)}`);
  }
  return { child: p.child, double, kind, output: p.output };
}

async function closeBot(bot: Bot): Promise<void> {
  await stop(bot.child);
  await bot.double.close();
}

/** Latency of one interaction: dispatch to the first REST callback, and to the final answer. */
async function timeOne(bot: Bot, payload: Parameters<DiscordDouble['dispatchInteraction']>[0], timeoutMs = 15_000): Promise<{ first: number; final: number }> {
  const handle = bot.double.dispatchInteraction(payload);
  const calls = await settled(handle, timeoutMs, null);
  return { first: calls[0]!.at - handle.dispatchedAt, final: calls.at(-1)!.at - handle.dispatchedAt };
}

const demoPlayers = () => {
  const players: { title: string; platform: string; id: string }[] = [];
  for (const line of demoLines()) {
    const r = JSON.parse(line) as { type: string; title: string; platform: string; id: string; private?: boolean };
    if (r.type !== 'player' || r.private) continue;
    if (r.title === 'title_b' && r.platform === 'pc_store_c') continue;
    players.push(r);
  }
  return players;
};

/** Deterministic Zipf-like draw: a few popular players, a long tail of rare ones. */
function zipf(n: number, s: number, seed: number): () => number {
  const weights = Array.from({ length: n }, (_, i) => 1 / (i + 1) ** s);
  const total = weights.reduce((a, b) => a + b, 0);
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    let r = (x / 2 ** 31) * total;
    for (let i = 0; i < n; i++) if ((r -= weights[i] ?? 0) <= 0) return i;
    return n - 1;
  };
}

const profileOf = (p: { title: string; platform: string; id: string }) =>
  chatInput({ group: p.title, subcommand: 'profile', options: { platform: p.platform, player: p.id } });

async function latency(kind: Bot['kind'], serviceUrl: string): Promise<void> {
  const section = '1. Interaction latency';
  // The real bot runs its embedded service, as on a fresh machine; the baseline fetches from the service process.
  const bot = await startBotAgainst(kind, kind === 'bot' ? {} : { LOOKUP_BASE_URL: serviceUrl });
  const players = demoPlayers();
  const label = kind === 'bot' ? '' : ' (baseline)';
  try {
    for (let i = 0; i < 50; i++) await timeOne(bot, autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: '' }, focused: 'platform' }));
    const runs: [string, () => Parameters<DiscordDouble['dispatchInteraction']>[0], number, Figure['target'] | undefined, Figure['target'] | undefined][] = [
      [
        'autocomplete platform',
        () => autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'c' }, focused: 'platform' }),
        500,
        undefined,
        { op: '<', value: 10 },
      ],
      [
        'autocomplete segment',
        () => autocomplete({ group: 'title_a', subcommand: 'segments', options: { segment: 'ma' }, focused: 'segment' }),
        500,
        undefined,
        { op: '<', value: 10 },
      ],
      [
        'autocomplete player (search)',
        (() => {
          let i = 0;
          return () => {
            const p = players[i++ % players.length]!;
            return autocomplete({ group: p.title, subcommand: 'profile', options: { platform: p.platform, player: p.id.slice(0, 3) }, focused: 'player' });
          };
        })(),
        300,
        undefined,
        undefined,
      ],
      [
        'profile from cache',
        () => chatInput({ group: 'title_c', subcommand: 'profile', options: { platform: 'console_a', player: 'Nova' } }),
        500,
        { op: '<', value: 10 },
        { op: '<', value: 25 },
      ],
    ];
    for (const [name, make, n, p50Target, p99Target] of runs) {
      const first: number[] = [];
      const final: number[] = [];
      for (let i = 0; i < n; i++) {
        const t = await timeOne(bot, make());
        first.push(t.first);
        final.push(t.final);
      }
      const a = stats(first);
      const b = stats(final);
      figureWithBaseline(
        { section, name: `${name} p50${label}`, value: a.p50, unit: 'ms', ...(p50Target ? { target: p50Target } : {}), note: `n=${a.n}, first callback` },
        kind,
      );
      figureWithBaseline(
        { section, name: `${name} p99${label}`, value: a.p99, unit: 'ms', ...(p99Target ? { target: p99Target } : {}), note: `n=${a.n}, first callback` },
        kind,
      );
      if (!name.startsWith('autocomplete'))
        figureWithBaseline(
          { section, name: `${name}, final answer p50${label}`, value: b.p50, unit: 'ms', note: 'the reply, or the edit after a deferral' },
          kind,
        );
    }
    // Cold: each player once, straight from the service.
    const first: number[] = [];
    const final: number[] = [];
    for (const p of players) {
      const t = await timeOne(bot, profileOf(p));
      first.push(t.first);
      final.push(t.final);
    }
    figureWithBaseline(
      {
        section,
        name: `profile cold p50${label}`,
        value: stats(first).p50,
        unit: 'ms',
        target: { op: '<', value: 40 },
        note: `n=${first.length}, each player once, first callback`,
      },
      kind,
    );
    figureWithBaseline({ section, name: `profile cold p99${label}`, value: stats(first).p99, unit: 'ms', note: `n=${first.length}` }, kind);
    figureWithBaseline(
      { section, name: `profile cold, final answer p50${label}`, value: stats(final).p50, unit: 'ms', note: 'the reply, or the edit after a deferral' },
      kind,
    );
  } finally {
    await closeBot(bot);
  }
}

/** The real bot's figures are recorded; the baseline's are attached to them as `baseline`. */
function figureWithBaseline(f: Figure, kind: Bot['kind']): void {
  if (kind === 'bot') return record(f);
  const name = f.name.replace(' (baseline)', '');
  const mine = figures.find((x) => x.section === f.section && x.name === name);
  if (mine) mine.baseline = f.value;
  process.stderr.write(`  ${f.section} · ${f.name}: ${f.value} ${f.unit}\n`);
}

/** Closed loop: `concurrency` interactions in flight for `seconds`; every one must be answered within 3 s. */
async function throughput(kind: Bot['kind'], serviceUrl: string, label = '', env: Record<string, string> = {}): Promise<void> {
  const bot = await startBotAgainst(kind, kind === 'bot' ? env : { LOOKUP_BASE_URL: serviceUrl });
  const players = demoPlayers().slice(0, 40);
  try {
    // Warm: the mix is mostly cached, as a bot in steady use is.
    for (const p of players) await timeOne(bot, profileOf(p));
    const platformTyped = autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: 'c' }, focused: 'platform' });
    const profiles = players.map(profileOf);
    const segmentTyped = players.map((p) => autocomplete({ group: p.title, subcommand: 'segments', options: { segment: '' }, focused: 'segment' }));
    const seconds = 10;
    const concurrency = 64;
    const end = performance.now() + seconds * 1000;
    let answered = 0;
    let late = 0;
    let lost = 0;
    let i = 0;
    const worker = async () => {
      while (performance.now() < end) {
        const k = i++;
        const n = k % players.length;
        // Each a new interaction (its own id and token) made from one built in advance: building
        // the whole payload each time was a tenth of this process, which shares the cores with the bot.
        const template = k % 3 === 0 ? platformTyped : k % 3 === 1 ? profiles[n]! : segmentTyped[n]!;
        const handle: InteractionHandle = bot.double.dispatchInteraction({ ...template, id: snowflake(), token: interactionToken() });
        try {
          const calls = await settled(handle, 10_000, null);
          if (calls[0]!.at - handle.dispatchedAt > 3_000 || calls[0]!.status >= 300) late++;
          else answered++;
        } catch {
          lost++;
        }
        // As the soak does: the double keeps nothing of an interaction counted, so that this
        // process's heap (and its garbage collection) does not grow with the run.
        bot.double.forget(handle);
      }
    };
    const started = performance.now();
    const cpuBefore = cpuMs(bot.child.pid!);
    const driverBefore = process.cpuUsage();
    await Promise.all(Array.from({ length: concurrency }, worker));
    const cpu = cpuMs(bot.child.pid!) - cpuBefore;
    const rss = rssMb(bot.child.pid!);
    const driver = process.cpuUsage(driverBefore);
    // The double and this loop share one process: on 2 cores its CPU bounds what any bot can show.
    const driverCpu = (driver.user + driver.system) / 1000;
    const rate = round(answered / ((performance.now() - started) / 1000), 0);
    const perCpuSecond = round(answered / (cpu / 1000), 0);
    figureWithBaseline(
      {
        section: '2. Throughput',
        name: `interactions answered a second${kind === 'bot' ? label : ' (baseline)'}`,
        value: rate,
        unit: '/s',
        target: { op: '>=', value: 5000 },
        note: `${seconds} s, ${concurrency} in flight, mixed, cache warm; late ${late}, lost ${lost}`,
      },
      kind,
    );
    figureWithBaseline(
      {
        section: '2. Throughput',
        name: `interactions answered per CPU second of the bot process${kind === 'bot' ? label : ' (baseline)'}`,
        value: perCpuSecond,
        unit: '/s',
        note: `${round(cpu / 1000, 2)} CPU s for ${answered}; steadier than the wall-clock rate on a shared machine; resident memory ${rss} MB after; the double and the load loop used ${round(driverCpu / 1000, 2)} CPU s`,
      },
      kind,
    );
  } finally {
    await closeBot(bot);
  }
}

/** Requests reaching the stats service for a skewed mix of 1,000 interactions, and for a burst of 100 identical ones. */
async function economy(kind: Bot['kind'], serviceUrl: string): Promise<void> {
  const proxy = await startFaultProxy(serviceUrl);
  const bot = await startBotAgainst(kind, { LOOKUP_BASE_URL: proxy.url });
  const players = demoPlayers();
  const draw = zipf(players.length, 1.1, 7);
  try {
    const before = proxy.passed();
    const handles: InteractionHandle[] = [];
    for (let i = 0; i < 1000; i++) {
      const p = players[draw()]!;
      handles.push(bot.double.dispatchInteraction(profileOf(p)));
      if (handles.length % 16 === 0) await Promise.all(handles.slice(-16).map((h) => settled(h, 15_000, null)));
    }
    await Promise.all(handles.map((h) => settled(h, 15_000, null)));
    const perThousand = proxy.passed() - before;
    figureWithBaseline(
      {
        section: '3. Upstream economy',
        name: `requests to the service per 1,000 interactions${kind === 'bot' ? '' : ' (baseline)'}`,
        value: perThousand,
        unit: 'requests',
        note: `Zipf(1.1) over ${players.length} players`,
      },
      kind,
    );
    const cold = players[players.length - 1]!;
    const burstBefore = proxy.passed();
    const burst = Array.from({ length: 100 }, () =>
      bot.double.dispatchInteraction(profileOf({ ...cold, id: cold.id.toUpperCase() === cold.id ? cold.id.toLowerCase() : cold.id.toUpperCase() })),
    );
    await Promise.all(burst.map((h) => settled(h, 15_000, null)));
    figureWithBaseline(
      {
        section: '3. Upstream economy',
        name: `requests for a burst of 100 identical lookups${kind === 'bot' ? '' : ' (baseline)'}`,
        value: proxy.passed() - burstBefore,
        unit: 'requests',
        target: { op: '<', value: 2 },
      },
      kind,
    );
  } finally {
    await closeBot(bot);
    await proxy.close();
  }
}

/** The service process, stopped before the bench exits. */
let serviceChild: ChildProcess | undefined;

/** Starts the service process on the demo data and a heavy player; measures it alone when `measure`. */
async function serviceAlone(measure = true): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-data-'));
  const data = join(dir, 'demo-and-heavy.jsonl');
  const lines = [...demoLines()];
  for (const m of heavyMatches('title_a', 'heavy_a')) lines.push(JSON.stringify(m));
  for (const m of heavyMatches('title_b', 'heavy_b')) lines.push(JSON.stringify(m));
  writeFileSync(data, lines.join('\n'));
  const service = await startServiceProcess(data);
  serviceChild = service.child;
  const section = '4. The service alone';
  const runs: [string, string, Figure['target'] | undefined][] = [
    ['profile', '/v2/title_c/standard/profile/pc_store_c/Nova%232231', { op: '>=', value: 5000 }],
    ['segments (map)', '/v2/title_a/standard/profile/pc_store_a/novaplays/segments/map', undefined],
    ['search', '/v2/title_c/standard/search?platform=pc_store_c&query=nov', undefined],
    ['sessions', '/v2/title_b/standard/profile/pc_store_b/Wraithling/sessions', undefined],
    ['profile, 10,000 matches', '/v2/title_a/standard/profile/pc_store_a/heavy_a', undefined],
    ['sessions, 10,000 matches', '/v2/title_b/standard/profile/pc_store_b/heavy_b/sessions', undefined],
  ];
  for (const [name, path, target] of measure ? runs : []) {
    const result = await autocannon({ url: service.url + path, connections: 16, duration: 5, pipelining: 1 });
    record({
      section,
      name: `${name}, requests a second`,
      value: round(result.requests.average, 0),
      unit: '/s',
      ...(target ? { target } : {}),
      note: `autocannon, 16 connections, 5 s, p99 ${result.latency.p99} ms, non-2xx ${result.non2xx}`,
    });
  }
  return service.url;
}

function guildPayload(index: number, channels: number, members: number): Record<string, unknown> {
  const base = 1_300_000_000_000_000_000n + BigInt(index) * 10_000n;
  const id = (n: number) => String(base + BigInt(n));
  const guildId = id(0);
  return {
    id: guildId,
    name: `Guild ${index}`,
    icon: null,
    owner_id: id(9_999),
    roles: [{ id: guildId, name: '@everyone', permissions: '0', position: 0, color: 0, hoist: false, managed: false, mentionable: false, flags: 0 }],
    emojis: [],
    stickers: [],
    features: [],
    member_count: members,
    large: true,
    unavailable: false,
    joined_at: '2026-01-01T00:00:00.000Z',
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
    premium_tier: 0,
    system_channel_flags: 0,
    preferred_locale: 'en-US',
    channels: Array.from({ length: channels }, (_, i) => ({
      id: id(1 + i),
      type: 0,
      name: `channel-${i}`,
      position: i,
      permission_overwrites: [],
      guild_id: guildId,
    })),
    members: Array.from({ length: members }, (_, i) => ({
      user: { id: id(200 + i), username: `member${index}-${i}`, discriminator: '0', global_name: null, avatar: null },
      roles: [],
      joined_at: '2026-01-01T00:00:00.000Z',
      deaf: false,
      mute: false,
      flags: 0,
    })),
    threads: [],
    presences: [],
    voice_states: [],
    stage_instances: [],
    guild_scheduled_events: [],
  };
}

async function memory(kind: Bot['kind'], serviceUrl: string): Promise<void> {
  const bot = await startBotAgainst(kind, kind === 'bot' ? {} : { LOOKUP_BASE_URL: serviceUrl });
  const label = kind === 'bot' ? '' : ' (baseline)';
  try {
    const pid = bot.child.pid!;
    figureWithBaseline(
      { section: '5. Memory', name: `resident memory idle${label}`, value: await settledRssMb(pid), unit: 'MB', target: { op: '<', value: 150 } },
      kind,
    );
    for (let g = 0; g < 2_500; g++) {
      bot.double.dispatch('GUILD_CREATE', guildPayload(g, 100, 1_000));
      if (g % 50 === 49) await sleep(5);
    }
    // A barrier: once this is answered, every GUILD_CREATE before it has been read. The baseline
    // caches 2.5 million members first, which took over 15 s at the machine's slow moments.
    await timeOne(bot, autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: '' }, focused: 'platform' }), 120_000);
    figureWithBaseline(
      {
        section: '5. Memory',
        name: `resident memory after 2,500 guilds${label}`,
        value: await settledRssMb(pid),
        unit: 'MB',
        target: { op: '<', value: 150 },
        note: '2,500 GUILD_CREATE of 100 channels and 1,000 members each',
      },
      kind,
    );
  } finally {
    await closeBot(bot);
  }
}

function table(): string {
  const meets = (f: Figure) => (f.target ? (f.target.op === '<' ? f.value < f.target.value : f.value >= f.target.value) : undefined);
  const lines = ['| section | figure | value | target | baseline | ratio |', '|---|---|---|---|---|---|'];
  const order = (f: Figure) => Number.parseInt(f.section, 10);
  for (const f of [...figures].sort((a, b) => order(a) - order(b))) {
    const ok = meets(f);
    const ratio =
      f.baseline !== undefined && f.value > 0 && f.baseline > 0 ? `${round(f.unit === '/s' ? f.value / f.baseline : f.baseline / f.value, 1)}×` : '';
    lines.push(
      `| ${f.section} | ${f.name}${f.note ? ` (${f.note})` : ''} | ${f.value} ${f.unit} | ${f.target ? `${f.target.op} ${f.target.value} ${ok ? '✓' : '✗ missed'}` : ''} | ${f.baseline ?? ''} | ${ratio} |`,
    );
  }
  return lines.join('\n');
}

/**
 * This process's garbage collector, to be run by hand: the bench calls it before each burst, so that
 * the Discord double (which runs here) does not stop for a collection in the middle of one. A
 * collection of the double's lands on one autocomplete of the burst and, with seventy-odd samples a
 * burst, decides its p99, though the bot did nothing slower; the bot's own collector, in its own
 * process, is not touched.
 */
function harnessCollector(): () => void {
  v8.setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Cards: the time to draw one (the pool as the bot uses it: post to a worker, PNG back; every card
 * new, so no cache), and autocomplete while the bot answers a burst of profiles at once with cards
 * it has not drawn yet (their lookups cached, their cards not), with cards off for comparison in the
 * same run. Autocomplete is timed from the double's dispatch to the moment the bot's answer went out
 * on its connection (the bot's log, on the host's monotonic clock): the bot's whole share, on which
 * the target is set. Beside it: the round trip as the Discord double records it (the double runs in
 * this process, which also receives the whole burst), the bot's own part (frame read to answer
 * written) and undici's wait for the connection (answer made to written).
 */
async function cards(): Promise<void> {
  const section = '7. Cards';
  const renderer = createCardRenderer();
  const model = (i: number): ProfileCardModel => ({
    kind: 'profile',
    title: 'title_c',
    language: 'en',
    name: `Player ${i}`,
    subtitle: 'Title C · Console A · Main: Ana',
    rank: i % 2 ? { tier: 'Diamond 1', mark: 'D1', fill: '#6aa8ff', edge: '#2a55b8', rating: String(11_000 + i), peak: null } : null,
    form: ['win', 'loss', 'win'],
    trend: null,
    lead: [
      { label: 'K/D', value: (i / 100).toFixed(2), percentile: i % 100 },
      { label: 'Win rate', value: `${i % 100}.5%`, percentile: 55 },
    ],
    figures: [
      { label: 'Kills/match', value: '18.15', percentile: (i * 7) % 100 },
      { label: 'Damage/match', value: '9,928', percentile: 73.8 },
      { label: 'Matches', value: String(i), percentile: null },
    ],
  });
  try {
    await renderer.render(model(-1)); // starts the worker and loads the fonts
    const times: number[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      await renderer.render(model(i));
      times.push(performance.now() - t);
    }
    const s = stats(times);
    record({
      section,
      name: 'card render p50',
      value: s.p50,
      unit: 'ms',
      target: { op: '<', value: 20 },
      note: `n=${s.n}, profile card 640×500, worker pool of 1, round trip`,
    });
    record({ section, name: 'card render p99', value: s.p99, unit: 'ms', note: `n=${s.n}` });
  } finally {
    await renderer.close();
  }

  const players = demoPlayers();
  const collect = harnessCollector();
  // The round trip on the wire too, when asked (BENCH_WIRE=1) and tcpdump can capture loopback
  // (bench/wire.ts): the capture takes CPU from the two cores, so the run's other figures are worse with it.
  const wire = process.env.BENCH_WIRE === '1' && canCapture();
  const typing = () => autocomplete({ group: 'title_b', subcommand: 'segments', options: { platform: '' }, focused: 'platform' });
  // The host's monotonic clock, which the bot's log lines use: performance.now() counts from this process's start on it.
  const monotonicOffset = Number(process.hrtime.bigint()) / 1e6 - performance.now();
  const oneBurst = async (env: Record<string, string>) => {
    // LOG_LEVEL=info: each autocomplete's log line says when the bot read its frame, made its answer and wrote it out.
    const bot = await startBotAgainst('bot', { LOG_LEVEL: 'info', ...env });
    let capture: Capture | undefined;
    try {
      for (let i = 0; i < 50; i++) await timeOne(bot, typing());
      // Lookups warm (asked for once with card:false), cards cold: the burst is of cards, not of lookups.
      for (const p of players)
        await timeOne(bot, chatInput({ group: p.title, subcommand: 'profile', options: { platform: p.platform, player: p.id, card: false } }));
      const loop = monitorEventLoopDelay({ resolution: 1 });
      loop.enable();
      capture = wire ? await startCapture(Number(new URL(bot.double.apiUrl).port)) : undefined;
      collect();
      // Collections of this process during the burst (there should be none: see harnessCollector).
      const pauses: PerformanceEntry[] = [];
      const collections = new PerformanceObserver((list) => pauses.push(...list.getEntries()));
      collections.observe({ entryTypes: ['gc'] });
      const cpuBefore = cpuMs(bot.child.pid!);
      const started = performance.now();
      const burst = players.map((p) => bot.double.dispatchInteraction(profileOf(p)));
      // Someone typing all through the burst: an autocomplete every 5 ms (open loop: one answered late
      // does not hold the next back), until every profile is answered.
      let done = false;
      // 5 s: Discord refuses an answer after 3 s, and the bot skips what it reads too late.
      const all = Promise.all(burst.map((h) => settled(h, 5_000, null).catch(() => []))).finally(() => (done = true));
      const typed: InteractionHandle[] = [];
      while (!done) {
        typed.push(bot.double.dispatchInteraction(typing()));
        await sleep(5);
      }
      await all;
      const cpu = cpuMs(bot.child.pid!) - cpuBefore;
      const answers = await Promise.all(typed.map((h) => h.firstResponse(15_000).catch(() => undefined)));
      loop.disable();
      const onWire = await capture?.stop();
      const lastReplyAt = Math.max(started, ...burst.flatMap((h) => h.responses()[0]?.at ?? []));
      const lastReply = lastReplyAt - started;
      const unanswered = burst.filter((h) => h.responses().length === 0).length;
      const cardsSent = burst.filter((h) => h.responses().some((c) => c.files.length > 0)).length;
      const reasons = [...bot.output().matchAll(/"reason":"(\w+)"/g)].map((m) => m[1]);
      const shed = Object.fromEntries(['busy', 'timeout', 'late', 'failed'].map((r) => [r, reasons.filter((x) => x === r).length]));
      // The bot's own account of each autocomplete: frame read, answer made, answer written out (monotonic ms).
      const stamps = new Map<string, { readAt: number; sentAt: number; writtenAt?: number }>();
      for (const line of bot.output().split('\n')) {
        if (!line.includes('"sentAt"')) continue;
        const j = JSON.parse(line) as { interaction: string; readAt: number; sentAt: number; writtenAt?: number };
        stamps.set(j.interaction, j);
      }
      const roundTrip: number[] = [];
      const untilWritten: number[] = [];
      const inBot: number[] = [];
      const connectionWait: number[] = [];
      const afterWritten: number[] = [];
      /** Answers with no written stamp: sent through discord.js' queue (a failure of the direct way), not timed. */
      let unstamped = 0;
      const wireTrip: number[] = [];
      typed.forEach((h, i) => {
        // Those typed after the last profile was answered are not during the burst.
        if (h.dispatchedAt > lastReplyAt) return;
        const answer = answers[i];
        if (answer) roundTrip.push(answer.at - h.dispatchedAt);
        const [frame, callback] = [onWire?.frames.get(h.id), onWire?.callbacks.get(h.id)];
        if (frame !== undefined && callback !== undefined) wireTrip.push(callback - frame);
        const s = stamps.get(h.id);
        if (!s) return;
        if (s.writtenAt === undefined) {
          unstamped++;
          return;
        }
        untilWritten.push(s.writtenAt - (h.dispatchedAt + monotonicOffset));
        inBot.push(s.writtenAt - s.readAt);
        connectionWait.push(s.writtenAt - s.sentAt);
        if (answer) afterWritten.push(answer.at + monotonicOffset - s.writtenAt);
      });
      const missing = answers.filter((a) => !a).length;
      collections.disconnect();
      const harnessPauses = pauses.filter((e) => e.startTime >= started && e.startTime <= lastReplyAt).map((e) => e.duration);
      const harnessGc = { count: harnessPauses.length, maxMs: round(Math.max(0, ...harnessPauses), 1) };
      process.stderr.write(
        `  burst${env.CARDS === 'off' ? ' (CARDS=off)' : ''}: last reply ${round(lastReply, 0)} ms, ${unanswered} unanswered, ${cardsSent} with a card, cards not drawn ${JSON.stringify(shed)}; ${typed.length} autocompletes, ${missing} unanswered${unstamped ? `, ${unstamped} sent through the REST queue (not timed)` : ''}; the bench process collected ${harnessGc.count} times meanwhile (longest ${harnessGc.maxMs} ms)\n`,
      );
      return {
        roundTrip,
        wireTrip,
        untilWritten,
        inBot,
        connectionWait,
        afterWritten,
        harnessLoop: { p99: round(loop.percentile(99) / 1e6, 1), max: round(loop.max / 1e6, 1) },
        harnessGc,
        lastReply: round(lastReply, 0),
        cpu,
        unanswered,
        cardsSent,
        shed,
      };
    } finally {
      // A capture left running by a failure ends with its burst (tcpdump would outlive the bench).
      await capture?.stop().catch(() => undefined);
      await closeBot(bot);
    }
  };
  // A burst gives seventy to ninety autocompletes, so its p99 is its slowest: the figures pool
  // CARD_ROUNDS bursts, each with a bot of its own. With three the p99 was the third slowest sample,
  // and moved between runs more than the changes it was meant to show; with ten it is the ninth.
  const rounds = Math.max(1, Number(process.env.CARD_ROUNDS ?? 10));
  const duringBurst = async (env: Record<string, string>) => {
    const all: Awaited<ReturnType<typeof oneBurst>>[] = [];
    for (let i = 0; i < rounds; i++) all.push(await oneBurst(env));
    const sum = (f: (r: (typeof all)[number]) => number) => all.reduce((a, r) => a + f(r), 0);
    return {
      roundTrip: stats(all.flatMap((r) => r.roundTrip)),
      wireTrip: stats(all.flatMap((r) => r.wireTrip)),
      untilWritten: stats(all.flatMap((r) => r.untilWritten)),
      inBot: stats(all.flatMap((r) => r.inBot)),
      connectionWait: stats(all.flatMap((r) => r.connectionWait)),
      afterWritten: stats(all.flatMap((r) => r.afterWritten)),
      harnessLoop: { p99: Math.max(...all.map((r) => r.harnessLoop.p99)), max: Math.max(...all.map((r) => r.harnessLoop.max)) },
      harnessGc: { count: sum((r) => r.harnessGc.count), maxMs: Math.max(...all.map((r) => r.harnessGc.maxMs)) },
      lastReply: Math.round(sum((r) => r.lastReply) / rounds),
      cpu: Math.round(sum((r) => r.cpu) / rounds),
      unanswered: sum((r) => r.unanswered),
      cardsSent: Math.round(sum((r) => r.cardsSent) / rounds),
      shed: Object.fromEntries(Object.keys(all[0]!.shed).map((k) => [k, Math.round(sum((r) => r.shed[k] ?? 0) / rounds)])),
    };
  };
  const on = await duringBurst({});
  const off = await duringBurst({ CARDS: 'off' });
  const burstNote = `${rounds} bursts pooled, each of ${players.length} profiles dispatched at once (lookups cached, cards not) to a bot of its own, an autocomplete every 5 ms until all were answered`;
  const target = { op: '<', value: 10 } as const;
  // The target is on the bot's whole share: from the double's dispatch (the frame leaving "Discord")
  // to the answer going out on the bot's connection, every wait on the way in the bot's process
  // included. The round trip adds the way back into the double, which on Discord is the network's
  // and Discord's own: reported, without a target (see the README's section 7).
  record({
    section,
    name: 'autocomplete p99 during a burst of cards, dispatch to answer written out by the bot',
    value: on.untilWritten.p99,
    unit: 'ms',
    target,
    baseline: off.untilWritten.p99,
    note: `n=${on.untilWritten.n}, ${burstNote}; baseline: the same with CARDS=off`,
  });
  record({
    section,
    name: 'autocomplete p50 during the burst, dispatch to answer written out',
    value: on.untilWritten.p50,
    unit: 'ms',
    baseline: off.untilWritten.p50,
  });
  record({
    section,
    name: 'autocomplete p99 during the burst, round trip as the Discord double sees it',
    value: on.roundTrip.p99,
    unit: 'ms',
    baseline: off.roundTrip.p99,
    note: `n=${on.roundTrip.n}; no target: it adds the double's own reading, in the bench process that also receives the whole burst (its event loop delay p99 ${on.harnessLoop.p99} ms, max ${on.harnessLoop.max} ms; its collector ran ${on.harnessGc.count} times during the bursts, longest ${on.harnessGc.maxMs} ms)`,
  });
  record({ section, name: 'autocomplete p50 during the burst, round trip', value: on.roundTrip.p50, unit: 'ms', baseline: off.roundTrip.p50 });
  if (wire)
    record({
      section,
      name: 'autocomplete p99 during the burst, round trip on the wire',
      value: on.wireTrip.p99,
      unit: 'ms',
      baseline: off.wireTrip.p99,
      note: `n=${on.wireTrip.n}, p50 ${on.wireTrip.p50} ms; a loopback capture (tcpdump): the double's gateway frame leaving to the bot's callback arriving, as the kernel stamped them, without the bench process's own delays`,
    });
  else if (process.env.BENCH_WIRE === '1')
    process.stderr.write('  the round trip on the wire is left out: tcpdump is not installed, or may not capture loopback here\n');
  // The round trip's second hop: what the bench process (the double) adds after the bot has sent.
  record({
    section,
    name: 'autocomplete p99 during the burst, answer written out by the bot to the double stamping it',
    value: on.afterWritten.p99,
    unit: 'ms',
    baseline: off.afterWritten.p99,
    note: `p50 ${on.afterWritten.p50} ms; the double's share of the round trip (the bot's clock and the bench's are the same monotonic clock)`,
  });
  record({
    section,
    name: 'autocomplete p99 during the burst, in the bot: frame read to answer written out',
    value: on.inBot.p99,
    unit: 'ms',
    baseline: off.inBot.p99,
    note: `p50 ${on.inBot.p50} ms`,
  });
  record({
    section,
    name: 'autocomplete p99 during the burst, in the bot: answer made to written out (its wait for the connection included)',
    value: on.connectionWait.p99,
    unit: 'ms',
    baseline: off.connectionWait.p99,
    note: `p50 ${on.connectionWait.p50} ms`,
  });
  record({
    section,
    name: 'the burst: last profile answered',
    value: on.lastReply,
    unit: 'ms',
    baseline: off.lastReply,
    note: `a burst's averages: ${on.cardsSent} of ${players.length} with a card, cards not drawn ${JSON.stringify(on.shed)}, ${on.unanswered} unanswered (CARDS=off: ${off.unanswered}); the bot's CPU time for the burst ${on.cpu} ms (CARDS=off: ${off.cpu} ms), the card worker's included`,
  });
}

/** The soak through the real bot, its figures in section 6; `label` names a Node setting being compared. */
async function soak(serviceUrl: string, seconds: number, rate: number, label = ''): Promise<void> {
  const section = '6. Soak';
  process.stderr.write(`soak: ${seconds} s at ${rate} interactions a second${label}, bot flags: ${START_FLAGS.join(' ') || '(none)'}\n`);
  const r = await runSoak({ seconds, rate, serviceUrl, nodeFlags: [...START_FLAGS, ...EXTRA_FLAGS], token: TOKEN });
  const note = `${seconds} s, ${r.achievedRate}/s dispatched, ${r.dispatched} interactions${label}`;
  record({
    section,
    name: `resident memory, highest while traffic ran and 30 s after${label}`,
    value: r.peakMb,
    unit: 'MB',
    target: { op: '<', value: 250 },
    note: `${note}; samples every 10 s: ${r.rss.map((x) => x.mb).join(', ')}`,
  });
  const m = r.mainThread;
  if (m)
    record({
      section,
      name: `main thread's V8 heap at the end (used of total; the rest of RSS is code, native memory and the card worker)${label}`,
      value: m.heapTotal,
      unit: 'MB',
      note: `heap used ${m.heapUsed} MB, external ${m.external} MB (ArrayBuffers ${m.arrayBuffers}), RSS ${m.rss} MB`,
    });
  record({
    section,
    name: `replies sent without their card${label}`,
    value: Object.values(r.cardsNotDrawn).reduce((a, b) => a + b, 0),
    unit: '',
    note: `by reason: ${JSON.stringify(r.cardsNotDrawn)} (late: the answer's budget was spent; timeout: not drawn within what was left of it; busy: queue full)`,
  });
  record({
    section,
    name: `resident memory, highest of the second half minus the first half${label}`,
    value: round(r.secondHalfPeakMb - r.firstHalfPeakMb, 1),
    unit: 'MB',
    note: 'a plateau keeps it near 0',
  });
  record({ section, name: `final answer p50, all interactions${label}`, value: r.p50, unit: 'ms', note: 'the reply, or the edit/follow-up after a deferral' });
  record({ section, name: `final answer p99, all interactions${label}`, value: r.p99, unit: 'ms' });
  record({
    section,
    name: `deferred answers p99${label}`,
    value: r.deferredP99,
    unit: 'ms',
    target: { op: '<', value: 3000 },
    note: `n=${r.deferred}, p50 ${r.deferredP50} ms`,
  });
  record({ section, name: `interactions unanswered${label}`, value: r.unanswered, unit: '', target: { op: '<', value: 1 }, note: `of ${r.dispatched}` });
}

/**
 * The service at scale: `npm run bench:scale` (bench/scale.ts) on 10,000 and 100,000 generated
 * matches of the current shape, SQLite and PostgreSQL; its headline figures join this table (the
 * other shapes and 1M: run bench:scale alone).
 */
async function scale(): Promise<void> {
  const sizes = '10000,100000';
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/scale.ts', '--matches', sizes, '--shapes', 'current'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`bench/scale.ts exited with ${code}`);
  const { rows } = JSON.parse(readFileSync(`bench/results/scale-${sizes.replace(',', '-')}.json`, 'utf8')) as {
    rows: { matches: number; store: string; figure: string; value: number; unit: string }[];
  };
  const targets: Record<string, Figure['target']> = {
    import: { op: '>=', value: 10_000 },
    'first profile after a start (typical player)': { op: '<', value: 50 },
    'match report p50': { op: '<', value: 1 },
    'profile by vanity name (resolution + warm profile) p50': { op: '<', value: 1 },
  };
  for (const r of rows) {
    if (!(r.figure in targets) && r.figure !== 'import, per CPU second of the importing process') continue;
    const target = targets[r.figure];
    figures.push({
      section: '8. Scale',
      name: `${r.figure}, ${r.matches.toLocaleString('en')} matches, ${r.store}`,
      value: r.value,
      unit: r.unit,
      ...(target ? { target } : {}),
      note: 'the import, the median of three (bench:scale), its target on every shape; the others are for 1M matches',
    });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      seconds: { type: 'string', default: '120' },
      rate: { type: 'string', default: '500' },
      'compare-semi-space': { type: 'boolean', default: false },
      'compare-flags': { type: 'string' },
    },
  });
  const seconds = Number(values.seconds);
  const rate = Number(values.rate);
  if (!Number.isInteger(seconds) || seconds < 10 || !Number.isInteger(rate) || rate < 1) {
    process.stderr.write(
      'usage: npm run bench [-- soak | cards | throughput | memory] [--seconds 120 (the soak, at least 10)] [--rate 500] [--compare-semi-space | --compare-flags="<node flags>"]\n',
    );
    process.exit(2);
  }
  const machine = await describeMachine();
  process.stderr.write(`npm run bench on ${machine}\n`);
  if (positionals.includes('cards')) {
    // `npm run bench -- cards`: the cards section alone.
    await cards();
    process.stdout.write(`${table()}\n`);
    process.exit(0);
  }
  if (positionals.includes('throughput')) {
    // `npm run bench -- throughput`: section 2 alone (the bot, the bot with metrics on, the
    // baseline), for profiling (BENCH_BOT_FLAGS) and before/after comparisons close in time.
    const serviceUrl = await serviceAlone(false);
    await throughput('bot', serviceUrl);
    // The same with metrics on: they must not cost measurable throughput.
    await throughput('bot', serviceUrl, ' (METRICS_PORT set)', { METRICS_PORT: String(await freePort()) });
    await throughput('baseline', serviceUrl);
    process.stdout.write(`${table()}\n`);
    if (serviceChild) await stop(serviceChild);
    process.exit(0);
  }
  if (positionals.includes('memory')) {
    // `npm run bench -- memory`: section 5 alone (resident memory idle and after 2,500 guilds).
    const serviceUrl = await serviceAlone(false);
    for (const kind of ['bot', 'baseline'] as const) await memory(kind, serviceUrl);
    process.stdout.write(`${table()}\n`);
    if (serviceChild) await stop(serviceChild);
    process.exit(0);
  }
  const soakOnly = positionals.includes('soak');
  const serviceUrl = await serviceAlone(!soakOnly);
  if (!soakOnly) {
    for (const kind of ['bot', 'baseline'] as const) await latency(kind, serviceUrl);
    for (const kind of ['bot', 'baseline'] as const) await throughput(kind, serviceUrl);
    for (const kind of ['bot', 'baseline'] as const) await economy(kind, serviceUrl);
    for (const kind of ['bot', 'baseline'] as const) await memory(kind, serviceUrl);
  }
  await soak(serviceUrl, seconds, rate);
  // The same soak and closed loop with other Node flags, to weigh the shipped ones: Node's default
  // young generation (the shipped heap cap kept), or any flags given.
  const compared =
    values['compare-flags'] !== undefined
      ? values['compare-flags'].split(' ').filter((w) => w.length > 0)
      : values['compare-semi-space']
        ? SHIPPED_FLAGS.filter((f) => !f.startsWith('--max-semi-space-size'))
        : undefined;
  if (compared) {
    const label = ` (${compared.join(' ') || 'no Node flags'})`;
    START_FLAGS = compared;
    await soak(serviceUrl, seconds, rate, label);
    await throughput('bot', serviceUrl, label);
    START_FLAGS = SHIPPED_FLAGS;
    if (soakOnly) await throughput('bot', serviceUrl);
  }
  if (!soakOnly) await cards();
  if (!soakOnly) await scale();
  const out = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine}.\n\n${table()}\n`;
  process.stdout.write(out);
  mkdirSync('bench/results', { recursive: true });
  writeFileSync(
    soakOnly ? 'bench/results/latest-soak.json' : 'bench/results/latest.json',
    JSON.stringify({ machine, at: new Date().toISOString(), figures }, null, 2),
  );
  if (serviceChild) await stop(serviceChild);
  process.exit(0);
}

await main();
