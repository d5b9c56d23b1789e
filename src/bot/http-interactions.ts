// The HTTP transport (INTERACTIONS_MODE=http): Discord POSTs each interaction to the application's
// Interactions Endpoint URL, signed with the application's Ed25519 key, and takes the first answer
// (the interaction callback) as the HTTP response. Later edits and follow-ups go through the REST
// API's interaction webhook, which needs the interaction token only. No gateway, no shards, no
// state in the process: several workers behind any load balancer answer alike when they share
// Redis (CACHE_URL), since links and paged-reply controls live there.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

import type { REST } from 'discord.js';
import type { Logger } from 'pino';

import { InteractionTypes, actionOf, createdAt, readEnvelope } from './interaction-payload.js';
import { MAX_INFLIGHT, type Incoming, type Router } from './router.js';
import { ed25519PublicKey, verifySignature } from './signature.js';
import { WebhookAnswer, type FirstAnswer } from './webhook-answer.js';
import { WarningThrottle } from '../lookup/warning-throttle.js';
import { guardConnections } from '../observe/connection-guard.js';
import { listenOn } from '../observe/listen.js';
import type { WebHandler } from '../verify/web-server.js';

/** Discord's interaction payloads are a few kilobytes (a component's carries its message): anything past this is refused with 413. */
export const MAX_BODY_BYTES = 256 * 1024;
/** A signed request whose timestamp is further than this from now is refused: a replayed request is stale. */
export const MAX_SKEW_S = 5 * 60;
/**
 * Connections at once at most (a load balancer keeps a few dozen): each may hold a body being read,
 * so this bounds what requests that are not Discord's can make the worker hold (512 x 256 KiB). At
 * the cap a new connection closes the oldest that never carried a signed interaction: Discord's
 * own are never crowded out by connections anyone can open (src/observe/connection-guard.ts).
 */
export const MAX_CONNECTIONS = 512;
/** Idle keep-alive connections are kept this long: past the 60 s a load balancer commonly keeps its own. */
export const KEEP_ALIVE_MS = 65_000;

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
  /** How long a request may take to arrive whole (REQUEST_TIMEOUT_MS); tests pass a shorter one. */
  requestTimeoutMs?: number;
  /** The web side (`GET /verify`), served on this listener when it has no port of its own. */
  web?: WebHandler | undefined;
}

/** A request, headers and body, arrives within this: Discord sends a whole one at once. */
export const REQUEST_TIMEOUT_MS = 5_000;

