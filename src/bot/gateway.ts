// The gateway transport: Discord's INTERACTION_CREATE dispatches, read from the raw payload (the
// same reading as the HTTP transport's) into the router's plain `Incoming`, and answered by the
// interaction's token: the first answer a direct callback POST (it carries a card), the rest
// through the interaction webhook. `@discordjs/ws` keeps the connection (shards, heartbeats,
// resumes); discord.js' REST queue carries what is retried.
import { WebSocketManager, WebSocketShardEvents } from '@discordjs/ws';
import { GatewayDispatchEvents, type REST } from 'discord.js';
import type { Logger } from 'pino';

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

/** What Discord's fatal gateway close codes mean for whoever runs the bot. */
export const FATAL_CLOSES: Record<number, string> = {
  4004: 'the token was refused (reset in the developer portal?): set DISCORD_TOKEN',
  4010: 'invalid shard',
  4011: 'sharding required: the bot is in too many guilds for one connection',
  4012: 'invalid gateway API version',
  4013: 'invalid intents',
  4014: 'disallowed intents: a privileged intent is not enabled for this application',
};

export interface GatewayOptions {
  token: string;
  /** The REST client the gateway reads its address from (GET /gateway/bot), with the token set. */
  rest: REST;
  /** The shards this process runs (`ids`, all of them unset) of `count` in all; unset, one shard. */
  shards?: { count: number; ids?: number[] | undefined } | undefined;
  /** Each INTERACTION_CREATE's payload (`d`), as Discord sent it. */
  onInteraction(payload: unknown): void;
  /** Once, when every shard of this process has identified: the bot's user as Discord names it. */
  onReady(user: string, shardIds: number[]): void;
  /** A close Discord will not take the bot back after (FATAL_CLOSES): the process is deaf from here. */
  onFatalClose(shardId: number, code: number): void;
  logger: Logger;
}

export interface Gateway {
  /** Reads the gateway's address and connects every shard; rejects when Discord refuses the token. */
  connect(): Promise<void>;
  destroy(): Promise<void>;
  /** Whether every shard of this process is connected and identified (or resumed). */
  up(): boolean;
  /** The latest heartbeat round trip in ms, -1 before the first. */
  ping(): number;
}

/**
 * Discord's gateway through `@discordjs/ws`, the discord.js family's connection manager (shards,
 * identify limits, heartbeats, resumes): raw dispatches, no client objects built for them, and no
 * intents (interactions need none).
 */
export function openGateway(o: GatewayOptions): Gateway {
  const manager = new WebSocketManager({
    token: o.token,
    intents: 0,
    rest: o.rest,
    shardCount: o.shards?.count ?? 1,
    shardIds: o.shards?.ids ?? null,
  });
  let shardIds: number[] = [];
  const ready = new Set<number>();
  let announced = false;
  let latency = -1;
  manager.on(WebSocketShardEvents.Dispatch, ({ data }) => {
    if (data.t === GatewayDispatchEvents.InteractionCreate) o.onInteraction(data.d);
  });
  manager.on(WebSocketShardEvents.Ready, ({ data, shardId }) => {
    ready.add(shardId);
    o.logger.info({ shard: shardId }, 'gateway shard ready');
    if (announced || !shardIds.every((id) => ready.has(id))) return;
    announced = true;
    const { username, discriminator } = data.user;
    o.onReady(discriminator && discriminator !== '0' ? `${username}#${discriminator}` : username, shardIds);
  });
  manager.on(WebSocketShardEvents.Resumed, ({ shardId }) => {
    ready.add(shardId);
    o.logger.info({ shard: shardId }, 'gateway resumed');
  });
  manager.on(WebSocketShardEvents.Closed, ({ code, shardId }) => {
    ready.delete(shardId);
    if (code in FATAL_CLOSES) o.onFatalClose(shardId, code);
  });
  manager.on(WebSocketShardEvents.HeartbeatComplete, (beat) => (latency = beat.latency));
  manager.on(WebSocketShardEvents.Error, ({ error, shardId }) => o.logger.error({ err: error.message, shard: shardId }, 'gateway error'));
  return {
    async connect() {
      shardIds = await manager.getShardIds();
      await manager.connect();
    },
    destroy: async () => {
      await manager.destroy();
    },
    up: () => shardIds.length > 0 && shardIds.every((id) => ready.has(id)),
    ping: () => latency,
  };
}
