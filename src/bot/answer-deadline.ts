// An overall deadline for each answer to an interaction that goes through discord.js' REST queue.
// discord.js bounds one try (its `timeout`) and the tries after a 5xx or a lost connection, but not
// the rest: it waits out any 429's Retry-After, however long, and sends again after every 429
// without counting it as a try. An answer held that way held its interaction's place in the router
// (MAX_INFLIGHT) and its memory for as long as Discord kept saying wait.
import { RateLimitError } from 'discord.js';

import { within } from '../lookup/within.js';

/**
 * How long one answer (a callback sent through the queue, an edit, a follow-up, a delete) may take
 * in all: its tries, its waits in the queue and for rate limits. A user waiting on "thinking…" has
 * given up long before; the interaction's token would still take it for 15 minutes.
 */
export const ANSWER_DEADLINE_MS = 30_000;

/**
 * The longest rate-limit wait an answer sits out: past it, discord.js rejects at once (its
 * `rejectOnRateLimit`, see restOptions in client.ts) instead of sleeping through it. Interaction
 * routes are limited per interaction token; a wait this long means something is wrong.
 */
export const LONGEST_RATE_LIMIT_WAIT_MS = 10_000;

/** An answer that Discord's REST did not take within its deadline, or that it asked to wait too long for. */
export class AnswerDeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnswerDeadlineError';
  }
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

/** discord.js' refusal to wait (an error with no message, its route in its name) as one a log line can read. */
function toldWait(what: string, e: unknown): unknown {
  if (!(e instanceof RateLimitError)) return e;
  const wait = Math.max(e.timeToReset, e.retryAfter, e.sublimitTimeout);
  return new AnswerDeadlineError(
    `${what}: Discord asked to wait ${Math.round(wait / 1000)} s (rate limited), longer than the ${seconds(LONGEST_RATE_LIMIT_WAIT_MS)} an answer waits`,
  );
}

/**
 * Runs `call` (a REST call given `signal`) and settles within `ms` (the project's `within`): with
 * its result, its error, or an AnswerDeadlineError once the time is up. The signal then aborts the
 * call's request and its place in discord.js' queue; a call still asleep in a rate-limit wait (at
 * most LONGEST_RATE_LIMIT_WAIT_MS) fails when it wakes, and `within` has let go of it by then.
 */
export async function withinDeadline<T>(what: string, call: (signal: AbortSignal) => Promise<T>, ms = ANSWER_DEADLINE_MS): Promise<T> {
  const controller = new AbortController();
  const result = await within(
    call(controller.signal).catch((e: unknown) => {
      throw toldWait(what, e);
    }),
    ms,
  );
  if (result.done) return result.value;
  controller.abort();
  throw new AnswerDeadlineError(`${what}: Discord's REST API did not take it within ${seconds(ms)}`);
}
