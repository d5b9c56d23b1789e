// The HTTP transport (INTERACTIONS_MODE=http): Discord POSTs each interaction to the application's
// Interactions Endpoint URL, signed with the application's Ed25519 key, and takes the first answer
// (the interaction callback) as the HTTP response. Later edits and follow-ups go through the REST
// API's interaction webhook, which needs the interaction token only. No gateway, no shards, no
// state in the process: several workers behind any load balancer answer alike when they share
// Redis (CACHE_URL), since links and paged-reply controls live there.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { PermissionFlagsBits, Routes, type REST } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';

import type { Choice, CommandInput, OptionValue } from '../../commands/index.js';
import type { Reply } from '../embeds/index.js';
import type { Action, Answer, Incoming, Router } from './router.js';
import { ed25519PublicKey, verifySignature } from './signature.js';

/** Discord's interaction payloads are a few kilobytes (a component's carries its message): anything past this is refused with 413. */
export const MAX_BODY_BYTES = 256 * 1024;
/** A signed request whose timestamp is further than this from now is refused: a replayed request is stale. */
export const MAX_SKEW_S = 5 * 60;
/** Interactions handled at once at most; past it Discord hears 503 (and the user that the interaction failed). */
export const MAX_INFLIGHT = 2_000;

const EPHEMERAL = 64;

/** Whether a member's permission bits (Discord's decimal string) include Manage Server. */
const manageServer = (permissions: string | undefined): boolean => permissions !== undefined && (BigInt(permissions) & PermissionFlagsBits.ManageGuild) !== 0n;
const DISCORD_EPOCH = 1_420_070_400_000n;

// ---- the payload, read at the boundary --------------------------------------------------------

interface RawOption {
  name: string;
  type: number;
  value?: OptionValue | undefined;
  focused?: boolean | undefined;
  options?: RawOption[] | undefined;
}
const OptionSchema: z.ZodType<RawOption> = z.lazy(() =>
  z.object({ name: z.string(), type: z.number(), value: z.union([z.string(), z.number(), z.boolean()]).optional(), focused: z.boolean().optional(), options: z.array(OptionSchema).optional() }),
);
const snowflake = z.string().regex(/^\d{1,20}$/);
const UserSchema = z.object({ id: snowflake });
const InteractionSchema = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1).max(1_000).optional(),
  guild_id: snowflake.optional(),
  /** The member's permissions in the channel, as a decimal bit set (Discord sends them with every guild interaction). */
  member: z.object({ user: UserSchema, permissions: z.string().regex(/^\d{1,30}$/).optional() }).optional(),
  user: UserSchema.optional(),
  locale: z.string().max(20).optional(),
  data: z.unknown().optional(),
});
const CommandDataSchema = z.object({ name: z.string().max(32), options: z.array(OptionSchema).optional() });
const ComponentDataSchema = z.object({ custom_id: z.string().max(100), component_type: z.number(), values: z.array(z.string()).optional() });

type RawInteraction = z.infer<typeof InteractionSchema>;

/** The leaf options, with the subcommand group and subcommand they sit under. */
function readOptions(options: readonly RawOption[] | undefined): { group: string | null; subcommand: string | null; values: Record<string, OptionValue>; focused?: { name: string; value: string } } {
  const out: ReturnType<typeof readOptions> = { group: null, subcommand: null, values: {} };
  const walk = (list: readonly RawOption[]) => {
    for (const o of list) {
      if (o.type === 2) out.group = o.name;
      if (o.type === 1) out.subcommand = o.name;
      if (o.options) walk(o.options);
      else if (o.value !== undefined) {
        out.values[o.name] = o.value;
        if (o.focused) out.focused = { name: o.name, value: String(o.value) };
      }
    }
  };
  walk(options ?? []);
  return out;
}

