// Draws cards off the event loop: a bounded pool of worker threads (one card at a time each), a
// bounded queue in front of it, a wait bounded per caller, and a bounded cache of the PNGs by
// content. A card that cannot be drawn in time, or at all, rejects with a CardRenderError: the
// caller sends the text reply instead and logs why. A card nobody waits for any more leaves the
// queue; one already being drawn is finished and cached (a worker is stopped only when stuck).
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

import { FONT_FAMILY, fontFiles, isDrawable } from './fonts.js';
import { v8PoolSize } from './node-threads.js';
import type { CardModel } from './model.js';

export type CardFailure = 'busy' | 'timeout' | 'late' | 'failed' | 'closed';

export class CardRenderError extends Error {
  constructor(
    readonly reason: CardFailure,
    message: string,
  ) {
    super(message);
    this.name = 'CardRenderError';
  }
}

export interface CardRendererOptions {
  /** Worker threads drawing cards; default 1 (the drawing itself is a few milliseconds). */
  workers?: number;
  /** Cards waiting for a worker beyond which a new one is refused at once (`busy`); default 128 (a card takes a few ms). */
  queue?: number;
  /**
   * The longest a caller waits for a card, queue included (`timeout`), and the longest one card may
   * take in a worker before the worker is taken for stuck and replaced. Default 2000 ms.
   */
  deadlineMs?: number;
  /** PNGs kept by content; default 256 cards and 16 MB, whichever is reached first. */
  cacheEntries?: number;
  cacheBytes?: number;
  /** The worker script; tests swap in one that hangs or fails. */
  workerUrl?: URL;
}

export interface RenderOptions {
  /**
   * How long this caller can wait, when less than the renderer's deadline (an answer that is already
   * late). 0 or less: no card is drawn for it (`late`). A card nobody waits for any more leaves the queue.
   */
  waitMs?: number;
}

export interface CardRendererStats {
  rendered: number;
  cacheHits: number;
  /** Callers that got no card, by reason. */
  failures: Record<CardFailure, number>;
  /** Queued cards dropped because every caller had stopped waiting. */
  dropped: number;
  /** Workers stopped because one card took past the deadline. */
  restarted: number;
  cached: number;
  cachedBytes: number;
  queued: number;
}

export interface CardRenderer {
  /** The card as PNG bytes; rejects with CardRenderError. */
  render(model: CardModel, options?: RenderOptions): Promise<Buffer>;
  /**
   * Starts every worker and draws one card in each, so that the first answers after a start do not
   * wait for a worker to load its fonts and warm up (the bot calls it before it connects).
   */
  warm(): Promise<void>;
  stats(): CardRendererStats;
  /** Stops the workers; cards in flight or queued reject with `closed`. */
  close(): Promise<void>;
}

interface Waiter {
  resolve(png: Buffer): void;
  reject(e: CardRenderError): void;
  timer: NodeJS.Timeout;
}

/** What a card took in a worker before any was measured (a profile card draws in a few ms). */
const FIRST_GUESS_MS = 10;

/** Drawn by `warm()`: every kind of text a card has, in the shipped fonts. */
const WARM_UP: CardModel = {
  kind: 'profile',
  title: 'title_c',
  language: 'en',
  name: 'Warm-up Łódź Ωμέγα Жук',
  subtitle: 'Title C · Console A',
  rank: { tier: 'Diamond 1', mark: 'D1', fill: '#6aa8ff', edge: '#2a55b8', rating: '11,902', peak: 'Peak Master' },
  form: ['win', 'loss', 'other'],
  trend: { label: 'Rating', values: [11_800, 11_902], from: '11,800', to: '11,902', rise: 1 },
  lead: [
    { label: 'K/D', value: '1.50', percentile: 67.5 },
    { label: 'Win rate', value: '49.5%', percentile: 55 },
  ],
  figures: [{ label: 'Matches', value: '91', percentile: null }],
};

/** One card to draw, shared by every caller asking for the same model meanwhile. */
interface Job {
  id: number;
  key: string;
  /** What the worker is sent: the model, which it lays out itself (a few hundred bytes to copy, not the node tree's few thousand, and nothing big held on this heap while the card waits). */
  payload: { id: number; model: CardModel };
  waiters: Set<Waiter>;
  /** When a worker took it (performance.now()). */
  startedAt?: number;
  /** Set while a worker draws it: the guard against a worker stuck on it. */
  stuck?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  /** Resolves once the worker has loaded its renderer and fonts (its `ready` message). */
  ready: Promise<void>;
  started: boolean;
}

/**
 * How long a worker may take to start (load the renderer and its fonts) before it is given up. Its
 * first card's stuck-guard starts only once it is ready: three bot processes starting at once on two
 * cores took over 2 s to start their workers, and the guard then stopped each worker before its
 * first card, so that the first cards after a start were drawn by cold workers, too late.
 */
export const WORKER_START_MS = 30_000;

