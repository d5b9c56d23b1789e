// The soak: several minutes of mixed interactions at a steady rate through the real bot process
// (`npm start`'s flags), over many distinct players, with a share of lookups slow enough to be
// deferred and paged replies whose controls expire during the run. It prints the bot's resident
// memory every 10 s (it must level off), answer latency p50/p99 including deferred edits, and the
// interactions never answered. `npm run bench -- soak [--seconds 300] [--rate 500]`.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { demoLines } from '../src/service/demo.js';
import { autocomplete, chatInput, component, startDiscordDouble, type InteractionHandle, type RestCall } from '../test/discord-double/index.js';
import { cleanEnv, tempLinksDb } from '../test/helpers/bot.js';
import { SHIPPED_ENV, shippedBot } from './shipped-bot.js';

export interface SoakOptions {
  seconds: number;
  /** Interactions dispatched a second. */
  rate: number;
  /** The stats service's base URL (a separate process). */
  serviceUrl: string;
  /** Node flags of the bot process (npm start's by default). */
  nodeFlags: string[];
  token: string;
  log?: (line: string) => void;
}

export interface SoakResult {
  dispatched: number;
  answered: number;
  /** Never answered within 15 s, or answered after Discord's 3 s (refused, as Discord does). */
  unanswered: number;
  deferred: number;
  /** Final answer (reply, or the edit/follow-up after a deferral), all interactions. */
  p50: number;
  p99: number;
  deferredP50: number;
  deferredP99: number;
  /** RSS samples every 10 s while traffic ran, then while idle, in MB. */
  rss: { at: number; mb: number; phase: 'traffic' | 'idle' }[];
  peakMb: number;
  /** Highest RSS of the first half of the traffic, and of the second half: a plateau keeps them close. */
  firstHalfPeakMb: number;
  secondHalfPeakMb: number;
  idleEndMb: number;
  achievedRate: number;
  /** The bot's main thread at the last sample (bench/memory-probe.mjs), MB. */
  mainThread: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number } | undefined;
  /** Cards the bot sent its reply without, by reason (busy, timeout, late, ...). */
  cardsNotDrawn: Record<string, number>;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  return round(kb / 1024, 1);
}

/** Deterministic pseudo-random numbers, so that two runs send the same mix. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1_103_515_245 + 12_345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

/** Passes requests to the service, one in `every` held `delayMs` first (by URL): slow enough to be deferred. */
async function startDelayingProxy(target: string, every: number, delayMs: number): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    let h = 0;
    for (const c of req.url ?? '') h = (h * 31 + c.charCodeAt(0)) >>> 0;
    const forward = () => {
      const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      out.on('error', () => res.destroy());
      req.pipe(out);
    };
    if (h % every === 0) setTimeout(forward, delayMs);
    else forward();
  });
  server.keepAliveTimeout = 4_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const isDeferral = (call: RestCall | undefined) => {
  const type = (call?.body as { type?: number } | undefined)?.type;
  return call?.path.endsWith('/callback') === true && (type === 5 || type === 6);
};
/** The call that carries the final answer, or undefined while there is none yet; `refused` when Discord refused it (too late). */
function finalCall(calls: RestCall[]): RestCall | 'refused' | undefined {
  if (calls.length === 0) return undefined;
  if (calls[0]!.status >= 300) return 'refused';
  if (!isDeferral(calls[0])) return calls[0];
  return calls.find((c) => c.method === 'PATCH' || (c.method === 'POST' && !c.path.endsWith('/callback')));
}