/** What the user did, or why the payload cannot be read. */
function actionOf(raw: RawInteraction): Action | string {
  const userId = raw.member?.user.id ?? raw.user?.id;
  if (!userId) return 'no user';
  if (raw.type === 2 || raw.type === 4) {
    const data = CommandDataSchema.safeParse(raw.data);
    if (!data.success) return 'malformed command data';
    const read = readOptions(data.data.options);
    const input: CommandInput = { name: data.data.name, group: read.group, subcommand: read.subcommand, options: read.values, userId, guildId: raw.guild_id ?? null, locale: raw.locale, canManageServer: manageServer(raw.member?.permissions) };
    if (raw.type === 2) return { kind: 'command', input };
    return { kind: 'autocomplete', input: { ...input, focused: read.focused ?? { name: '', value: '' } } };
  }
  if (raw.type === 3) {
    const data = ComponentDataSchema.safeParse(raw.data);
    if (!data.success) return 'malformed component data';
    return { kind: 'component', customId: data.data.custom_id, values: data.data.component_type === 3 ? data.data.values : undefined, userId, locale: raw.locale };
  }
  return `interaction type ${raw.type} is not answered by this bot`;
}

// ---- answering --------------------------------------------------------------------------------

/** A reply as Discord's message JSON (no mentions ever) and the files it uploads. */
export function messageOf(reply: Reply, withFlags: boolean): { body: Record<string, unknown>; files: { name: string; data: Buffer }[] } {
  const files = reply.files ?? [];
  return {
    body: {
      content: reply.content ?? '',
      embeds: reply.embeds,
      components: reply.components,
      allowed_mentions: { parse: [] },
      // Files replace the message's attachments: a page without a card drops the old one.
      attachments: files.map((f, i) => ({ id: i, filename: f.name })),
      ...(withFlags && reply.ephemeral ? { flags: EPHEMERAL } : {}),
    },
    files: files.map((f) => ({ name: f.name, data: f.data })),
  };
}

/**
 * The first answer is the HTTP response; the rest go through the interaction webhook. A reply with
 * a card (a file) is acknowledged as deferred and the card sent by an edit: a JSON response body
 * carries no file.
 */
class HttpAnswer implements Answer {
  acknowledged = false;
  private readonly sent: Promise<void>;
  private resolveSent!: () => void;

  constructor(
    private readonly write: (body: unknown) => Promise<void>,
    private readonly rest: REST,
    private readonly applicationId: string,
    private readonly token: string,
  ) {
    this.sent = new Promise((resolve) => (this.resolveSent = resolve));
  }

  /** Resolves once the first answer is written (or the request is over). */
  get answered(): Promise<void> {
    return this.sent;
  }

  private async ack(body: unknown): Promise<void> {
    if (this.acknowledged) throw new Error('the interaction was already acknowledged');
    this.acknowledged = true;
    try {
      await this.write(body);
    } finally {
      this.resolveSent();
    }
  }

  /** Ends the request without an answer (nothing was acknowledged). */
  abandon(): void {
    this.resolveSent();
  }

  async reply(reply: Reply): Promise<void> {
    if (reply.files?.length) {
      await this.ack({ type: 5, data: reply.ephemeral ? { flags: EPHEMERAL } : {} });
      return this.edit(reply);
    }
    return this.ack({ type: 4, data: messageOf(reply, true).body });
  }

  async update(reply: Reply): Promise<void> {
    if (reply.files?.length) {
      await this.ack({ type: 6 });
      return this.edit(reply);
    }
    return this.ack({ type: 7, data: messageOf(reply, false).body });
  }

  defer(ephemeral: boolean): Promise<void> {
    return this.ack({ type: 5, data: ephemeral ? { flags: EPHEMERAL } : {} });
  }

  deferUpdate(): Promise<void> {
    return this.ack({ type: 6 });
  }

  choices(choices: Choice[]): Promise<void> {
    return this.ack({ type: 8, data: { choices } });
  }

  async edit(reply: Reply): Promise<void> {
    await this.sent;
    const { body, files } = messageOf(reply, false);
    await this.rest.patch(Routes.webhookMessage(this.applicationId, this.token, '@original'), { body, files, auth: false });
  }

  async followUp(reply: Reply): Promise<void> {
    await this.sent;
    const { body, files } = messageOf(reply, true);
    await this.rest.post(Routes.webhook(this.applicationId, this.token), { body, files, auth: false });
  }

  async deleteOriginal(): Promise<void> {
    await this.sent;
    await this.rest.delete(Routes.webhookMessage(this.applicationId, this.token, '@original'), { auth: false });
  }
}

