// The gateway transport: Discord's INTERACTION_CREATE dispatches, read from the raw payload (the
// same reading as the HTTP transport's) into the router's plain `Incoming`, and answered by the
// interaction's token: the first answer a direct callback POST (it carries a card), the rest
// through the interaction webhook. discord.js keeps the connection (shards, heartbeats, resumes)
// and its REST queue for what is retried; it builds no interaction object (see client.ts).
import type { REST } from 'discord.js';

import type { CallbackSender } from './direct-callbacks.js';
import { actionOf, createdAt, readEnvelope } from './interaction-payload.js';
import type { Incoming } from './router.js';
import { WebhookAnswer } from './webhook-answer.js';

/**
 * A gateway interaction as the router reads it; a reason (for the log) when it is not one the bot
 * answers or cannot be read.
 */
export function fromGateway(payload: unknown, callbacks: CallbackSender, rest: REST): Incoming | string {
  const raw = readEnvelope(payload);
  if (!raw) return 'not an interaction';
  if (!raw.token) return 'no interaction token';
  const action = actionOf(raw);
  if (typeof action === 'string') return action;
  const { id, token } = raw;
  const answer = new WebhookAnswer(
    async (body, files, written) => void (await callbacks.send(id, token, body, files, written)),
    true,
    rest,
    raw.application_id,
    token,
  );
  return { id, type: raw.type, createdTimestamp: createdAt(id), action, answer };
}
