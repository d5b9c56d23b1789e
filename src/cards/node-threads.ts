// The threads Node starts for the whole process before any JavaScript runs: V8's platform (its pool
// of --v8-pool-size threads, 4 unless set, which collects garbage and compiles for every isolate,
// the bot's and each worker's) and two more (the platform's scheduler of delayed tasks among them;
// counted on Node 20, and checked by the card tests against a fresh process). They serve the bot's
// own thread too, so a worker must not lower them; the card tests tell their time apart from the
// drawing's.
import { availableParallelism } from 'node:os';

/** Threads a Node process starts with besides its main thread and V8's pool (seen on Node 20: 6 with the default pool of 4, 4 with a pool of 2). */
const PLATFORM_EXTRA_THREADS = 2;
/** Node's default --v8-pool-size. */
const DEFAULT_V8_POOL = 4;

/**
 * The size of V8's pool as this process was started, from its command line (`process.execArgv` of
 * the main thread: a worker started with `execArgv: []` sees none). A size set in NODE_OPTIONS is
 * not seen: the probe would then take the first of libuv's threads for Node's and leave them at the
 * normal priority, or lower one of V8's.
 */
export function v8PoolSize(execArgv: readonly string[]): number {
  let size = DEFAULT_V8_POOL;
  execArgv.forEach((arg, i) => {
    const m = /^--v8-pool-size(?:=(\d+))?$/.exec(arg);
    if (m) size = Number(m[1] ?? execArgv[i + 1]);
  });
  // 0: Node sizes the pool by the machine.
  return Number.isInteger(size) && size > 0 ? size : availableParallelism();
}

/**
 * Node's own threads among `tids` (this process's thread ids): the first ones started after the main
 * thread `pid`, as thread ids are handed out in the order threads start; `pool` is V8's pool size (v8PoolSize).
 */
export function nodeOwnThreads(tids: readonly number[], pid: number, pool: number): Set<number> {
  return new Set(
    [...tids]
      .filter((tid) => tid > pid)
      .sort((a, b) => a - b)
      .slice(0, pool + PLATFORM_EXTRA_THREADS),
  );
}