// ---- the server -------------------------------------------------------------------------------

export interface InteractionsServerOptions {
  host: string;
  port: number;
  /** The application's public key, 64 hex digits. */
  publicKey: string;
  router: Router;
  /** REST pointed at DISCORD_API_URL; interaction webhooks need no bot token. */
  rest: REST;
  logger: Logger;
  /** The clock of the timestamp check (seconds); tests pass their own. */
  nowSeconds?: () => number;
}

export interface InteractionsServer {
  port: number;
  /** Whether it still takes connections (for readiness). */
  listening(): boolean;
  /** Stops taking connections and lets idle ones go; the router drains what is in flight. */
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The body, at most `max` bytes: a longer one is refused with 413 as soon as it is seen. */
function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(new HttpError(413, `body over ${max} bytes`));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, `body over ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve) => {
    if (res.headersSent || res.destroyed) return resolve();
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  });
}

export async function startInteractionsServer(options: InteractionsServerOptions): Promise<InteractionsServer> {
  const key = ed25519PublicKey(options.publicKey);
  const { router, rest, logger } = options;
  const nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
  // A wrong DISCORD_PUBLIC_KEY refuses every request: the operator hears it, once a minute at most.
  const refused = { count: 0, reportedAt: 0 };
  const refuse = (res: ServerResponse, status: number, reason: string) => {
    if (status === 401) {
      refused.count++;
      if (Date.now() - refused.reportedAt > 60_000) {
        refused.reportedAt = Date.now();
        logger.warn({ refused: refused.count, reason }, 'refused interactions whose signature does not hold (Discord tests with bad ones; if every request is refused, check DISCORD_PUBLIC_KEY)');
      }
    } else {
      logger.debug({ status, reason }, 'interaction request refused');
    }
    return send(res, status, { error: reason }, status === 405 ? { allow: 'POST' } : {});
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST') return refuse(res, 405, 'only POST');
    let body: Buffer;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (e) {
      return refuse(res, e instanceof HttpError ? e.status : 400, (e as Error).message);
    }
    const signature = req.headers['x-signature-ed25519'];
    const timestamp = req.headers['x-signature-timestamp'];
    if (typeof signature !== 'string' || typeof timestamp !== 'string') return refuse(res, 401, 'missing signature headers');
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds() - Number(timestamp)) > MAX_SKEW_S) return refuse(res, 401, 'stale or malformed timestamp');
    if (!verifySignature(key, timestamp, body, signature)) return refuse(res, 401, 'bad signature');
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return refuse(res, 400, 'malformed JSON');
    }
    const parsed = InteractionSchema.safeParse(json);
    if (!parsed.success) return refuse(res, 400, 'not an interaction');
    const raw = parsed.data;
    if (raw.type === 1) return send(res, 200, { type: 1 });
    if (!raw.token) return refuse(res, 400, 'no interaction token');
    const action = actionOf(raw);
    if (typeof action === 'string') return refuse(res, 400, action);
    if (router.busy >= MAX_INFLIGHT) {
      logger.warn({ inflight: router.busy }, 'too many interactions in flight: refusing with 503');
      return send(res, 503, { error: 'busy' });
    }
    const answer = new HttpAnswer((b) => send(res, 200, b), rest, raw.application_id, raw.token);
    const incoming: Incoming = { id: raw.id, type: raw.type, createdTimestamp: Number((BigInt(raw.id) >> 22n) + DISCORD_EPOCH), action, answer };
    const handled = router.handle(incoming);
    await Promise.race([answer.answered, handled]);
    // The router answers everything it takes; one it skips (read too late, a component not ours)
    // leaves Discord to tell the user that the interaction failed.
    if (!answer.acknowledged) {
      answer.abandon();
      await send(res, 500, { error: 'not answered' });
    }
  }

  const server: Server = createServer((req, res) => {
    onRequest(req, res).catch((e: unknown) => {
      logger.error({ err: (e as Error).message }, 'interaction request failed');
      void send(res, 500, { error: 'internal error' });
    });
  });
  // A client that trickles its request is cut off: Discord sends a whole one at once.
  server.headersTimeout = 5_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    listening: () => server.listening,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
