// Identifiers and the few fixed objects (bot user, guild, channels) that the double and the payload
// builders must agree on. They are constants rather than per-double values so that payloads can be
// built without a running double, and so that test output stays readable across runs.
import { randomBytes } from 'node:crypto';

import type { APIMessage, APIUser, MessageType, Snowflake, UserFlags } from 'discord.js';

// Flag enums have no member for "none", and Discord sends 0.
const NO_USER_FLAGS = 0 as UserFlags;

/** Discord's epoch (2015-01-01T00:00:00Z); snowflakes count milliseconds from it. */
const DISCORD_EPOCH = 1_420_070_400_000n;
let increment = 0n;

/** A fresh snowflake for now: discord.js derives `createdTimestamp` from it, so it must be real-shaped. */
export function snowflake(at: number = Date.now()): Snowflake {
  increment = (increment + 1n) & 0xfffn;
  // worker 1, process 1: any value works, a non-zero one just looks less like a hand-made id.
  return (((BigInt(at) - DISCORD_EPOCH) << 22n) | (1n << 17n) | (1n << 12n) | increment).toString();
}

/** Random once per process: tokens differ between runs, and within one by a counter (no entropy per token). */
const TOKEN_PREFIX = `aW50ZXJhY3Rpb246${randomBytes(84).toString('base64url')}`;
let tokens = 0;

/** An interaction token: opaque to the bot, long and URL-safe like Discord's, never the same twice. */
export function interactionToken(): string {
  return `${TOKEN_PREFIX}${(++tokens).toString(36).padStart(16, '0')}`;
}

// On Discord a bot user's id is its application's id; keeping that true here matters because
// discord.js builds interaction webhooks from `application_id`.
export const APPLICATION_ID: Snowflake = '1180000000000000001';
export const BOT_USER_ID: Snowflake = APPLICATION_ID;
export const GUILD_ID: Snowflake = '1180000000000000100';
export const GUILD_CHANNEL_ID: Snowflake = '1180000000000000200';
export const DM_CHANNEL_ID: Snowflake = '1180000000000000300';
export const DEFAULT_USER: Readonly<{ id: Snowflake; username: string }> = { id: '1180000000000000400', username: 'ash' };

/** A token in Discord's shape (base64 user id . timestamp . hmac); discord.js only censors it in logs. */
export const DEFAULT_TOKEN = `${Buffer.from(BOT_USER_ID).toString('base64')}.Zx9aBQ.double-${'x'.repeat(31)}`;

export const BOT_USER: APIUser = {
  id: BOT_USER_ID,
  username: 'Player Stats',
  discriminator: '0000',
  global_name: null,
  avatar: null,
  bot: true,
  flags: NO_USER_FLAGS,
};

export function apiUser(user: { id: Snowflake; username: string }): APIUser {
  return {
    id: user.id,
    username: user.username,
    discriminator: '0',
    global_name: user.username,
    avatar: null,
    public_flags: NO_USER_FLAGS,
    flags: NO_USER_FLAGS,
    banner: null,
    accent_color: null,
  };
}

/** A message as Discord returns it from the webhook and callback routes: posted by the bot via its application. */
export function botMessage(fields: {
  id?: Snowflake;
  channelId: Snowflake;
  content?: string;
  embeds?: unknown[];
  components?: unknown[];
  attachments?: unknown[];
  flags?: number;
  type?: MessageType;
  nonce?: string;
}): APIMessage {
  const id = fields.id ?? snowflake();
  return {
    id,
    channel_id: fields.channelId,
    author: BOT_USER,
    content: fields.content ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: (fields.attachments ?? []) as APIMessage['attachments'],
    embeds: (fields.embeds ?? []) as APIMessage['embeds'],
    components: (fields.components ?? []) as NonNullable<APIMessage['components']>,
    pinned: false,
    type: fields.type ?? 0,
    flags: fields.flags ?? 0,
    ...(fields.nonce !== undefined ? { nonce: fields.nonce } : {}),
    webhook_id: APPLICATION_ID,
    application_id: APPLICATION_ID,
  };
}
