// Commands take turns with the rest of the process. A command answered from the cache runs from its
// gateway frame to its REST call without waiting on the network: a burst of them, each started as
// it arrives, keeps the event loop until the last one is sent, and an autocomplete read behind them
// (on the same gateway connection) waits for all of them, up to seconds behind a burst of
// profiles. Started one per turn of the event loop instead, with the sockets read between two, an
// autocomplete waits for one command's work at most. The work is the same; only its order changes.
// A process short of CPU turns slowly, though, and a command must still be answered within Discord's
// 3 s: one that has waited `catchUpMs` goes at once, with every other that has waited as long.

/** What `take` answers when `limit` commands are waiting already: the bot is too far behind to queue more. */
export const FULL = 'full' as const;

interface Waiter {
  since: number;
  resolve(turn: true): void;
}

export class Turns {
  private readonly waiting: (Waiter | undefined)[] = [];
  private head = 0;
  private scheduled = false;

  /**
   * `limit`: commands waiting at most; past it, `take` refuses at once. `catchUpMs`: a command that
   * has waited this long no longer waits for a turn of its own.
   */
  constructor(
    private readonly limit: number,
    private readonly catchUpMs = 1_000,
  ) {}

  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Resolves on a later turn of the event loop, one waiter a turn, in order; FULL at once past the limit. */
  take(): Promise<true | typeof FULL> {
    if (this.queued >= this.limit) return Promise.resolve(FULL);
    const turn = new Promise<true>((resolve) => this.waiting.push({ since: performance.now(), resolve }));
    this.schedule();
    return turn;
  }

  private schedule(): void {
    if (this.scheduled || this.queued === 0) return;
    this.scheduled = true;
    // setImmediate, not a microtask: one queued from a setImmediate callback runs on the next turn,
    // after the poll phase has read what arrived (gateway frames, REST answers, card workers).
    setImmediate(this.release);
  }

  private shift(): Waiter | undefined {
    const w = this.waiting[this.head];
    if (!w) return undefined;
    this.waiting[this.head++] = undefined;
    // Drop what was released once it is most of the array, so that the array does not grow for good.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting.splice(0, this.head);
      this.head = 0;
    }
    return w;
  }

  private readonly release = (): void => {
    this.scheduled = false;
    this.shift()?.resolve(true);
    const now = performance.now();
    while (this.queued > 0 && now - this.waiting[this.head]!.since >= this.catchUpMs) this.shift()?.resolve(true);
    this.schedule();
  };
}
