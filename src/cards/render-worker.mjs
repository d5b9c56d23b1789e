// A card-drawing worker thread: registers the shipped fonts once, then lays out each card model it
// is sent (layout.ts) and draws it into a PNG, one at a time. Plain JavaScript so that it starts the
// same under Node, tsx and vitest (src/module-beside.mjs says why); the layout comes through
// importBeside. The pool in renderer.ts owns deadlines, queueing and restarts.
import { pbkdf2 } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { pid, platform } from 'node:process';
import { parentPort, workerData } from 'node:worker_threads';

import { Renderer } from '@takumi-rs/core';

import { importBeside } from '../module-beside.mjs';

const { cardLayout } = /** @type {typeof import('./layout.ts')} */ (await importBeside(import.meta.url, 'layout'));
const { nodeOwnThreads } = /** @type {typeof import('./node-threads.ts')} */ (await importBeside(import.meta.url, 'node-threads'));

// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- workerData is what renderer.ts sends: the family, the font files and V8's pool size
const { family, fonts, v8Pool } =
  /** @type {{ family: string, fonts: { path: string, weight: number, unicodeRange: [number, number][] }[], v8Pool: number }} */ (workerData);

/** The nice value of the threads that draw: the bot's event loop gets a core before a card does. */
const DRAWING_NICE = 10;
/** Tasks given the thread pool at once to find its threads: twice libuv's default pool of 4, so that each of them takes one. */
const PROBE_TASKS = 8;
/** libuv's pool: its default 4 threads (the bot sets no other size; a larger pool is found in part). */
const POOL_THREADS = 4;
/** Probing rounds at most. */
const PROBE_ROUNDS = 5;

/**
 * CPU time each thread of this process has had, in ns, by thread id (Linux; empty elsewhere).
 * @returns {Map<number, number>}
 */
function threadTimes() {
  /** @type {Map<number, number>} */
  const times = new Map();
  try {
    for (const tid of readdirSync('/proc/self/task')) times.set(Number(tid), Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
  } catch {
    // No /proc: the threads keep their priority.
  }
  return times;
}

/** A few milliseconds of work on libuv's thread pool (a key derivation). */
const poolWork = () => new Promise((resolve) => pbkdf2('probe', 'salt', 20_000, 32, 'sha256', resolve));

/**
 * Lowers the priority of this thread and of the threads that draw. Takumi draws on libuv's thread
 * pool, not on this thread, so a nice value set here alone would not reach the drawing. The pool's
 * threads are found by what they do: they are given a little work at once (key derivations, not
 * cards: drawing on every pool thread at once left about 20 MB more resident), and the threads
 * whose CPU time grew by a good share of it are the pool's. On Linux a nice value is a thread's
 * own; the pool serves the rest of the process too, which the bot uses little (its files are read
 * at start). Node's own threads are left alone (node-threads.ts): V8's pool, busy with this worker's
 * start and garbage, grew with libuv's and was lowered with it (three of its four threads in every
 * test run while the worker loaded discord.js), leaving the bot's own collections to threads at
 * nice 10. Returns how many threads were lowered besides this one.
 * @returns {Promise<number>}
 */
async function lowerDrawingThreads() {
  // Elsewhere a nice value is the whole process's: the bot's own thread would be lowered with these.
  if (platform !== 'linux') return 0;
  let self;
  try {
    self = Number(/task\/(\d+)/.exec(readlinkSync('/proc/thread-self'))?.[1]);
    setPriority(0, DRAWING_NICE);
  } catch {
    return 0;
  }
  // On a busy machine one round can leave a pool thread with too small a share to be told from the
  // rest (it stayed at the normal priority and drew there): rounds go on until the pool's threads
  // are all found, a few at most.
  /** @type {Set<number>} */
  const lowered = new Set();
  const own = nodeOwnThreads([...threadTimes().keys()], pid, v8Pool);
  for (let round = 0; round < PROBE_ROUNDS && lowered.size < POOL_THREADS; round++) {
    const before = threadTimes();
    await Promise.all(Array.from({ length: PROBE_TASKS }, poolWork));
    /** @type {[tid: number, ns: number][]} */
    const grew = [...threadTimes()]
      .map(([tid, ns]) => /** @type {[number, number]} */ ([tid, ns - (before.get(tid) ?? ns)]))
      .filter(([tid]) => tid !== pid && tid !== self && !own.has(tid));
    const most = Math.max(0, ...grew.map(([, ns]) => ns));
    for (const [tid, ns] of grew)
      if (ns > 0 && ns >= most / 4 && !lowered.has(tid))
        try {
          setPriority(tid, DRAWING_NICE);
          lowered.add(tid);
        } catch {
          // The thread ended meanwhile.
        }
  }
  return lowered.size;
}

// Lowered first, before takumi starts: the threads it makes of its own (a pool for drawing in
// parallel) take the nice value of the thread that makes them, and would otherwise draw at the
// normal priority for the life of the process.
const lowered = await lowerDrawingThreads();

const renderer = new Renderer();
for (const f of fonts) await renderer.registerFont({ name: family, data: readFileSync(f.path), weight: f.weight, unicodeRange: f.unicodeRange });

parentPort?.on('message', (/** @type {{ id: number, model: import('./model.ts').CardModel }} */ job) => {
  let layout;
  try {
    layout = cardLayout(job.model);
  } catch (e) {
    parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) });
    return;
  }
  renderer.render(layout.node, { width: layout.width, height: layout.height, format: 'png' }).then(
    (png) => parentPort?.postMessage({ id: job.id, png }),
    (/** @type {unknown} */ e) => parentPort?.postMessage({ id: job.id, error: e instanceof Error ? e.message : String(e) }),
  );
});
parentPort?.postMessage({ ready: true, lowered });
