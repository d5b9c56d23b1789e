// A local double of Discord's gateway (WebSocket) and REST API, for running the real bot against.
// One HTTP server on loopback carries both: REST under /api/v10 and the gateway at /gateway.
// It answers the way Discord does where a bot can get it wrong (3-second acknowledgement window,
// one callback per interaction, message limits, resume and replay), and records everything.
//
//   const discord = await startDiscordDouble();
//   // start the bot with DISCORD_TOKEN=discord.token, DISCORD_API_URL=discord.apiUrl
//   await discord.waitForReady();
//   const handle = discord.dispatchInteraction(chatInput({ subcommand: 'profile', options: { name: 'Ash' } }));
//   const callback = await handle.firstResponse(); // { body: { type: 4 | 5, data }, status: 204, at, ... }
//
// Shards: `startDiscordDouble({ shardCount: 2 })` takes an IDENTIFY per shard (`shard: [id, 2]`)
// and sends a guild's events only to shard `(guild_id >> 22) % 2`, direct messages to shard 0.
// HTTP interactions: the double holds the application's Ed25519 key pair (`publicKey` for the
// bot's DISCORD_PUBLIC_KEY) and `postInteraction(url, payload)` POSTs a signed interaction to the
// bot, taking the HTTP response as the interaction callback; later calls arrive over REST as usual.
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

import type { APIUser } from 'discord.js';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

import { Turns } from '../../src/bot/turns.js';
import { BodyError, readBody, type UploadedFile } from './body.js';
import { APPLICATION_ID, BOT_USER, BOT_USER_ID, DEFAULT_TOKEN, GUILD_ID, botMessage, interactionToken, snowflake } from './ids.js';
import type { APIInteractionLike } from './interactions.js';
import { createOAuthDouble, type OAuthDouble } from './oauth.js';
import { choicesErrors, commandListErrors, invalidFormBody, isEmptyMessage, messageErrors, nonceProblems, type DiscordError } from './validate.js';

export * from './interactions.js';
export { APPLICATION_ID, BOT_USER, BOT_USER_ID, DEFAULT_TOKEN, DEFAULT_USER, GUILD_CHANNEL_ID, GUILD_ID, DM_CHANNEL_ID, snowflake } from './ids.js';
export type { UploadedFile } from './body.js';
export type { DoubleConnection, DoubleMember, OAuthDouble, RoleConnection } from './oauth.js';

export interface RestCall {
  method: string;
  /** The route below the API version, decoded, as discord.js's `Routes` spell it: `/webhooks/{app}/{token}/messages/@original`. */
  path: string;
  /** The same as sent (discord.js percent-encodes `@original` as `%40original`). */
  rawPath: string;
  query: Record<string, string>;
  headers: Record<string, string | undefined>;
  /** JSON bodies parsed; for multipart uploads, the parsed `payload_json`. */
  body: unknown;
  /** performance.now() when the request arrived. */
  at: number;
  /** The status the double answered with. */
  status: number;
  /** Files uploaded with the request (multipart), described without their bytes. */
  files: UploadedFile[];
}

export interface InteractionHandle {
  id: string;
  token: string;
  /** REST calls the bot made for this interaction so far (callback, webhook edits/follow-ups), in order. */
  responses(): RestCall[];
  /** Resolves with the first REST call for this interaction (the callback), or rejects after timeoutMs. */
  firstResponse(timeoutMs?: number): Promise<RestCall>;
  /** Resolves once `n` REST calls were made for this interaction (with all made so far). */
  waitForResponses(n: number, timeoutMs?: number): Promise<RestCall[]>;
  /** performance.now() when INTERACTION_CREATE was sent (when it was replayed, if it was queued during a disconnection). */
  readonly dispatchedAt: number;
  /** The gateway shard it was sent on; `null` for one POSTed to an HTTP endpoint. */
  readonly shard: number | null;
}

/** What an HTTP interactions endpoint answered a POST with. */
export interface HttpAnswer {
  status: number;
  /** Parsed JSON, or the text when it is not JSON. */
  body: unknown;
  /** performance.now() when the answer was read. */
  at: number;
}

export interface HttpInteractionHandle extends InteractionHandle {
  /** The endpoint's HTTP answer (a 200's body is also recorded as the interaction's callback, first of `responses()`). */
  http: Promise<HttpAnswer>;
}

/** A message the bot posted to a channel, as Discord keeps it, with the files uploaded with it. */
export interface ChannelMessage {
  message: Record<string, unknown>;
  files: UploadedFile[];
  /** When it was posted (this process's clock, ms). */
  at: number;
}

export interface DoubleStats {
  identifies: number;
  resumes: number;
  connections: number;
  heartbeats: number;
  /** Dispatches dropped because the client did not identify with their intent. */
  filtered: number;
  /** Shards with a live session now. */
  liveShards: number[];
}

