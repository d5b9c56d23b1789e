// Waiting on what the bot does with interactions sent through the Discord double.
import type { InteractionHandle, RestCall } from '../discord-double/index.js';

/** Callback types that acknowledge without answering: a deferred message (5), a press's deferred update (6). */
const DEFERRALS: readonly (number | undefined)[] = [5, 6];

/** Whether these calls hold the final answer: a reply, or after a deferral an edit or a follow-up. */
export const isFinal = (calls: RestCall[]) =>
  calls.length > 0 &&
  (!DEFERRALS.includes((calls[0]!.body as { type?: number }).type) ||
    calls.some((c) => c.method === 'PATCH' || (c.method === 'POST' && !c.path.endsWith('/callback'))));

/**
 * Resolves once the interaction has its final answer: the reply, or after a deferral the edit or
 * the follow-up. Rejects when the first answer is later than Discord's 3 s (unless `window` is
 * null) or nothing final comes within `timeoutMs`.
 */
export async function settled(handle: InteractionHandle, timeoutMs = 15_000, window: number | null = 3_000): Promise<RestCall[]> {
  const first = await handle.firstResponse(timeoutMs);
  if (window !== null && first.at - handle.dispatchedAt >= window) throw new Error(`first answer after ${Math.round(first.at - handle.dispatchedAt)} ms`);
  const deadline = Date.now() + timeoutMs;
  while (!isFinal(handle.responses())) {
    if (Date.now() > deadline) throw new Error('a deferred interaction never got its answer');
    await new Promise((r) => setTimeout(r, 25));
  }
  return handle.responses();
}

/** Waits until every interaction is settled (or the time is up); returns those that are not. */
export async function allSettled(handles: InteractionHandle[], timeoutMs: number): Promise<InteractionHandle[]> {
  const deadline = Date.now() + timeoutMs;
  let open = handles;
  while (open.length > 0 && Date.now() < deadline) {
    open = open.filter((h) => !isFinal(h.responses()));
    if (open.length > 0) await new Promise((r) => setTimeout(r, 50));
  }
  return open;
}