type WorkerMessage = { ready: true; lowered: number } | { id: number; png: Uint8Array } | { id: number; error: string };

export function createCardRenderer(options: CardRendererOptions = {}): CardRenderer {
  const size = Math.max(1, options.workers ?? 1);
  const queueLimit = Math.max(0, options.queue ?? 128);
  const deadlineMs = options.deadlineMs ?? 2000;
  const cacheEntries = options.cacheEntries ?? 256;
  const cacheBytes = options.cacheBytes ?? 16 * 1024 * 1024;
  const workerUrl = options.workerUrl ?? new URL('./render-worker.mjs', import.meta.url);
  // V8's pool size, from this thread's command line: the worker's own is empty (execArgv: [] below).
  const workerData = { family: FONT_FAMILY, fonts: fontFiles(), v8Pool: v8PoolSize(process.execArgv) };

  const cache = new Map<string, Buffer>();
  /** The content key of a model already seen (the same object comes back for a cached lookup's card). */
  const keys = new WeakMap<CardModel, string>();
  let cachedBytes = 0;
  /** Cards queued or being drawn, by content key. */
  const jobs = new Map<string, Job>();
  const queue: Job[] = [];
  const slots: Slot[] = [];
  const counts: CardRendererStats = {
    rendered: 0,
    cacheHits: 0,
    failures: { busy: 0, timeout: 0, late: 0, failed: 0, closed: 0 },
    dropped: 0,
    restarted: 0,
    cached: 0,
    cachedBytes: 0,
    queued: 0,
  };
  let nextId = 1;
  let closed = false;
  /** What a card takes in a worker lately (a moving average): how long a new one would wait. */
  let drawMs = FIRST_GUESS_MS;

  function remember(key: string, png: Buffer): void {
    if (png.length > cacheBytes) return;
    cache.set(key, png);
    cachedBytes += png.length;
    for (const [k, v] of cache) {
      if (cache.size <= cacheEntries && cachedBytes <= cacheBytes) break;
      cache.delete(k);
      cachedBytes -= v.length;
    }
  }

  function refuse(reason: CardFailure, message: string): Promise<never> {
    counts.failures[reason] += 1;
    return Promise.reject(new CardRenderError(reason, message));
  }

  /** The job is over: every caller still waiting gets the PNG, or the failure. */
  function settle(job: Job, outcome: { png: Buffer } | { reason: CardFailure; message: string }): void {
    clearTimeout(job.stuck);
    if (jobs.get(job.key) === job) jobs.delete(job.key);
    for (const w of job.waiters) {
      clearTimeout(w.timer);
      if ('png' in outcome) w.resolve(outcome.png);
      else {
        counts.failures[outcome.reason] += 1;
        w.reject(new CardRenderError(outcome.reason, outcome.message));
      }
    }
    job.waiters.clear();
  }

  function spawn(): Slot {
    // Bounded memory: a card needs little heap; the fonts live in the renderer's native memory. No
    // execArgv (src/module-beside.mjs says why).
    let started = () => undefined as void;
    const slot: Slot = {
      worker: new Worker(workerUrl, { workerData, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } }),
      job: undefined,
      ready: new Promise<void>((resolve) => (started = resolve)),
      started: false,
    };
    const startLimit = setTimeout(() => {
      started();
      retire(slot, `the card worker did not start within ${WORKER_START_MS} ms`);
      void slot.worker.terminate();
    }, WORKER_START_MS);
    startLimit.unref();
    slot.worker.on('message', (m: WorkerMessage) => {
      if ('ready' in m) {
        clearTimeout(startLimit);
        slot.started = true;
        started();
        if (slot.job) guard(slot, slot.job);
        return;
      }
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      slot.job = undefined;
      slot.worker.unref();
      if ('error' in m) settle(job, { reason: 'failed', message: `the card could not be drawn: ${m.error}` });
      else {
        counts.rendered += 1;
        if (job.startedAt !== undefined) drawMs = 0.9 * drawMs + 0.1 * (performance.now() - job.startedAt);
        // Kept even when nobody waits any more: the next ask for this card is a hit.
        const png = Buffer.from(m.png.buffer, m.png.byteOffset, m.png.byteLength);
        remember(job.key, png);
        settle(job, { png });
      }
      pump();
    });
    slot.worker.on('error', (e) => {
      clearTimeout(startLimit);
      // Waiting for it is over: its card fails (below), and warm() goes on.
      started();
      retire(slot, `the card worker failed: ${e.message}`);
    });
    slot.worker.on('exit', (code) => {
      clearTimeout(startLimit);
      started();
      retire(slot, `the card worker exited with code ${code}`);
    });
    // An idle worker keeps no process alive; a busy one does, until its card is back.
    slot.worker.unref();
    return slot;
  }

  /**
   * Takes a worker out of the pool (it died, or is stuck and is stopped): its card fails, and a new
   * worker starts only when there is a card to draw, so that a worker that cannot start is not
   * restarted in a loop.
   */
  function retire(slot: Slot, why: string, reason: CardFailure = 'failed'): void {
    const i = slots.indexOf(slot);
    if (i < 0) return;
    slots.splice(i, 1);
    const job = slot.job;
    slot.job = undefined;
    if (job) settle(job, { reason, message: why });
    pump();
  }

  function pump(): void {
    if (closed) return;
    if (queue.length > 0) while (slots.length < size) slots.push(spawn());
    for (const slot of slots) {
      if (slot.job) continue;
      const job = queue.shift();
      if (!job) return;
      slot.job = job;
      if (slot.started) guard(slot, job);
      slot.worker.ref();
      job.startedAt = performance.now();
      slot.worker.postMessage(job.payload);
    }
  }

  /**
   * A worker stuck on one card (a loop, a pathological layout) is stopped and replaced; a card that
   * only waited long in the queue, or for its worker to start, never stops a worker.
   */
  function guard(slot: Slot, job: Job): void {
    job.stuck = setTimeout(() => {
      if (slot.job !== job) return;
      counts.restarted += 1;
      retire(slot, `the card took longer than ${deadlineMs} ms`, 'timeout');
      void slot.worker.terminate();
    }, deadlineMs);
    job.stuck.unref();
  }

  /** Waits for `job` at most `waitMs`; a caller that stops waiting takes a queued card out of the queue when it was the last one waiting. */
  function wait(job: Job, waitMs: number): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        timer: setTimeout(() => {
          job.waiters.delete(waiter);
          counts.failures.timeout += 1;
          reject(new CardRenderError('timeout', `the card was not drawn within the ${waitMs} ms its answer could wait`));
          if (job.waiters.size > 0) return;
          const queued = queue.indexOf(job);
          if (queued < 0) return;
          queue.splice(queued, 1);
          jobs.delete(job.key);
          counts.dropped += 1;
        }, waitMs),
      };
      waiter.timer.unref();
      job.waiters.add(waiter);
    });
  }

  return {
    render(model, renderOptions = {}) {
      if (closed) return refuse('closed', 'the card renderer is stopped');
      const waitMs = Math.min(deadlineMs, renderOptions.waitMs ?? deadlineMs);
      let key = keys.get(model);
      if (key === undefined) keys.set(model, (key = createHash('sha256').update(JSON.stringify(model)).digest('base64url')));
      const hit = cache.get(key);
      if (hit) {
        counts.cacheHits += 1;
        cache.delete(key);
        cache.set(key, hit);
        return Promise.resolve(hit);
      }
      // The answer cannot wait at all: drawing a card for nobody would only delay the others.
      if (waitMs <= 0) return refuse('late', 'the answer could not wait for its card');
      let job = jobs.get(key);
      if (!job) {
        if (queue.length >= queueLimit && slots.length >= size && slots.every((s) => s.job)) return refuse('busy', `${queue.length} cards are waiting already`);
        // A card that would come after its answer stopped waiting is not queued at all: the answer
        // goes now, as text, instead of after a wait that ends without the picture.
        const drawing = slots.filter((s) => s.job).length;
        const expectedMs = ((queue.length + drawing + 1) / size) * drawMs;
        if (expectedMs > waitMs && queue.length + drawing >= size)
          return refuse('busy', `${queue.length} cards are waiting already (about ${Math.round(expectedMs)} ms, ${waitMs} ms to spare)`);
        const id = nextId++;
        job = { id, key, payload: { id, model }, waiters: new Set() };
        jobs.set(key, job);
        queue.push(job);
      }
      const waiting = wait(job, waitMs);
      pump();
      return waiting;
    },
    async warm() {
      while (slots.length < size && !closed) slots.push(spawn());
      // Started first, for as long as a start takes (WORKER_START_MS at most), not an answer's 2 s.
      // The workers keep the process alive meanwhile (an idle one is unref'd: with nothing else
      // pending, the process would end in the middle of its own start).
      for (const slot of slots) slot.worker.ref();
      await Promise.race([Promise.all(slots.map((s) => s.ready)), sleep(WORKER_START_MS, undefined, { ref: false })]);
      for (const slot of slots) if (!slot.job) slot.worker.unref();
      // The fonts' character maps, read once (about 20 ms), here rather than in the first card's model on the event loop.
      isDrawable(0x41);
      await this.render(WARM_UP);
    },
    stats() {
      return { ...counts, failures: { ...counts.failures }, cached: cache.size, cachedBytes, queued: queue.length };
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) settle(job, { reason: 'closed', message: 'the card renderer is stopped' });
      const stopping = slots.splice(0);
      for (const slot of stopping) {
        if (slot.job) settle(slot.job, { reason: 'closed', message: 'the card renderer is stopped' });
        slot.job = undefined;
      }
      await Promise.all(stopping.map((s) => s.worker.terminate()));
    },
  };
}
