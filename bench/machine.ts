// What the benches print about the machine they ran on: its cores, memory and Node, and how fast
// and how steady it was at the time. A shared virtual machine runs the same work much slower on one
// day than on another, and an idle process on it sees its timers fire late: figures from different
// days compare only beside these two numbers.
import { createHash } from 'node:crypto';
import { cpus, loadavg, totalmem } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

const round = (x: number, digits = 1) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A fixed piece of CPU work of the kind the service and the bot do (JSON in and out, a digest): its time in ms. */
function referenceLoopOnce(): number {
  const record = {
    type: 'match',
    title: 'title_b',
    id: 'm-0',
    players: Array.from({ length: 10 }, (_, i) => ({
      id: `player-${i}`,
      platform: 'pc',
      result: i % 2 ? 'win' : 'loss',
      stats: { kills: i, deaths: 3, damage: 1234.5 + i, headshots: i * 2 },
    })),
  };
  const text = JSON.stringify(record);
  const started = performance.now();
  let sink = 0;
  for (let i = 0; i < 10_000; i++) {
    const parsed = JSON.parse(text) as typeof record;
    parsed.id = `m-${i}`;
    sink += createHash('sha1').update(JSON.stringify(parsed)).digest()[0] ?? 0;
  }
  const ms = performance.now() - started;
  // The sum is used, so the loop cannot be optimised away.
  return sink < 0 ? -1 : ms;
}

/**
 * The reference loop run five times: its median and range in ms. A shared machine's speed moves
 * from second to second, so one run of the loop says little.
 */
function referenceLoopMs(): { median: number; min: number; max: number } {
  const runs = Array.from({ length: 5 }, referenceLoopOnce).sort((a, b) => a - b);
  return { median: round(runs[2] ?? 0, 0), min: round(runs[0] ?? 0, 0), max: round(runs[4] ?? 0, 0) };
}

/** The reference loop as the benches print it. */
export function describeReferenceLoop(): string {
  const r = referenceLoopMs();
  return `reference loop ${r.median} ms (${r.min} to ${r.max}; lower is faster)`;
}

/** How late a 1 ms timer fires in this idle process over `ms`: p99 and max, in ms. */
export async function idleTimerLateness(ms = 1000): Promise<{ p99: number; max: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  await sleep(ms);
  h.disable();
  // The histogram counts the 1 ms resolution in each delay.
  return { p99: round(Math.max(0, h.percentile(99) / 1e6 - 1), 2), max: round(Math.max(0, h.max / 1e6 - 1), 2) };
}

/** One line about the machine, now: cores, memory, Node, load, the reference loop and idle timer lateness. */
export async function describeMachine(): Promise<string> {
  const late = await idleTimerLateness();
  const load = loadavg()
    .map((l) => round(l, 1))
    .join(' ');
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${round(totalmem() / 2 ** 30, 0)} GiB, Node ${process.version}, load average ${load}; ${describeReferenceLoop()}, an idle 1 ms timer late by up to ${late.max} ms (p99 ${late.p99})`;
}
