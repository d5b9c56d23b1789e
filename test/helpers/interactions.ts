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

/** An interaction's answer as the member ends up seeing it (see finalAnswer). */
export interface FinalAnswer {
  /** 4 a reply, 7 an update of the message pressed, 8 autocomplete's choices: what came, or what a deferral stood for. */
  type: number;
  data?: Record<string, unknown>;
  /** Whether it came after a deferral (the budget for a direct answer spent, on a busy machine too). */
  deferred: boolean;
}

/**
 * The answer an interaction ends with, however it went out: straight away, or deferred (5, 6) and
 * then the edit or follow-up that carries it, read as if it had come at once. A test of what a
 * reply says uses this, so that a machine slow enough to spend the direct-answer budget still
 * passes; a test of the deferral itself reads the calls.
 */
export async function finalAnswer(handle: InteractionHandle, timeoutMs = 15_000): Promise<FinalAnswer> {
  const calls = await settled(handle, timeoutMs, null);
  const first = calls[0]!.body as { type: number; data?: Record<string, unknown> };
  if (!DEFERRALS.includes(first.type)) return { ...first, deferred: false };
  const carrying = calls.find((c) => c.method === 'PATCH' || (c.method === 'POST' && !c.path.endsWith('/callback')))!;
  return { type: first.type === 6 ? 7 : 4, data: carrying.body as Record<string, unknown>, deferred: true };
}