export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const proxy = await startDelayingProxy(options.serviceUrl, 12, 1_000);
  const double = await startDiscordDouble({ token: options.token });
  let output = '';
  const child: ChildProcess = spawn(process.execPath, [...options.nodeFlags, '--import', './bench/memory-probe.mjs', shippedBot()], {
    env: {
      ...cleanEnv(),
      ...SHIPPED_ENV,
      LOG_LEVEL: 'warn',
      DISCORD_TOKEN: options.token,
      DISCORD_API_URL: double.apiUrl,
      LOOKUP_BASE_URL: proxy.url,
      LINKS_DB: tempLinksDb(),
      CONTROLS_TTL_MS: '60000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The memory probe's latest line, and why cards were not drawn (the bot's warnings), by reason.
  let probe = '';
  const cardsShed: Record<string, number> = {};
  const read = (c: Buffer) => {
    const text = c.toString();
    output = (output + text).slice(-20_000);
    for (const line of text.split('\n')) {
      const m = /^memory-probe (\{.*\})$/.exec(line);
      if (m) probe = m[1]!;
      const shed = /"reason":"(\w+)".*card not drawn/.exec(line);
      if (shed) cardsShed[shed[1]!] = (cardsShed[shed[1]!] ?? 0) + 1;
    }
  };
  child.stdout?.on('data', read);
  child.stderr?.on('data', read);
  try {
    await double.waitForReady(60_000);
    const pid = child.pid!;
    const players: { title: string; platform: string; id: string }[] = [];
    for (const line of demoLines()) {
      const r = JSON.parse(line) as { type: string; title: string; platform: string; id: string; private?: boolean };
      if (r.type === 'player' && !r.private && !(r.title === 'title_b' && r.platform === 'pc_store_c')) players.push(r);
    }
    const titleA = players.filter((p) => p.title === 'title_a');
    const draw = random(42);
    const pick = <T>(list: T[]) => list[Math.floor(draw() * list.length)]!;
    const word = () => Math.floor(draw() * 36 ** 6).toString(36);
    const controls: string[] = [];

    const open = new Set<InteractionHandle>();
    const latencies: number[] = [];
    const deferredLatencies: number[] = [];
    let dispatched = 0;
    let answered = 0;
    let unanswered = 0;
    const makeOne = () => {
      const r = draw();
      const p = pick(players);
      if (r < 0.3)
        return autocomplete({
          group: p.title,
          subcommand: 'profile',
          options: { platform: p.platform, player: word().slice(0, 2 + Math.floor(draw() * 4)) },
          focused: 'player',
        });
      if (r < 0.4) return autocomplete({ group: 'title_a', subcommand: 'segments', options: { segment: 'ma' }, focused: 'segment' });
      if (r < 0.7) return chatInput({ group: p.title, subcommand: 'profile', options: { platform: p.platform, player: p.id } });
      if (r < 0.8) return chatInput({ group: p.title, subcommand: 'profile', options: { platform: p.platform, player: `nobody-${word()}` } });
      if (r < 0.95 || controls.length === 0) {
        const a = pick(titleA);
        return draw() < 0.5
          ? chatInput({ group: 'title_a', subcommand: 'matches', options: { platform: a.platform, player: a.id } })
          : chatInput({
              group: 'title_a',
              subcommand: 'segments',
              options: { platform: a.platform, player: a.id, segment: pick(['map', 'weapon', 'gamemode', 'playlist']) },
            });
      }
      return component({ customId: pick(controls) });
    };
    const check = (h: InteractionHandle, now: number) => {
      const calls = h.responses();
      const final = finalCall(calls);
      if (final === 'refused') unanswered++;
      else if (final) {
        const ms = final.at - h.dispatchedAt;
        latencies.push(ms);
        if (isDeferral(calls[0])) deferredLatencies.push(ms);
        answered++;
        const rows =
          (((final.body as { data?: unknown }).data ?? final.body) as { components?: { components?: { custom_id?: string; disabled?: boolean }[] }[] })
            .components ?? [];
        for (const c of rows.flatMap((row) => row.components ?? [])) if (c.custom_id?.startsWith('pg:') && !c.disabled) controls.push(c.custom_id);
        if (controls.length > 2_000) controls.splice(0, controls.length - 2_000);
      } else if (now - h.dispatchedAt > 15_000) unanswered++;
      else return;
      open.delete(h);
      double.forget(h);
    };

    const rss: SoakResult['rss'] = [];
    let died: string | undefined;
    const started = performance.now();
    const sample = (phase: 'traffic' | 'idle') => {
      // A bot that died (killed, crashed) has no RSS to read: the soak stops there and says why.
      if (child.exitCode !== null || child.signalCode !== null) {
        died ??= `the bot exited during the soak (${child.exitCode ?? child.signalCode}); its output:\n${output.slice(-4000)}`;
        return;
      }
      const mb = rssMb(pid);
      const at = Math.round((performance.now() - started) / 1000);
      rss.push({ at, mb, phase });
      const sorted = [...latencies].sort((a, b) => a - b);
      log(
        `  soak ${String(at).padStart(4)} s  rss ${mb} MB  ${phase}  dispatched ${dispatched}  answered ${answered}  open ${open.size}  unanswered ${unanswered}  p50 ${round(quantile(sorted, 0.5))} ms  p99 ${round(quantile(sorted, 0.99))} ms  deferred p99 ${round(
          quantile(
            [...deferredLatencies].sort((a, b) => a - b),
            0.99,
          ),
        )} ms (n=${deferredLatencies.length})  cards not drawn ${JSON.stringify(cardsShed)}`,
      );
      if (probe) log(`         main thread ${probe}`);
    };
    sample('traffic');
    const sampler = setInterval(() => sample(performance.now() - started < options.seconds * 1000 ? 'traffic' : 'idle'), 10_000);
    const end = started + options.seconds * 1000;
    let next = started;
    let scanned = started;
    while (performance.now() < end) {
      if (died) break;
      const now = performance.now();
      // Open loop: as many as the rate asks for by now, whatever the bot's pace.
      while (next <= now) {
        open.add(double.dispatchInteraction(makeOne()));
        dispatched++;
        next += 1000 / options.rate;
      }
      // Latencies come from the calls' own times: scanning less often keeps this process light.
      if (now - scanned >= 250) {
        scanned = now;
        for (const h of open) check(h, now);
      }
      await sleep(10);
    }
    const trafficSeconds = (performance.now() - started) / 1000;
    while (open.size > 0 && !died) {
      const now = performance.now();
      for (const h of open) check(h, now);
      await sleep(50);
    }
    // Idle: traffic has stopped; memory should hold or come down, never climb.
    const idleUntil = performance.now() + 30_000;
    while (performance.now() < idleUntil && !died) await sleep(500);
    clearInterval(sampler);
    sample('idle');
    if (died) throw new Error(died);
    const traffic = rss.filter((s) => s.phase === 'traffic');
    const half = options.seconds / 2;
    const sorted = [...latencies].sort((a, b) => a - b);
    const deferredSorted = [...deferredLatencies].sort((a, b) => a - b);
    return {
      dispatched,
      answered,
      unanswered,
      deferred: deferredLatencies.length,
      p50: round(quantile(sorted, 0.5)),
      p99: round(quantile(sorted, 0.99)),
      deferredP50: round(quantile(deferredSorted, 0.5)),
      deferredP99: round(quantile(deferredSorted, 0.99)),
      rss,
      peakMb: Math.max(...rss.map((s) => s.mb)),
      firstHalfPeakMb: Math.max(...traffic.filter((s) => s.at <= half).map((s) => s.mb)),
      secondHalfPeakMb: Math.max(...traffic.filter((s) => s.at > half).map((s) => s.mb), 0),
      idleEndMb: rss.at(-1)?.mb ?? NaN,
      achievedRate: round(dispatched / trafficSeconds, 0),
      mainThread: probe ? (JSON.parse(probe) as SoakResult['mainThread']) : undefined,
      cardsNotDrawn: cardsShed,
    };
  } finally {
    if (process.env.SOAK_DEBUG) process.stderr.write(`--- bot output ---\n${output.slice(-6_000)}\n`);
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(8_000).then(() => child.kill('SIGKILL'))]);
    }
    await double.close();
    await proxy.close();
  }
}