export interface DiscordDouble {
  /** REST base to give the bot as DISCORD_API_URL, e.g. http://127.0.0.1:PORT/api (discord.js appends /v10). */
  apiUrl: string;
  /** ws://127.0.0.1:PORT/gateway */
  gatewayUrl: string;
  token: string;
  applicationId: string;
  botUserId: string;
  /** Every REST call received, in order. */
  restCalls: RestCall[];
  /** OAuth2 and Linked Roles: members, their connections and consent, tokens, role connections. */
  oauth: OAuthDouble;
  /** Commands registered with PUT /applications/{app}/commands (global) and PUT /applications/{app}/guilds/{guild}/commands, as answered (with ids). */
  commands: { global: unknown[] | null; guilds: Map<string, unknown[]> };
  /** The `d` of every IDENTIFY received (intents, properties, shard, ...). */
  identifies: unknown[];
  /** Resolves when a client is identified (or resumed) and still connected; at once if one is. */
  waitForReady(timeoutMs?: number): Promise<void>;
  /** Sends a gateway dispatch (op 0) with the next sequence number; kept for RESUME replay. */
  dispatch(t: string, d: unknown): void;
  /** Sends INTERACTION_CREATE for a payload built with the helpers, on its guild's shard; returns a handle. */
  dispatchInteraction(payload: APIInteractionLike): InteractionHandle;
  /** The application's public key (64 hex digits): the bot's DISCORD_PUBLIC_KEY. */
  publicKey: string;
  /** The signature headers Discord would send with `body` (at `timestamp`, unix seconds; now by default). */
  signatureHeaders(body: string, timestamp?: number): Record<'x-signature-ed25519' | 'x-signature-timestamp', string>;
  /** POSTs the payload, signed, to an HTTP interactions endpoint; its 200 answer is the interaction callback. */
  postInteraction(url: string, payload: APIInteractionLike): HttpInteractionHandle;
  /**
   * What the developer portal checks when an Interactions Endpoint URL is saved: a signed PING must
   * be answered `{ type: 1 }`, and a badly signed one refused with 401. Resolves with what failed, if anything.
   */
  verifyEndpoint(url: string): Promise<{ ok: boolean; ping: HttpAnswer; badSignature: HttpAnswer }>;
  /** The shard a guild's events go to: `(guild_id >> 22) % shardCount`. */
  shardOf(guildId: string | null | undefined): number;
  /** Messages posted to a channel with `POST /channels/{id}/messages` (the bot's own posts, not interaction replies), in order. */
  channelMessages(channelId: string): ChannelMessage[];
  /**
   * Makes posts to a channel fail the way Discord refuses them: 10003 Unknown Channel (deleted),
   * 50001 Missing Access (the bot cannot see it), 50013 Missing Permissions (cannot send, embed or
   * attach there); `null` lets them through again.
   */
  setChannelError(channelId: string, code: 10003 | 50001 | 50013 | null): void;
  /**
   * Puts a channel in slowmode for the bot: every post is answered 429 with code 20016 and a
   * `retry_after` of `seconds`, as Discord answers a bot without Manage Messages there; `null` ends it.
   */
  setChannelSlowmode(channelId: string, seconds: number | null): void;
  /**
   * What the bot may do in a channel besides sending: without Embed Links a post with an embed, and
   * without Attach Files a post with a file, is refused with 50013 Missing Permissions, as Discord
   * refuses them; `null` allows both again.
   */
  setChannelPermissions(channelId: string, allowed: { embedLinks: boolean; attachFiles: boolean } | null): void;
  /** Resolves once `n` messages were posted to the channel (with all posted so far). */
  waitForChannelMessages(channelId: string, n: number, timeoutMs?: number): Promise<ChannelMessage[]>;
  /**
   * Drops the gateway connection: 'close' sends close code 4000 (client should RESUME), 'terminate'
   * kills the TCP socket with no close frame, a number closes with that code (4004 authentication
   * failed, 4014 disallowed intents: Discord's fatal ones).
   */
  dropConnection(how?: 'close' | 'terminate' | number): void;
  stats(): DoubleStats;
  /**
   * Lets go of an interaction and of the REST calls recorded so far, so that a long soak does not
   * grow the double: later calls for it answer 404 Unknown interaction, as Discord does after 15 min.
   */
  forget(handle: InteractionHandle): void;
  close(): Promise<void>;
}

export interface DoubleOptions {
  token?: string;
  /** HELLO's heartbeat_interval; Discord's is 41250. */
  heartbeatIntervalMs?: number;
  /**
   * How long after INTERACTION_CREATE the callback is accepted; Discord's window is 3 s, after
   * which it answers 404 Unknown interaction. `Infinity` to turn it off.
   */
  interactionTimeoutMs?: number;
  /** Shards the bot must run (IDENTIFY with `shard: [id, shardCount]`); 1 by default. */
  shardCount?: number;
  /** `session_start_limit.max_concurrency` of GET /gateway/bot: shards that may identify at once (Discord's 1 for most bots). */
  maxConcurrency?: number;
  /**
   * How long a channel post's nonce is remembered for `enforce_nonce` (Discord says "the past few
   * minutes"): the same nonce posted again meanwhile returns the message made, not a new one.
   */
  nonceWindowMs?: number;
  /**
   * The guilds the bot is in (GUILD_ID by default): registering or reading commands in another is
   * refused 403 Missing Access (50001), as Discord refuses it.
   */
  guilds?: readonly string[];
}

// An interaction token stays valid for follow-ups and edits this long after the interaction.
const TOKEN_LIFETIME_MS = 15 * 60_000;
// Enough history to resume across any drop a test makes, bounded so a long run cannot grow without end.
const REPLAY_LOG_LIMIT = 1000;
const DEFAULT_WAIT_MS = 5000;

/**
 * Events Discord sends only to a client that identified with their intent (the gateway docs' intent
 * list). A dispatch of one of these to a client without the intent is dropped, as Discord would
 * never have sent it: a bot with no intents gets no guild events, however many guilds it is in.
 */
const EVENT_INTENTS: Record<string, number> = {
  GUILD_CREATE: 1 << 0,
  GUILD_UPDATE: 1 << 0,
  GUILD_DELETE: 1 << 0,
  GUILD_ROLE_CREATE: 1 << 0,
  GUILD_ROLE_UPDATE: 1 << 0,
  GUILD_ROLE_DELETE: 1 << 0,
  CHANNEL_CREATE: 1 << 0,
  CHANNEL_UPDATE: 1 << 0,
  CHANNEL_DELETE: 1 << 0,
  THREAD_CREATE: 1 << 0,
  GUILD_MEMBER_ADD: 1 << 1,
  GUILD_MEMBER_UPDATE: 1 << 1,
  GUILD_MEMBER_REMOVE: 1 << 1,
  PRESENCE_UPDATE: 1 << 8,
  MESSAGE_CREATE: (1 << 9) | (1 << 12),
};

// The flags a bot may set on a message it sends; Discord ignores the others.
const SETTABLE_FLAGS = 4 | 64 | 4096 | 8192 | 32768;
const EPHEMERAL = 64;
const LOADING = 128;

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Outcome {
  status: number;
  body?: unknown;
  /** A page (the OAuth2 authorize page), sent as HTML. */
  html?: string;
  headers?: Record<string, string>;
  interaction?: Tracked;
}

function fail(status: number, code: number, message: string, interaction?: Tracked): Outcome {
  return { status, body: { message, code }, interaction };
}

function refuse(error: DiscordError, interaction?: Tracked): Outcome {
  return { status: error.status, body: error.body, interaction };
}

const notFound = (): Outcome => fail(404, 0, '404: Not Found');
const methodNotAllowed = (): Outcome => fail(405, 0, '405: Method Not Allowed');

interface Tracked {
  id: string;
  token: string;
  /** The interaction's type: 2 command, 3 component, 4 autocomplete, 5 modal submit. */
  type: number;
  channelId: string;
  user: APIUser | undefined;
  /** The message a component is attached to (what `update` edits). */
  componentMessage: Json | undefined;
  dispatchedAt: number;
  calls: RestCall[];
  /** The callback type that acknowledged it, once one has. */
  callbackType: number | null;
  /** The message `@original` names, once there is one. */
  original: Json | null;
  followUps: Map<string, Json>;
  /** The shard it went out on; null when POSTed over HTTP. */
  shard: number | null;
  /** Set while its HTTP POST awaits the endpoint's answer: webhook calls wait for it, as on Discord. */
  httpPending?: Promise<unknown>;
  /** Waiting on this interaction's calls alone: told when a call for it arrives, not on every event. */
  waiters?: Set<Listener>;
}

