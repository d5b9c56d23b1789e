// Loaded into the bot by the soak (`node --import ./bench/memory-probe.mjs`): every 10 s one line on
// stderr with the main thread's memory by kind, so that the soak can break the process's RSS down
// (V8 heap, memory outside it, ArrayBuffers) instead of guessing. Bench-only; the bot never loads it.
import process from 'node:process';
import { setInterval } from 'node:timers';
import { getHeapSpaceStatistics } from 'node:v8';

const mb = (bytes) => Math.round((bytes / 2 ** 20) * 10) / 10;
const timer = setInterval(() => {
  const m = process.memoryUsage();
  const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name.replace(/_space$/, ''), mb(s.space_size)]));
  process.stderr.write(
    `memory-probe ${JSON.stringify({ rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers), spaces })}\n`,
  );
}, 10_000);
timer.unref();
