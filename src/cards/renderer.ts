// Draws cards off the event loop: a bounded pool of worker threads (one card at a time each), a
// bounded queue in front of it, a deadline per card, and a bounded cache of the PNGs by content.
// A card that cannot be drawn in time, or at all, rejects with a CardRenderError: the caller sends
// the text reply instead and logs why.
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';

import { FONT_FAMILY, fontFiles } from './fonts.js';
import { cardLayout } from './layout.js';
import type { CardModel } from './model.js';

export type CardFailure = 'busy' | 'timeout' | 'failed' | 'closed';

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
  /** From asking to having the PNG, queue included; past it the card is given up (`timeout`). Default 2000 ms. */
  deadlineMs?: number;
  /** PNGs kept by content; default 256 cards and 16 MB, whichever is reached first. */
  cacheEntries?: number;
  cacheBytes?: number;
  /** The worker script; tests swap in one that hangs or fails. */
  workerUrl?: URL;
}

export interface CardRendererStats {
  rendered: number;
  cacheHits: number;
  failures: Record<CardFailure, number>;
  cached: number;
  cachedBytes: number;
  queued: number;
}

export interface CardRenderer {
  /** The card as PNG bytes; rejects with CardRenderError. */
  render(model: CardModel): Promise<Buffer>;
  stats(): CardRendererStats;
  /** Stops the workers; cards in flight or queued reject with `closed`. */
  close(): Promise<void>;
}

interface Job {
  id: number;
  key: string;
  payload: { id: number; node: unknown; width: number; height: number };
  resolve(png: Buffer): void;
  reject(e: CardRenderError): void;
  timer: NodeJS.Timeout;
  slot?: Slot;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

type WorkerMessage = { ready: true } | { id: number; png: Uint8Array } | { id: number; error: string };

export function createCardRenderer(options: CardRendererOptions = {}): CardRenderer {
  const size = Math.max(1, options.workers ?? 1);
  const queueLimit = Math.max(0, options.queue ?? 128);
  const deadlineMs = options.deadlineMs ?? 2000;
  const cacheEntries = options.cacheEntries ?? 256;
  const cacheBytes = options.cacheBytes ?? 16 * 1024 * 1024;
  const workerUrl = options.workerUrl ?? new URL('./render-worker.mjs', import.meta.url);
  const workerData = { family: FONT_FAMILY, fonts: fontFiles() };

  const cache = new Map<string, Buffer>();
  let cachedBytes = 0;
  const inflight = new Map<string, Promise<Buffer>>();
  const queue: Job[] = [];
  const slots: Slot[] = [];
  const counts: CardRendererStats = { rendered: 0, cacheHits: 0, failures: { busy: 0, timeout: 0, failed: 0, closed: 0 }, cached: 0, cachedBytes: 0, queued: 0 };
  let nextId = 1;
  let closed = false;

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

  function fail(job: Job, reason: CardFailure, message: string): void {
    clearTimeout(job.timer);
    counts.failures[reason] += 1;
    job.reject(new CardRenderError(reason, message));
  }

  function spawn(): Slot {
    // Bounded memory: a card needs little heap; the fonts live in the renderer's native memory. No
    // execArgv: the worker is plain JavaScript and needs no TypeScript loader (quicker to start).
    const slot: Slot = { worker: new Worker(workerUrl, { workerData, execArgv: [], resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 8 } }), job: undefined };
    slot.worker.on('message', (m: WorkerMessage) => {
      if ('ready' in m) return;
      const job = slot.job;
      if (!job || job.id !== m.id) return;
      slot.job = undefined;
      slot.worker.unref();
      clearTimeout(job.timer);
      if ('error' in m) fail(job, 'failed', `the card could not be drawn: ${m.error}`);
      else {
        counts.rendered += 1;
        job.resolve(Buffer.from(m.png.buffer, m.png.byteOffset, m.png.byteLength));
      }
      pump();
    });
    // A worker that dies (a crash, or fonts it cannot load) fails its card and is replaced.
    const replace = (why: string) => {
      const i = slots.indexOf(slot);
      if (i < 0) return;
      const job = slot.job;
      slot.job = undefined;
      if (job) fail(job, 'failed', why);
      if (closed) slots.splice(i, 1);
      else slots[i] = spawn();
      pump();
    };
    slot.worker.on('error', (e) => replace(`the card worker failed: ${e.message}`));
    slot.worker.on('exit', (code) => replace(`the card worker exited with code ${code}`));
    // An idle worker keeps no process alive; a busy one does, until its card is back.
    slot.worker.unref();
    return slot;
  }

  function pump(): void {
    for (const slot of slots) {
      if (slot.job) continue;
      const job = queue.shift();
      if (!job) return;
      slot.job = job;
      job.slot = slot;
      slot.worker.ref();
      slot.worker.postMessage(job.payload);
    }
  }

  function timeout(job: Job): void {
    const waiting = queue.indexOf(job);
    if (waiting >= 0) queue.splice(waiting, 1);
    fail(job, 'timeout', `the card took longer than ${deadlineMs} ms`);
    // A worker stuck on a card is stopped; its exit handler starts another.
    if (job.slot?.job === job) {
      job.slot.job = undefined;
      void job.slot.worker.terminate();
    }
  }

  function draw(key: string, model: CardModel): Promise<Buffer> {
    if (closed) return Promise.reject(new CardRenderError('closed', 'the card renderer is stopped'));
    if (queue.length >= queueLimit && slots.length > 0 && slots.every((s) => s.job)) {
      counts.failures.busy += 1;
      return Promise.reject(new CardRenderError('busy', `${queue.length} cards are waiting already`));
    }
    // The workers start with the first card, so that a bot that draws none pays nothing for them.
    while (slots.length < size) slots.push(spawn());
    const { node, width, height } = cardLayout(model);
    return new Promise<Buffer>((resolve, reject) => {
      const id = nextId++;
      const job: Job = { id, key, payload: { id, node, width, height }, resolve, reject, timer: setTimeout(() => timeout(job), deadlineMs) };
      job.timer.unref();
      queue.push(job);
      pump();
    });
  }

  return {
    render(model) {
      const key = createHash('sha256').update(JSON.stringify(model)).digest('base64url');
      const hit = cache.get(key);
      if (hit) {
        counts.cacheHits += 1;
        cache.delete(key);
        cache.set(key, hit);
        return Promise.resolve(hit);
      }
      const running = inflight.get(key);
      if (running) return running;
      const p = draw(key, model).then((png) => {
        remember(key, png);
        return png;
      });
      inflight.set(key, p);
      const forget = () => inflight.delete(key);
      p.then(forget, forget);
      return p;
    },
    stats() {
      return { ...counts, failures: { ...counts.failures }, cached: cache.size, cachedBytes, queued: queue.length };
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) fail(job, 'closed', 'the card renderer is stopped');
      for (const slot of slots) {
        if (slot.job) fail(slot.job, 'closed', 'the card renderer is stopped');
        slot.job = undefined;
      }
      await Promise.all(slots.map((s) => s.worker.terminate()));
    },
  };
}