interface Frame {
  op: 0;
  t: string;
  s: number;
  d: unknown;
}

interface LoggedFrame {
  frame: Frame;
  onSend?: () => void;
}

interface Session {
  id: string;
  seq: number;
  log: LoggedFrame[];
  conn: Conn | null;
  /** The intents the client identified with: which events it is sent. */
  intents: number;
  shard: number;
}

interface Conn {
  ws: WebSocket;
  /** 'live' once READY or RESUMED went out; 'closed' as soon as either side starts closing. */
  state: 'connected' | 'live' | 'closed';
  session: Session | null;
  /** Set when the double closed it, so that its close code does not count as the client's. */
  droppedByUs: boolean;
}

interface Listener {
  check(): void;
  fail(error: Error): void;
}

function describeCall(c: RestCall): string {
  const type = isRecord(c.body) && typeof c.body.type === 'number' ? ` type ${c.body.type}` : '';
  return `${c.method} ${c.path}${type} -> ${c.status}`;
}

function headersOf(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

function attachmentsFor(files: UploadedFile[], channelId: string): Json[] {
  return files.map((f) => {
    const id = snowflake();
    const url = `https://cdn.discordapp.com/attachments/${channelId}/${id}/${encodeURIComponent(f.filename)}`;
    return { id, filename: f.filename, size: f.size, content_type: f.contentType, url, proxy_url: url };
  });
}

/**
 * A message's attachments (those kept, then the uploads) and its embeds with `attachment://<name>`
 * images and thumbnails pointing at the attachment of that name, as Discord resolves them.
 */
function withAttachments(embeds: unknown[], kept: unknown[], files: UploadedFile[], channelId: string): { embeds: unknown[]; attachments: Json[] } {
  const attachments = [...(kept as Json[]), ...attachmentsFor(files, channelId)];
  const resolve = (media: unknown): unknown => {
    if (!isRecord(media) || typeof media.url !== 'string' || !media.url.startsWith('attachment://')) return media;
    const name = media.url.slice('attachment://'.length);
    const found = attachments.find((a) => a.filename === name);
    return found ? { ...media, url: found.url, proxy_url: found.proxy_url } : media;
  };
  return {
    embeds: embeds.map((e) =>
      isRecord(e) ? { ...e, ...('image' in e ? { image: resolve(e.image) } : {}), ...('thumbnail' in e ? { thumbnail: resolve(e.thumbnail) } : {}) } : e,
    ),
    attachments,
  };
}

/** Discord's reasons for the close codes a test may send. */
const CLOSE_REASONS: Record<number, string> = { 4004: 'Authentication failed.', 4013: 'Invalid intent(s).', 4014: 'Disallowed intent(s).' };

export async function startDiscordDouble(options: DoubleOptions = {}): Promise<DiscordDouble> {
  const token = options.token ?? DEFAULT_TOKEN;
  const heartbeatInterval = options.heartbeatIntervalMs ?? 41_250;
  const shardCount = options.shardCount ?? 1;
  // The application's key pair: Discord signs HTTP interactions with the private half.
  const keys = generateKeyPairSync('ed25519');
  const publicKey = Buffer.from(keys.publicKey.export({ format: 'jwk' }).x ?? '', 'base64url').toString('hex');
  const interactionTimeoutMs = options.interactionTimeoutMs ?? 3000;
  const memberOf = new Set(options.guilds ?? [GUILD_ID]);
  // Its base is known once the server listens (below).
  let base = '';
  const oauth = createOAuthDouble(() => base);

  const restCalls: RestCall[] = [];
  const identifies: unknown[] = [];
  const commands: DiscordDouble['commands'] = { global: null, guilds: new Map() };
  const commandIds = new Map<string, string>();
  const byId = new Map<string, Tracked>();
  const byToken = new Map<string, Tracked>();
  const sessions = new Map<string, Session>();
  const conns = new Set<Conn>();
  const listeners = new Set<Listener>();
  /** Every wait scoped to one interaction, so that closing the double fails them too. */
  const allScoped = new Set<Listener>();
  const counts: Omit<DoubleStats, 'liveShards'> = { identifies: 0, resumes: 0, connections: 0, heartbeats: 0, filtered: 0 };
  /** The live session of each shard. */
  const current = new Map<number, Session>();
  let closed = false;
  const channelPosts = new Map<string, ChannelMessage[]>();
  const channelErrors = new Map<string, 10003 | 50001 | 50013>();
  const slowmodes = new Map<string, number>();
  const channelPermissions = new Map<string, { embedLinks: boolean; attachFiles: boolean }>();
  // Posts kept per channel at most, so that a long run cannot grow the double.
  const CHANNEL_POSTS_LIMIT = 1000;

  /** Re-probes the waits: every global one, and those on `t`'s calls. */
  function notify(t?: Tracked): void {
    for (const l of [...listeners]) l.check();
    if (t?.waiters) for (const l of [...t.waiters]) l.check();
  }

  /**
   * Resolves with probe()'s first defined value, re-probing after every REST call and gateway event
   * (or, with `scope`, only when notified for what the scope belongs to).
   */
  function waitUntil<T>(probe: () => T | undefined, timeoutMs: number, what: () => string, scope: Set<Listener> = listeners): Promise<T> {
    const now = probe();
    if (now !== undefined) return Promise.resolve(now);
    if (closed) return Promise.reject(new Error(`the Discord double is closed (was waiting for ${what()})`));
    return new Promise<T>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        scope.delete(listener);
        allScoped.delete(listener);
      };
      const listener: Listener = {
        check() {
          const v = probe();
          if (v === undefined) return;
          done();
          resolve(v);
        },
        fail(error) {
          done();
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      scope.add(listener);
      if (scope !== listeners) allScoped.add(listener);
    });
  }

  // ---- interactions -------------------------------------------------------------------------

  function shardOf(guildId: string | null | undefined): number {
    return guildId ? Number((BigInt(guildId) >> 22n) % BigInt(shardCount)) : 0;
  }

  function track(payload: APIInteractionLike, shard: number | null): Tracked {
    const p = payload as unknown as Json;
    const member = isRecord(p.member) ? p.member : undefined;
    const userSource = member?.user ?? p.user;
    const channel = isRecord(p.channel) ? p.channel : undefined;
    const channelId = typeof p.channel_id === 'string' ? p.channel_id : typeof channel?.id === 'string' ? channel.id : snowflake();
    return {
      id: payload.id,
      token: payload.token,
      type: payload.type,
      channelId,
      user: isRecord(userSource) ? (userSource as unknown as APIUser) : undefined,
      componentMessage: isRecord(p.message) ? p.message : undefined,
      dispatchedAt: performance.now(),
      calls: [],
      callbackType: null,
      original: null,
      followUps: new Map(),
      shard,
    };
  }

  function newMessage(t: Tracked, data: Json, files: UploadedFile[], extraFlags = 0): Json {
    const flags = (typeof data.flags === 'number' ? data.flags & SETTABLE_FLAGS : 0) | extraFlags;
    return {
      ...botMessage({
        channelId: t.channelId,
        content: typeof data.content === 'string' ? data.content : '',
        ...withAttachments(Array.isArray(data.embeds) ? (data.embeds as unknown[]) : [], [], files, t.channelId),
        components: Array.isArray(data.components) ? (data.components as unknown[]) : [],
        flags,
        type: t.type === 2 ? 20 : 0,
      }),
      ...(t.user
        ? {
            interaction_metadata: {
              id: t.id,
              type: t.type,
              user: t.user,
              authorizing_integration_owners: {},
              ...(t.type === 3 && typeof t.componentMessage?.id === 'string' ? { interacted_message_id: t.componentMessage.id } : {}),
            },
          }
        : {}),
    };
  }

  /** The message after an edit: only the fields the body sets change, and uploads add attachments. */
  function edited(message: Json, data: Json, files: UploadedFile[], clearFlags = 0): Json {
    const out: Json = { ...message, edited_timestamp: new Date().toISOString() };
    for (const k of ['content', 'embeds', 'components'] as const) if (k in data) out[k] = data[k] ?? (k === 'content' ? '' : []);
    const existing = Array.isArray(message.attachments) ? (message.attachments as unknown[]) : [];
    const kept = Array.isArray(data.attachments)
      ? existing.filter((a) => isRecord(a) && (data.attachments as unknown[]).some((b) => isRecord(b) && b.id === a.id))
      : existing;
    Object.assign(
      out,
      withAttachments(
        Array.isArray(out.embeds) ? (out.embeds as unknown[]) : [],
        kept,
        files,
        typeof message.channel_id === 'string' ? message.channel_id : '',
      ),
    );
    const previous = typeof message.flags === 'number' ? message.flags : 0;
    const changeable = typeof data.flags === 'number' ? data.flags & (4 | 32768) : previous & (4 | 32768);
    out.flags = ((previous & ~(4 | 32768)) | changeable) & ~clearFlags;
    return out;
  }

  /** Problems with a message a callback or webhook call would leave standing, or null. */
  function messageProblem(data: Json, resulting: Json, files: UploadedFile[], prefix: string[]): DiscordError | null {
    const errors = messageErrors(data);
    if (errors.length > 0) return invalidFormBody(errors, prefix);
    if (isEmptyMessage(resulting, files.length > 0)) return { status: 400, body: { message: 'Cannot send an empty message', code: 50006 } };
    return null;
  }

  // Which callback types each interaction type accepts (PONG only exists for HTTP interactions).
  const ALLOWED_CALLBACKS: Record<number, number[]> = {
    2: [4, 5, 9, 10, 12],
    3: [4, 5, 6, 7, 9, 10, 12],
    4: [8],
    5: [4, 5, 6, 7, 10],
  };

  function interactionCallback(call: RestCall, id: string, interactionToken: string): Outcome {
    if (call.method !== 'POST') return methodNotAllowed();
    const t = byId.get(id);
    if (!t || t.token !== interactionToken) return fail(404, 10062, 'Unknown interaction');
    if (call.at - t.dispatchedAt > interactionTimeoutMs) return fail(404, 10062, 'Unknown interaction', t);
    if (t.callbackType !== null) return fail(400, 40060, 'Interaction has already been acknowledged.', t);
    const body = call.body;
    if (!isRecord(body) || typeof body.type !== 'number') {
      return refuse(invalidFormBody([{ path: ['type'], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }]), t);
    }
    const type = body.type;
    const allowed = ALLOWED_CALLBACKS[t.type] ?? [];
    if (!allowed.includes(type)) {
      return refuse(
        invalidFormBody([
          { path: ['type'], code: 'INTERACTION_RESPONSE_TYPE_INVALID', message: `Interaction response type ${type} is invalid for interaction type ${t.type}` },
        ]),
        t,
      );
    }
    const data = isRecord(body.data) ? body.data : {};
    let original: Json | null = null;
    switch (type) {
      case 4: {
        const message = newMessage(t, data, call.files);
        const problem = messageProblem(data, message, call.files, ['data']);
        if (problem) return refuse(problem, t);
        original = message;
        break;
      }
      case 5:
        original = newMessage(t, {}, [], LOADING | ((typeof data.flags === 'number' ? data.flags : 0) & EPHEMERAL));
        break;
      case 6:
        original = t.componentMessage ?? null;
        break;
      case 7: {
        const message = edited(t.componentMessage ?? newMessage(t, {}, []), data, call.files);
        const problem = messageProblem(data, message, call.files, ['data']);
        if (problem) return refuse(problem, t);
        original = message;
        break;
      }
      case 8: {
        const errors = choicesErrors(body.data);
        if (errors.length > 0) return refuse(invalidFormBody(errors, ['data']), t);
        break;
      }
      case 9: {
        const errors = ['custom_id', 'title', 'components']
          .filter((k) => data[k] === undefined)
          .map((k) => ({ path: [k], code: 'BASE_TYPE_REQUIRED', message: 'This field is required' }));
        if (errors.length > 0) return refuse(invalidFormBody(errors, ['data']), t);
        break;
      }
      default:
        break;
    }
    t.callbackType = type;
    t.original = original;
    if (call.query.with_response !== 'true') return { status: 204, interaction: t };
    const flags = typeof original?.flags === 'number' ? original.flags : 0;
    return {
      status: 200,
      interaction: t,
      body: {
        interaction: {
          id: t.id,
          type: t.type,
          ...(original
            ? {
                response_message_id: original.id,
                response_message_loading: (flags & LOADING) !== 0,
                response_message_ephemeral: (flags & EPHEMERAL) !== 0,
              }
            : {}),
        },
        resource: { type, ...(original ? { message: original } : {}) },
      },
    };
  }

  function interactionWebhook(call: RestCall, app: string, webhookToken: string, rest: string[]): Outcome {
    const t = byToken.get(webhookToken);
    if (!t || app !== APPLICATION_ID) return fail(404, 10015, 'Unknown Webhook');
    if (call.at - t.dispatchedAt > TOKEN_LIFETIME_MS) return fail(401, 50027, 'Invalid Webhook Token', t);
    // Until the interaction is acknowledged with a message-producing callback, its webhook does not exist.
    if (t.callbackType === null || ![4, 5, 6, 7].includes(t.callbackType)) return fail(404, 10015, 'Unknown Webhook', t);
    const data = isRecord(call.body) ? call.body : {};

    if (rest.length === 0) {
      if (call.method !== 'POST') return methodNotAllowed();
      // After a deferred reply, Discord turns the first follow-up into the "thinking..." message.
      const loading = t.original && typeof t.original.flags === 'number' && (t.original.flags & LOADING) !== 0;
      if (t.original && loading) {
        const message = edited(t.original, data, call.files, LOADING);
        const problem = messageProblem(data, message, call.files, []);
        if (problem) return refuse(problem, t);
        t.original = message;
        return { status: 200, body: message, interaction: t };
      }
      const message = newMessage(t, data, call.files);
      const problem = messageProblem(data, message, call.files, []);
      if (problem) return refuse(problem, t);
      t.followUps.set(String(message.id), message);
      // Interaction follow-ups behave as if wait=true: the message comes back.
      return { status: 200, body: message, interaction: t };
    }

    const [messages, messageId, ...extra] = rest;
    if (messages !== 'messages' || messageId === undefined || extra.length > 0) return { ...notFound(), interaction: t };
    const isOriginal = messageId === '@original' || messageId === t.original?.id;
    const target = isOriginal ? t.original : t.followUps.get(messageId);
    if (!target) return fail(404, 10008, 'Unknown Message', t);
    switch (call.method) {
      case 'GET':
        return { status: 200, body: target, interaction: t };
      case 'PATCH': {
        const message = edited(target, data, call.files, LOADING);
        const problem = messageProblem(data, message, call.files, []);
        if (problem) return refuse(problem, t);
        if (isOriginal) t.original = message;
        else t.followUps.set(messageId, message);
        return { status: 200, body: message, interaction: t };
      }
      case 'DELETE':
        if (isOriginal) t.original = null;
        else t.followUps.delete(messageId);
        return { status: 204, interaction: t };
      default:
        return methodNotAllowed();
    }
  }

  // ---- the rest of REST ---------------------------------------------------------------------

  function applicationObject(): Json {
    return {
      id: APPLICATION_ID,
      name: BOT_USER.username,
      icon: null,
      description: '',
      summary: '',
      type: null,
      bot_public: true,
      bot_require_code_grant: false,
      verify_key: 'a'.repeat(64),
      flags: 0,
      hook: true,
      team: null,
      owner: { id: '1180000000000000999', username: 'owner', discriminator: '0', global_name: null, avatar: null },
      bot: BOT_USER,
      redirect_uris: [],
      interactions_endpoint_url: null,
      tags: [],
      integration_types_config: { '0': {} },
      approximate_guild_count: 1,
    };
  }

  function putCommands(call: RestCall, guildId: string | null): Outcome {
    const errors = commandListErrors(call.body);
    if (errors.length > 0) return refuse(invalidFormBody(errors));
    const version = snowflake();
    const given = call.body as Json[];
    const stored = given.map((c) => {
      const type = typeof c.type === 'number' ? c.type : 1;
      const key = `${guildId ?? 'global'}:${type}:${String(c.name)}`;
      // Discord keeps a command's id across overwrites as long as its name and type stay.
      const id = commandIds.get(key) ?? snowflake();
      commandIds.set(key, id);
      return {
        default_member_permissions: null,
        nsfw: false,
        integration_types: [0],
        contexts: null,
        description: '',
        ...c,
        type,
        id,
        application_id: APPLICATION_ID,
        version,
        ...(guildId ? { guild_id: guildId } : {}),
      };
    });
    if (guildId) commands.guilds.set(guildId, stored);
    else commands.global = stored;
    return { status: 200, body: stored };
  }

  function applicationRoute(call: RestCall, segments: string[]): Outcome {
    const [app, ...rest] = segments;
    if (app === '@me' && rest.length === 0) return call.method === 'GET' ? { status: 200, body: applicationObject() } : methodNotAllowed();
    if (app !== APPLICATION_ID) return fail(403, 50001, 'Missing Access');
    if (rest.length === 1 && rest[0] === 'commands') {
      if (call.method === 'PUT') return putCommands(call, null);
      if (call.method === 'GET') return { status: 200, body: commands.global ?? [] };
      return methodNotAllowed();
    }
    if (rest.length === 2 && rest[0] === 'role-connections' && rest[1] === 'metadata') return oauth.metadataRoute(call);
    const [guilds, guildId, what, ...extra] = rest;
    if (guilds === 'guilds' && guildId !== undefined && what === 'commands' && extra.length === 0) {
      if (!memberOf.has(guildId)) return fail(403, 50001, 'Missing Access');
      if (call.method === 'PUT') return putCommands(call, guildId);
      if (call.method === 'GET') return { status: 200, body: commands.guilds.get(guildId) ?? [] };
      return methodNotAllowed();
    }
    return notFound();
  }

  const CHANNEL_REFUSALS: Record<10003 | 50001 | 50013, Outcome> = {
    10003: fail(404, 10003, 'Unknown Channel'),
    50001: fail(403, 50001, 'Missing Access'),
    50013: fail(403, 50013, 'Missing Permissions'),
  };

  /** `POST /channels/{id}/messages`: a message the bot sends to a channel by itself (needs the bot token). */
  function channelMessage(call: RestCall, channelId: string): Outcome {
    if (call.method !== 'POST') return methodNotAllowed();
    const refusal = channelErrors.get(channelId);
    if (refusal !== undefined) return CHANNEL_REFUSALS[refusal];
    const slowmode = slowmodes.get(channelId);
    if (slowmode !== undefined)
      return {
        status: 429,
        body: { message: 'This action cannot be performed due to slowmode rate limit.', code: 20016, retry_after: slowmode, global: false },
        headers: { 'retry-after': String(slowmode), 'x-ratelimit-scope': 'user' },
      };
    const data = isRecord(call.body) ? call.body : {};
    const nonceErrors = nonceProblems(data);
    if (nonceErrors.length > 0) return refuse(invalidFormBody(nonceErrors));
    const posts = channelPosts.get(channelId) ?? [];
    // Checked above: a string or an integer (Discord returns it as a string).
    const nonce = typeof data.nonce === 'string' ? data.nonce : typeof data.nonce === 'number' ? String(data.nonce) : undefined;
    // Enforced, a nonce the bot posted lately returns that message, and no new one is made.
    if (data.enforce_nonce === true && nonce !== undefined) {
      const since = Date.now() - (options.nonceWindowMs ?? 5 * 60_000);
      const made = posts.find((p) => p.at >= since && p.message.nonce === nonce);
      if (made) return { status: 200, body: made.message };
    }
    const allowed = channelPermissions.get(channelId);
    if (allowed && ((!allowed.embedLinks && Array.isArray(data.embeds) && data.embeds.length > 0) || (!allowed.attachFiles && call.files.length > 0)))
      return CHANNEL_REFUSALS[50013];
    const message = botMessage({
      channelId,
      content: typeof data.content === 'string' ? data.content : '',
      ...withAttachments(Array.isArray(data.embeds) ? (data.embeds as unknown[]) : [], [], call.files, channelId),
      components: Array.isArray(data.components) ? (data.components as unknown[]) : [],
      flags: typeof data.flags === 'number' ? data.flags & SETTABLE_FLAGS & ~EPHEMERAL : 0,
      type: 0,
      ...(nonce !== undefined ? { nonce } : {}),
    }) as unknown as Json;
    const problem = messageProblem(data, message, call.files, []);
    if (problem) return refuse(problem);
    posts.push({ message, files: call.files, at: Date.now() });
    if (posts.length > CHANNEL_POSTS_LIMIT) posts.shift();
    channelPosts.set(channelId, posts);
    return { status: 200, body: message };
  }

  function route(call: RestCall, segments: string[]): Outcome {
    const [head, a, b, c, ...more] = segments;
    // These routes authenticate with the interaction token in the path; discord.js sends them
    // without an Authorization header (auth: false), and so does Discord accept them.
    if (head === 'interactions' && a !== undefined && b !== undefined && c === 'callback' && more.length === 0) {
      return interactionCallback(call, a, b);
    }
    if (head === 'webhooks' && a !== undefined && b !== undefined) {
      return interactionWebhook(call, a, b, segments.slice(3));
    }
    // OAuth2's token calls authenticate as the client; a member's own calls with their bearer token.
    const theirs = oauth.rest(call, segments);
    if (theirs) return theirs;
    if (call.headers.authorization !== `Bot ${token}`) return fail(401, 0, '401: Unauthorized');
    const get = (body: unknown): Outcome => (call.method === 'GET' ? { status: 200, body } : methodNotAllowed());
    if (head === 'gateway' && a === undefined) return get({ url: gatewayUrl });
    if (head === 'gateway' && a === 'bot' && b === undefined) {
      return get({
        url: gatewayUrl,
        shards: shardCount,
        session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: options.maxConcurrency ?? 1 },
      });
    }
    if (head === 'users' && a === '@me' && b === undefined) return get(BOT_USER);
    if (head === 'applications') return applicationRoute(call, segments.slice(1));
    if (head === 'channels' && a !== undefined && b === 'messages' && c === undefined) return channelMessage(call, a);
    return notFound();
  }

  // Requests are stamped as they are read and answered one per turn of the event loop (in order, no
  // limit), so that a request arriving behind a burst of others is read, and stamped, before the
  // double has answered all of them: Discord's edge takes each answer on its own, and the double,
  // which a bench runs in its own busy process, would otherwise count its own queue (the bot's 291
  // replies in the cards bench, each read, checked and answered in one go) in the bot's round trip.
  // Deadlines are judged by the stamp, as Discord judges them on arrival.
  const restTurns = new Turns(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    // Split by hand: a URL object per request was a measurable part of the double under load.
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const pathname = q < 0 ? target : target.slice(0, q);
    const searchParams = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const prefix = '/api/v10';
    const versioned = pathname === prefix || pathname.startsWith(`${prefix}/`);
    const rawPath = versioned ? pathname.slice(prefix.length) || '/' : pathname;
    let segments: string[];
    try {
      segments = rawPath.split('/').filter(Boolean).map(decodeURIComponent);
    } catch {
      segments = rawPath.split('/').filter(Boolean);
    }
    const call: RestCall = {
      method: req.method ?? 'GET',
      path: `/${segments.join('/')}`,
      rawPath,
      query: Object.fromEntries(searchParams),
      headers: headersOf(req),
      body: undefined,
      at,
      status: 0,
      files: [],
    };
    let outcome: Outcome;
    try {
      const parsed = await readBody(req);
      await restTurns.take();
      call.body = parsed.body;
      call.files = parsed.files;
      // Discord takes an HTTP interaction's answer before any webhook call for it.
      const pending = segments[0] === 'webhooks' ? byToken.get(segments[2] ?? '')?.httpPending : undefined;
      if (pending) await pending;
      outcome = versioned ? route(call, segments) : pathname.startsWith('/oauth2/authorize') ? oauth.page(call, pathname) : notFound();
    } catch (error) {
      outcome = error instanceof BodyError ? fail(error.status, error.code, error.message) : fail(500, 0, '500: Internal Server Error');
    }
    call.status = outcome.status;
    restCalls.push(call);
    outcome.interaction?.calls.push(call);
    if (outcome.html !== undefined) res.writeHead(outcome.status, { ...outcome.headers, 'content-type': 'text/html; charset=utf-8' }).end(outcome.html);
    else if (outcome.body === undefined) res.writeHead(outcome.status, outcome.headers).end();
    else res.writeHead(outcome.status, { ...outcome.headers, 'content-type': 'application/json' }).end(JSON.stringify(outcome.body));
    notify(outcome.interaction);
  }

  // ---- gateway ------------------------------------------------------------------------------

  function send(conn: Conn, payload: unknown): void {
    if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify(payload));
  }

  function closeConn(conn: Conn, code: number, reason: string): void {
    conn.state = 'closed';
    conn.droppedByUs = true;
    conn.ws.close(code, reason);
  }

  function goLive(conn: Conn, session: Session): void {
    conn.session = session;
    conn.state = 'live';
    session.conn = conn;
    current.set(session.shard, session);
  }

  function identify(conn: Conn, d: Json): void {
    if (d.token !== token) return closeConn(conn, 4004, 'Authentication failed.');
    if (typeof d.intents !== 'number') return closeConn(conn, 4013, 'Invalid intent(s).');
    const shard: unknown[] = Array.isArray(d.shard) ? d.shard : [0, 1];
    const [shardId, count] = shard;
    if (shardCount > 1 && !Array.isArray(d.shard)) return closeConn(conn, 4011, 'Sharding required.');
    if (count !== shardCount || typeof shardId !== 'number' || !Number.isInteger(shardId) || shardId < 0 || shardId >= shardCount)
      return closeConn(conn, 4010, 'Invalid shard.');
    identifies.push(d);
    counts.identifies++;
    const session: Session = { id: randomBytes(16).toString('hex'), seq: 0, log: [], conn: null, intents: d.intents, shard: shardId };
    sessions.set(session.id, session);
    goLive(conn, session);
    // READY is not kept for replay: a resumed client must not see it twice.
    send(conn, {
      op: 0,
      t: 'READY',
      s: ++session.seq,
      d: {
        v: 10,
        user: BOT_USER,
        user_settings: {},
        guilds: [],
        private_channels: [],
        relationships: [],
        presences: [],
        guild_join_requests: [],
        geo_ordered_rtc_regions: [],
        session_type: 'normal',
        session_id: session.id,
        resume_gateway_url: gatewayUrl,
        shard: [shardId, shardCount],
        application: { id: APPLICATION_ID, flags: 0 },
        _trace: ['["discord-double",{"micros":0}]'],
      },
    });
  }

  function resume(conn: Conn, d: Json): void {
    if (d.token !== token) return closeConn(conn, 4004, 'Authentication failed.');
    const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
    if (!session) {
      send(conn, { op: 9, d: false });
      return;
    }
    const seq = typeof d.seq === 'number' ? d.seq : 0;
    if (seq > session.seq) return closeConn(conn, 4007, 'Invalid seq.');
    // A session lives on one connection: resuming it elsewhere ends the old one.
    if (session.conn && session.conn !== conn) closeConn(session.conn, 4000, 'Session resumed elsewhere.');
    for (const logged of session.log) {
      if (logged.frame.s <= seq) continue;
      send(conn, logged.frame);
      logged.onSend?.();
    }
    counts.resumes++;
    goLive(conn, session);
    send(conn, { op: 0, t: 'RESUMED', s: ++session.seq, d: { _trace: ['["discord-double",{"micros":0}]'] } });
  }

  function onGatewayMessage(conn: Conn, data: RawData, isBinary: boolean): void {
    if (conn.state === 'closed') return;
    let payload: unknown;
    try {
      if (isBinary) throw new Error('binary frame on a json connection');
      payload = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    } catch {
      return closeConn(conn, 4002, 'Error while decoding payload.');
    }
    if (!isRecord(payload) || typeof payload.op !== 'number') return closeConn(conn, 4002, 'Error while decoding payload.');
    const d = isRecord(payload.d) ? payload.d : {};
    switch (payload.op) {
      case 1:
        counts.heartbeats++;
        send(conn, { op: 11 });
        break;
      case 2:
        if (conn.session) return closeConn(conn, 4005, 'Already authenticated.');
        identify(conn, d);
        break;
      case 6:
        if (conn.session) return closeConn(conn, 4005, 'Already authenticated.');
        resume(conn, d);
        break;
      // Presence, voice state, request guild members, request soundboard sounds: accepted, not acted on.
      case 3:
      case 4:
      case 8:
      case 31:
        if (!conn.session) return closeConn(conn, 4003, 'Not authenticated.');
        break;
      default:
        return closeConn(conn, 4001, 'Unknown opcode.');
    }
    notify();
  }

  function onGatewayClose(conn: Conn, code: number): void {
    conn.state = 'closed';
    conns.delete(conn);
    const session = conn.session;
    if (session?.conn === conn) session.conn = null;
    // A client closing with 1000/1001 ends its session for good, as on Discord.
    if (session && !conn.droppedByUs && (code === 1000 || code === 1001)) {
      sessions.delete(session.id);
      if (current.get(session.shard) === session) current.delete(session.shard);
    }
    notify();
  }

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (ws: WebSocket, req: IncomingMessage) => {
    counts.connections++;
    const conn: Conn = { ws, state: 'connected', session: null, droppedByUs: false };
    conns.add(conn);
    // A killed client surfaces as 'close'; the error itself has nowhere useful to go.
    ws.on('error', () => undefined);
    ws.on('close', (code) => onGatewayClose(conn, code));
    ws.on('message', (data, isBinary) => onGatewayMessage(conn, data, isBinary));
    const query = new URL(req.url ?? '/', 'http://127.0.0.1').searchParams;
    if (query.get('v') !== '10') return closeConn(conn, 4012, 'Invalid API version.');
    // Only JSON; zlib-stream is not done, and discord.js reads the uncompressed text frames anyway.
    if ((query.get('encoding') ?? 'json') !== 'json') return closeConn(conn, 4002, 'Only encoding=json is supported by the double.');
    send(conn, { op: 10, d: { heartbeat_interval: heartbeatInterval, _trace: ['["discord-double",{"micros":0}]'] } });
    notify();
  });

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket, head) => {
    const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname.replace(/\/$/, '');
    if (pathname !== '/gateway') {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const gatewayUrl = `ws://127.0.0.1:${port}/gateway`;
  base = `http://127.0.0.1:${port}`;

  function liveConn(shard = 0): Conn | undefined {
    const session = current.get(shard);
    return session?.conn?.state === 'live' ? session.conn : undefined;
  }

  const liveShards = () => Array.from({ length: shardCount }, (_, i) => i).filter((i) => liveConn(i) !== undefined);

  function dispatchFrame(t: string, d: unknown, onSend?: () => void): void {
    const shard = shardOf(isRecord(d) && typeof d.guild_id === 'string' ? d.guild_id : null);
    const session = current.get(shard);
    if (!session) throw new Error(`no gateway session on shard ${shard} to dispatch on: wait for the client to identify (waitForReady)`);
    const needs = EVENT_INTENTS[t];
    if (needs !== undefined && (session.intents & needs) === 0) {
      counts.filtered++;
      return;
    }
    const logged: LoggedFrame = { frame: { op: 0, t, s: ++session.seq, d }, onSend };
    session.log.push(logged);
    if (session.log.length > REPLAY_LOG_LIMIT) session.log.shift();
    if (session.conn?.state === 'live') {
      send(session.conn, logged.frame);
      onSend?.();
    }
  }

  function signatureHeaders(body: string, timestamp = Math.floor(Date.now() / 1000)): Record<'x-signature-ed25519' | 'x-signature-timestamp', string> {
    const ts = String(timestamp);
    return { 'x-signature-ed25519': sign(null, Buffer.from(ts + body), keys.privateKey).toString('hex'), 'x-signature-timestamp': ts };
  }

  async function post(url: string, body: string, headers: Record<string, string>): Promise<HttpAnswer> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Discord-Interactions/1.0 (+https://discord.com)', ...headers },
      body,
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // Not JSON: kept as text.
    }
    return { status: response.status, body: parsed, at: performance.now() };
  }

  function postInteraction(url: string, payload: APIInteractionLike): HttpInteractionHandle {
    if (byId.has(payload.id)) throw new Error(`interaction ${payload.id} was already sent`);
    const t = track(payload, null);
    byId.set(t.id, t);
    byToken.set(t.token, t);
    const body = JSON.stringify(payload);
    const http = post(url, body, signatureHeaders(body)).then(
      (answer) => {
        // A 200 is the interaction callback: checked and recorded as if it came over REST.
        if (answer.status === 200) {
          const path = `/interactions/${t.id}/${t.token}/callback`;
          const call: RestCall = { method: 'POST', path, rawPath: path, query: {}, headers: {}, body: answer.body, at: answer.at, status: 0, files: [] };
          const outcome = interactionCallback(call, t.id, t.token);
          call.status = outcome.status;
          restCalls.push(call);
          t.calls.push(call);
        }
        return answer;
      },
      (error: unknown) => ({ status: 0, body: String(error), at: performance.now() }),
    );
    t.httpPending = http.finally(() => {
      delete t.httpPending;
      notify(t);
    });
    return Object.assign(handleFor(t), { http });
  }

  function handleFor(t: Tracked): InteractionHandle {
    const received = () => (t.calls.length === 0 ? 'nothing' : t.calls.map(describeCall).join('; '));
    return {
      id: t.id,
      token: t.token,
      get dispatchedAt() {
        return t.dispatchedAt;
      },
      shard: t.shard,
      responses: () => [...t.calls],
      firstResponse: (timeoutMs = DEFAULT_WAIT_MS) =>
        waitUntil(
          () => t.calls[0],
          timeoutMs,
          () => `a response to interaction ${t.id} (got nothing)`,
          (t.waiters ??= new Set()),
        ),
      waitForResponses: (n, timeoutMs = DEFAULT_WAIT_MS) =>
        waitUntil(
          () => (t.calls.length >= n ? [...t.calls] : undefined),
          timeoutMs,
          () => `${n} responses to interaction ${t.id} (got ${received()})`,
          (t.waiters ??= new Set()),
        ),
    };
  }

  return {
    apiUrl: `http://127.0.0.1:${port}/api`,
    oauth,
    gatewayUrl,
    token,
    applicationId: APPLICATION_ID,
    botUserId: BOT_USER_ID,
    restCalls,
    commands,
    identifies,
    waitForReady: (timeoutMs = 10_000) =>
      waitUntil(
        () => (liveShards().length === shardCount ? true : undefined),
        timeoutMs,
        () =>
          `every shard (${shardCount}) to identify or resume (live: [${liveShards().join(', ')}], connections so far: ${counts.connections}, identifies: ${counts.identifies})`,
      ).then(() => undefined),
    dispatch: (t, d) => dispatchFrame(t, d),
    dispatchInteraction(payload) {
      if (byId.has(payload.id)) throw new Error(`interaction ${payload.id} was already dispatched`);
      const t = track(payload, shardOf((payload as unknown as Json).guild_id as string | undefined));
      byId.set(t.id, t);
      byToken.set(t.token, t);
      // The 3-second window starts when the client can see it, which for a frame queued during a
      // disconnection is the replay.
      dispatchFrame('INTERACTION_CREATE', payload, () => {
        t.dispatchedAt = performance.now();
      });
      return handleFor(t);
    },
    publicKey,
    signatureHeaders,
    postInteraction,
    shardOf,
    async verifyEndpoint(url) {
      const ping = JSON.stringify({ id: snowflake(), application_id: APPLICATION_ID, type: 1, token: interactionToken(), version: 1 });
      const answer = await post(url, ping, signatureHeaders(ping));
      const bad = signatureHeaders(ping);
      // A valid signature of other bytes: what Discord sends to check that the endpoint verifies.
      bad['x-signature-ed25519'] = signatureHeaders(`${ping} `, Number(bad['x-signature-timestamp']))['x-signature-ed25519'];
      const refused = await post(url, ping, bad);
      const ok = answer.status === 200 && isRecord(answer.body) && answer.body.type === 1 && refused.status === 401;
      return { ok, ping: answer, badSignature: refused };
    },
    dropConnection(how = 'close') {
      const conn = liveConn() ?? [...conns].find((c) => c.state !== 'closed');
      if (!conn) throw new Error('no gateway connection to drop');
      if (how === 'close') closeConn(conn, 4000, 'Unknown error.');
      else if (typeof how === 'number') closeConn(conn, how, CLOSE_REASONS[how] ?? 'Closed.');
      else {
        conn.state = 'closed';
        conn.droppedByUs = true;
        conn.ws.terminate();
      }
    },
    channelMessages: (channelId) => [...(channelPosts.get(channelId) ?? [])],
    setChannelError(channelId, code) {
      if (code === null) channelErrors.delete(channelId);
      else channelErrors.set(channelId, code);
    },
    setChannelSlowmode(channelId, seconds) {
      if (seconds === null) slowmodes.delete(channelId);
      else slowmodes.set(channelId, seconds);
    },
    setChannelPermissions(channelId, allowed) {
      if (allowed === null) channelPermissions.delete(channelId);
      else channelPermissions.set(channelId, allowed);
    },
    waitForChannelMessages: (channelId, n, timeoutMs = DEFAULT_WAIT_MS) =>
      waitUntil(
        () => ((channelPosts.get(channelId)?.length ?? 0) >= n ? [...(channelPosts.get(channelId) ?? [])] : undefined),
        timeoutMs,
        () => `${n} messages in channel ${channelId} (got ${channelPosts.get(channelId)?.length ?? 0})`,
      ),
    stats: () => ({ ...counts, liveShards: liveShards() }),
    forget(handle) {
      byId.delete(handle.id);
      byToken.delete(handle.token);
      restCalls.length = 0;
    },
    async close() {
      if (closed) return;
      closed = true;
      const error = new Error('the Discord double was closed');
      for (const l of [...listeners, ...allScoped]) l.fail(error);
      for (const conn of conns) conn.ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