export interface InteractionsServer {
  port: number;
  server: Server;
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

/** The body, at most `max` bytes: a longer one is refused with 413 as soon as it is seen, and nothing more of it is read. */
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
        // Paused, not resumed: the refusal closes the connection (see `send`), the rest is never read.
        req.pause();
        reject(new HttpError(413, `body over ${max} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * Sends the answer. `close`: the connection ends with it, whatever was left unread (a refused
 * request is nobody's we keep a connection for, nor read a body of).
 */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, close = false): Promise<void> {
  return new Promise((resolve) => {
    if (res.headersSent || res.destroyed) return resolve();
    res.once('finish', () => {
      if (close) res.socket?.destroy();
      resolve();
    });
    res.once('close', () => resolve());
    res.writeHead(status, { 'content-type': 'application/json', ...headers, ...(close ? { connection: 'close' } : {}) }).end(JSON.stringify(body));
  });
}

export async function startInteractionsServer(options: InteractionsServerOptions): Promise<InteractionsServer> {
  const key = ed25519PublicKey(options.publicKey);
  const { router, rest, logger } = options;
  const nowSeconds = options.nowSeconds ?? (() => Date.now() / 1000);
  // A wrong DISCORD_PUBLIC_KEY refuses every request: the operator hears it, once a minute at most.
  let refused = 0;
  const warnings = new WarningThrottle();
  const busyWarnings = new WarningThrottle();
  const refuse = (res: ServerResponse, status: number, reason: string) => {
    if (status === 401) {
      refused++;
      if (warnings.take() !== undefined) {
        logger.warn(
          { refused, reason },
          'refused interactions whose signature does not hold (Discord tests with bad ones; if every request is refused, check DISCORD_PUBLIC_KEY)',
        );
      }
    } else {
      logger.debug({ status, reason }, 'interaction request refused');
    }
    return send(res, status, { error: reason }, status === 405 ? { allow: 'POST' } : {}, true);
  };

  async function onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'POST' && options.web && (await options.web(req, res))) return;
    if (req.method !== 'POST') return refuse(res, 405, 'only POST');
    // The headers are checked before the body is read: a request that cannot be Discord's holds no buffer.
    const signature = req.headers['x-signature-ed25519'];
    const timestamp = req.headers['x-signature-timestamp'];
    if (typeof signature !== 'string' || typeof timestamp !== 'string') return refuse(res, 401, 'missing signature headers');
    if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowSeconds() - Number(timestamp)) > MAX_SKEW_S) return refuse(res, 401, 'stale or malformed timestamp');
    let body: Buffer;
    try {
      body = await readBody(req, MAX_BODY_BYTES);
    } catch (e) {
      return refuse(res, e instanceof HttpError ? e.status : 400, (e as Error).message);
    }
    if (!verifySignature(key, timestamp, body, signature)) return refuse(res, 401, 'bad signature');
    // Discord's (or its load balancer's): kept when connections must make room for new ones.
    guard.trust(req.socket);
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return refuse(res, 400, 'malformed JSON');
    }
    const raw = readEnvelope(json);
    if (!raw) return refuse(res, 400, 'not an interaction');
    if (raw.type === InteractionTypes.ping) return send(res, 200, { type: 1 });
    if (!raw.token) return refuse(res, 400, 'no interaction token');
    const action = actionOf(raw);
    if (typeof action === 'string') return refuse(res, 400, action);
    if (router.busy >= MAX_INFLIGHT) {
      // Once a minute at most, with how many were refused since: under overload a line each would add to it.
      const alikeLeftOut = busyWarnings.take();
      if (alikeLeftOut !== undefined) logger.warn({ inflight: router.busy, alikeLeftOut }, 'too many interactions in flight: refusing with 503');
      return send(res, 503, { error: 'busy' });
    }
    // The first answer is the HTTP response (JSON only: a reply with a card is deferred, its card sent by an edit).
    const respond: FirstAnswer = (body, _files, written) => {
      written();
      return send(res, 200, body);
    };
    const answer = new WebhookAnswer(respond, false, rest, raw.application_id, raw.token);
    const incoming: Incoming = { id: raw.id, type: raw.type, createdTimestamp: createdAt(raw.id), action, answer };
    const handled = router.handle(incoming);
    const first = await Promise.race([answer.answered.then(() => 'answered' as const), handled]);
    // A copy of one taken before (a replay within the signature window) gets nothing of the first's answer.
    if (first === 'replayed') return send(res, 409, { error: 'interaction already taken' }, {}, true);
    // The router answers everything it takes; one it skips (read too late, a component not ours)
    // leaves Discord to tell the user that the interaction failed.
    if (!answer.acknowledged) {
      answer.abandon();
      await send(res, 500, { error: 'not answered' });
    }
  }

  // A client that trickles its request is cut off: Discord sends a whole one at once. Node checks
  // these timeouts every 30 s unless told otherwise, which let a trickle hold a connection (of
  // MAX_CONNECTIONS) for 30 s instead of 5.
  const timeoutMs = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server: Server = createServer(
    { headersTimeout: timeoutMs, requestTimeout: timeoutMs, connectionsCheckingInterval: Math.min(1_000, timeoutMs) },
    (req, res) => {
      onRequest(req, res).catch((e: unknown) => {
        logger.error({ err: (e as Error).message }, 'interaction request failed');
        void send(res, 500, { error: 'internal error' });
      });
    },
  );
  // Idle keep-alive connections outlive a load balancer's own idle timeout (60 s on common ones), so
  // that it never sends a request on a connection this side has just closed (a 502 nobody retries).
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // Each connection may hold a body being read; past this many, the oldest untrusted one makes room.
  const guard = guardConnections(server, { maxConnections: MAX_CONNECTIONS, logger });
  const port = await listenOn(server, options.port, options.host);
  return {
    port,
    server,
    listening: () => server.listening,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
