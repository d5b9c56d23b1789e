// The stats lookup service over HTTP. Routes are compiled from the catalog; every request is
// parsed and checked here, answered by src/service/lookups.ts, and every failure becomes an
// `errors` envelope with its status at one boundary.
import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { timingSafeEqual } from 'node:crypto';

import type { Logger } from 'pino';
import { z } from 'zod';

import { handleHealth, type ReadinessCheck } from '../observe/health-server.js';
import { guardConnections } from '../observe/connection-guard.js';
import { ENDPOINTS, TITLES, findEndpoint, type Endpoint, type PlatformSlug, type QueryOption } from '../catalog/index.js';
import { ERROR_CODES, ServiceError, invalidParameter, quotedValue } from './errors.js';
import { matchIdProblem } from './identifiers.js';
import { Memo, matchReport, matches, profile, search, segments, sessions, type LookupContext } from './lookups.js';
import type { RequestObserver } from './metrics.js';
import { StoreUnavailableError, type Store } from './store-api.js';

export interface ServiceOptions {
  store: Store;
  /** Epoch milliseconds; defaults to the wall clock. */
  now?: () => number;
  /** When non-empty, every request must carry one of these in `TRN-Api-Key`. */
  apiKeys?: readonly string[];
  /**
   * Requests a minute per API key (per client address without keys); 0 or undefined: no limit.
   * Requests with a missing or wrong key count per client address, at this limit or, without one,
   * at `FAILED_KEYS_PER_MINUTE`: guessing keys ends in 429s.
   */
  rateLimitPerMinute?: number;
  logger?: Logger;
  /** Told of every request's route, status and time (the metrics); optional. */
  metrics?: RequestObserver | undefined;
  /**
   * What `/readyz` checks (no API key needed: it tells which checks failed, never why); by default that
   * the store answers one read within 1 s.
   */
  readiness?: ReadinessCheck[];
}

/** The service is ready when its store answers. */
export function storeReadiness(store: Store): ReadinessCheck[] {
  return [{ name: 'store', check: () => store.getMeta('readiness-probe') }];
}

/** Failed API keys allowed a minute per client address when no rate limit is configured. */
export const FAILED_KEYS_PER_MINUTE = 60;

/** How long a connection may take and stay, and how many there may be (an internet-facing service). */
export interface ServerLimits {
  /** Open connections at most; past it, a new one closes the oldest of no known client (or itself, when all are known). */
  maxConnections: number;
  /** A connection with nothing sent or received for this long is closed, even with a request under way. */
  idleTimeoutMs: number;
  /** The request headers must arrive within this. */
  headersTimeoutMs: number;
  /** The whole request must arrive within this. */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is kept this long after an answer. */
  keepAliveTimeoutMs: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  maxConnections: 512,
  idleTimeoutMs: 30_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
};

interface Route {
  endpoint: Endpoint;
  /** Literal segments as strings, parameters as `{ param }`. */
  parts: (string | { param: string })[];
  query: z.ZodType<Record<string, string | undefined>>;
}

/** A query-string schema from the catalog's options: allowed values named in each message. */
function querySchema(options: readonly QueryOption[]): Route['query'] {
  const shape: Record<string, z.ZodType<string | undefined>> = {};
  for (const o of options) {
    let field: z.ZodType<string, string>;
    if (o.values) {
      const allowed = o.required ? o.values : ['', ...o.values];
      field = z.string().refine((v) => allowed.includes(v), { message: `must be one of: ${o.values.join(', ')}${o.required ? '' : ' (or empty)'}` });
    } else if (o.kind === 'integer') {
      field = z.string().regex(/^(\d{1,5})?$/, 'must be a whole number of at most 5 digits');
    } else {
      field = z.string().max(300, 'is too long');
    }
    if (o.required) field = field.refine((v) => v.trim().length > 0, 'is required');
    shape[o.name] = o.required ? z.string({ error: 'is required' }).pipe(field) : field.optional();
  }
  return z.object(shape);
}

const ROUTES: Route[] = ENDPOINTS.map((endpoint) => ({
  endpoint,
  parts: endpoint.path
    .split('/')
    .slice(1)
    .map((part) => {
      const m = /^\{(\w+)\}$/.exec(part);
      return m?.[1] ? { param: m[1] } : part;
    }),
  query: querySchema(endpoint.query),
}));

function matchRoute(segments: string[]): { route: Route; params: Record<string, string> } | undefined {
  for (const route of ROUTES) {
    if (route.parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const part = route.parts[i];
      const segment = segments[i] ?? '';
      if (part === undefined) ok = false;
      else if (typeof part === 'string') ok = part === segment;
      else if (segment.length === 0) ok = false;
      else params[part.param] = segment;
    }
    if (ok) return { route, params };
  }
  return undefined;
}

/** Splits a raw path into decoded segments; a bad percent-encoding is the caller's 400. */
function pathSegments(rawPath: string): string[] {
  const parts = rawPath.split('/').slice(1);
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  return parts.map((p, i) => {
    try {
      return decodeURIComponent(p);
    } catch {
      throw new ServiceError(400, ERROR_CODES.invalidParameter, `Invalid path: segment ${i + 1} is not valid percent-encoding.`, {
        parameter: 'path',
      });
    }
  });
}

function checkPlatform(endpoint: Endpoint, value: string, parameter = 'platform'): PlatformSlug {
  const platform = endpoint.platforms.find((p) => p === value);
  if (!platform)
    throw invalidParameter(parameter, `${endpoint.title} ${endpoint.kind} does not serve platform ${quotedValue(value)}`, endpoint.platforms, value);
  return platform;
}

function parseQuery(route: Route, search: URLSearchParams): Record<string, string | undefined> {
  const raw: Record<string, string> = {};
  for (const o of route.endpoint.query) {
    const all = search.getAll(o.name);
    // `?season=2&season=3` asks two things of a one-valued parameter: refused, not read as either.
    if (all.length > 1) throw invalidParameter(o.name, `${o.name} is given ${all.length} times; give it once`, o.values);
    if (all[0] !== undefined) raw[o.name] = all[0];
  }
  const parsed = route.query.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue?.path[0] ?? 'query');
  const option = route.endpoint.query.find((o) => o.name === name);
  throw invalidParameter(name, `${name} ${issue?.message ?? 'is invalid'}`, option?.values, raw[name]);
}

/** A token bucket per caller: `limit` requests a minute, refilled continuously. */
class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  /** Seconds to wait before the next request is allowed, or 0 to go ahead. */
  take(caller: string): number {
    const now = this.now();
    const perMs = this.limit / 60_000;
    const bucket = this.buckets.get(caller) ?? { tokens: this.limit, at: now };
    bucket.tokens = Math.min(this.limit, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(caller, bucket);
    if (this.buckets.size > 10_000) this.buckets.delete(this.buckets.keys().next().value as string);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
  }
}

function sameKey(given: string, keys: readonly Buffer[]): boolean {
  const g = Buffer.from(given);
  let ok = false;
  for (const k of keys) if (k.length === g.length && timingSafeEqual(k, g)) ok = true;
  return ok;
}

/** What every endpoint answers to; OPTIONS tells it, anything else is a 405 that tells it too. */
const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';
/** What a 503 for a store that did not answer asks a client to wait, in seconds. */
const STORE_RETRY_AFTER_S = 5;

/** A Host header's value (RFC 9112 3.2): a host name, an IPv4 address or a bracketed IPv6 one, and an optional port. */
const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]+)(?::\d{0,5})?$/;

/**
 * Answers the requests `server`'s HTTP parser refuses (a URL or headers past the size limit, bytes
 * no request line may hold, a request too slow to arrive) with the `errors` envelope, as every
 * other failure is answered, then closes: the parser cannot find where the next request would
 * start. There is no response object there, so the answer is written to the socket as Node's own
 * is, and only when nothing of another answer has gone out on it yet, lest the client read a mix
 * of two: each connection's answers are followed from their request to their end for that.
 */
export function answerParserErrors(server: Server): void {
  const unfinished = new WeakMap<Duplex, Set<ServerResponse>>();
  // Before the handler, which may end the answer at once.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    let answers = unfinished.get(req.socket);
    if (!answers) unfinished.set(req.socket, (answers = new Set()));
    answers.add(res);
    res.once('close', () => answers.delete(res));
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) =>
    answerClientError(
      err,
      socket,
      [...(unfinished.get(socket) ?? [])].some((res) => res.headersSent),
    ),
  );
}

function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, answering: boolean): void {
  if (err.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  // A method Node's parser does not know (`BREW`, a lower-case `get`) is a method the service does not answer, as any other.
  if (err.code === 'HPE_INVALID_METHOD') {
    answerOnSocket(socket, new ServiceError(405, ERROR_CODES.methodNotAllowed, 'The request method is not allowed; the service is read-only (GET).'), {
      allow: ALLOWED_METHODS,
    });
    return;
  }
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, ERROR_CODES.invalidParameter, 'The request line or headers are too large.']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, ERROR_CODES.requestTimeout, 'The request did not arrive in time.']
        : [400, ERROR_CODES.invalidParameter, 'The request is not valid HTTP/1.1.'];
  answerOnSocket(socket, new ServiceError(status, code, message, { parameter: 'request' }));
}

/** Writes an error as the only answer on a socket Node's server has handed over, then closes it. */
function answerOnSocket(socket: Duplex, error: ServiceError, headers: Record<string, string> = {}): void {
  const text = JSON.stringify({ errors: [error.toApiError()] });
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(text)}`,
    'connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${text}`, () => socket.destroy());
}

/**
 * CONNECT is the one method Node does not hand to the request handler: without a listener the
 * connection was dropped with no answer at all. It gets the 405 every other method does.
 */
function answerConnect(req: IncomingMessage, socket: Duplex): void {
  socket.on('error', () => socket.destroy());
  answerOnSocket(
    socket,
    new ServiceError(405, ERROR_CODES.methodNotAllowed, `Method ${req.method ?? 'CONNECT'} is not allowed; the service is read-only (GET).`),
    { allow: ALLOWED_METHODS },
  );
}

/**
 * An Expect header other than 100-continue: without a listener Node answered 417 with an empty
 * body. The request's body (if any) is not read, so the connection closes after the answer.
 */
function answerExpectation(req: IncomingMessage, res: ServerResponse): void {
  const error = new ServiceError(417, ERROR_CODES.invalidParameter, 'The service meets no expectation but 100-continue.', { parameter: 'expect' });
  sendJson(req, res, error.status, { errors: [error.toApiError()] }, { connection: 'close' });
}

/** Writes `body` as the JSON answer (no body to HEAD, its length said all the same). */
function sendJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(req.method === 'HEAD' ? undefined : text);
}

/** Creates the service's request handler; `createStatsServer` wraps it in an HTTP server. */
export function createHandler(options: ServiceOptions, onKnownClient?: (req: IncomingMessage) => void): (req: IncomingMessage, res: ServerResponse) => void {
  const ctx: LookupContext = { store: options.store, now: options.now ?? Date.now };
  const memo = new Memo();
  const keys = (options.apiKeys ?? []).filter((k) => k.length > 0).map((k) => Buffer.from(k));
  const limiter = options.rateLimitPerMinute ? new RateLimiter(options.rateLimitPerMinute, ctx.now) : undefined;
  const failedKeys = keys.length > 0 ? new RateLimiter(options.rateLimitPerMinute || FAILED_KEYS_PER_MINUTE, ctx.now) : undefined;
  const rateLimited = (wait: number) =>
    new ServiceError(429, ERROR_CODES.rateLimited, `Rate limit exceeded; retry in ${wait} s.`, { retryAfterSeconds: wait }, { 'retry-after': String(wait) });
  const log = options.logger;
  const health = { readiness: options.readiness ?? storeReadiness(options.store), logger: log };

  const answer = ({ route, params, search: qs }: { route: Route; params: Record<string, string>; search: URLSearchParams }): Promise<unknown> => {
    const e = route.endpoint;
    const title = e.title;
    switch (e.kind) {
      case 'profile': {
        const platform = checkPlatform(e, params.platform ?? '');
        const segmentsEndpoint = findEndpoint(title, 'segments');
        return profile(ctx, memo, title, platform, params.platformUserIdentifier ?? '', segmentsEndpoint?.platforms.includes(platform) ?? false);
      }
      case 'segments': {
        const platform = checkPlatform(e, params.platform ?? '');
        const q = parseQuery(route, qs);
        const filter = {
          queue: q.queue ? q.queue : undefined,
          season: q.season ? Number(q.season) : undefined,
        };
        if (filter.season !== undefined && filter.season < 1) throw invalidParameter('season', 'seasons start at 1', undefined, q.season);
        return segments(ctx, memo, title, platform, params.platformUserIdentifier ?? '', params.segmentType ?? '', filter);
      }
      case 'matches': {
        const platform = checkPlatform(e, params.platform ?? '');
        const q = parseQuery(route, qs);
        return matches(ctx, title, platform, params.platformUserIdentifier ?? '', q.next ? q.next : undefined);
      }
      case 'match': {
        const platform = checkPlatform(e, params.platform ?? '');
        const id = params.matchId ?? '';
        const problem = matchIdProblem(id);
        if (problem) throw invalidParameter('matchId', `the match id ${problem}`, undefined, id);
        return matchReport(ctx, title, platform, id);
      }
      case 'search': {
        const q = parseQuery(route, qs);
        const platform = checkPlatform(e, q.platform ?? '');
        return search(ctx, title, platform, q.query ?? '');
      }
      case 'sessions': {
        const platform = checkPlatform(e, params.platform ?? '');
        return sessions(ctx, memo, title, platform, params.platformUserIdentifier ?? '');
      }
    }
  };

  // Answers are computed from promises (the store may be PostgreSQL); a failure after the answer
  // began (a closed socket) is logged, never left unhandled.
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    let status = 200;
    let body: unknown;
    let route = 'none';
    const headers: Record<string, string> = {};
    try {
      // Node refuses an HTTP/1.1 request without Host before any handler runs, with an empty body
      // (requireHostHeader); the service refuses it here, in its own envelope (RFC 9112 3.2).
      if (req.httpVersion === '1.1' && req.headers.host === undefined)
        throw new ServiceError(400, ERROR_CODES.invalidParameter, 'An HTTP/1.1 request must carry a Host header.', { parameter: 'host' });
      // Nor more than one, nor one that is no host (Node keeps the first of several and any text).
      const hosts = req.rawHeaders.filter((_, i) => i % 2 === 0 && req.rawHeaders[i]!.toLowerCase() === 'host').length;
      // An empty one is allowed (RFC 9112 3.2: a target without an authority).
      if (hosts > 1 || (req.headers.host !== undefined && req.headers.host !== '' && !HOST.test(req.headers.host)))
        throw new ServiceError(
          400,
          ERROR_CODES.invalidParameter,
          hosts > 1 ? 'A request must carry one Host header.' : 'The Host header is not a host name and port.',
          { parameter: 'host' },
        );
      // A target in absolute form (RFC 9112 3.2.2, as a proxy sends it) is read by its path and query alone.
      const url = (req.url ?? '/').replace(/^https?:\/\/[^/?#]*/i, '') || '/';
      const q = url.indexOf('?');
      const rawPath = q === -1 ? url : url.slice(0, q);
      // Probes of a load balancer or a process manager: outside the interface (/v1, /v2), no key.
      if ((rawPath === '/healthz' || rawPath === '/readyz') && handleHealth(health, req, res)) return;
      const search = new URLSearchParams(q === -1 ? '' : url.slice(q + 1));

      if (keys.length > 0) {
        const given = req.headers['trn-api-key'];
        if (typeof given !== 'string' || !sameKey(given, keys)) {
          // A wrong key costs the caller's address, so that keys cannot be guessed at full speed.
          const wait = failedKeys?.take(req.socket.remoteAddress ?? '') ?? 0;
          if (wait > 0) throw rateLimited(wait);
          // RFC 9110 11.6.1: a 401 names the scheme it wants, here the key's header.
          throw new ServiceError(
            401,
            ERROR_CODES.unauthorized,
            given ? 'The API key is not valid.' : 'No API key found in request (TRN-Api-Key header).',
            {},
            { 'www-authenticate': 'TRN-Api-Key' },
          );
        }
      }
      // A client with the key (or any whole request, where the service wants none) keeps its connection
      // when a flood of others must make room.
      onKnownClient?.(req);
      if (limiter) {
        const caller = keys.length > 0 ? String(req.headers['trn-api-key']) : (req.socket.remoteAddress ?? '');
        const wait = limiter.take(caller);
        if (wait > 0) throw rateLimited(wait);
      }

      const found = matchRoute(pathSegments(rawPath));
      if (found) route = `${found.route.endpoint.title}.${found.route.endpoint.kind}`;
      if (!found) {
        throw new ServiceError(404, ERROR_CODES.routeNotFound, `No endpoint at ${rawPath.slice(0, 200)}.`, {
          titles: Object.keys(TITLES),
        });
      }
      if (req.method === 'OPTIONS') {
        headers.allow = ALLOWED_METHODS;
        status = 204;
      } else if (req.method !== 'GET' && req.method !== 'HEAD') {
        headers.allow = ALLOWED_METHODS;
        throw new ServiceError(405, ERROR_CODES.methodNotAllowed, `Method ${req.method ?? ''} is not allowed; the service is read-only (GET).`);
      } else body = { data: await answer({ ...found, search }) };
    } catch (e) {
      const error =
        e instanceof ServiceError
          ? e
          : e instanceof StoreUnavailableError
            ? new ServiceError(
                503,
                ERROR_CODES.externalError,
                'The service’s store did not answer; try again shortly.',
                {},
                { 'retry-after': String(STORE_RETRY_AFTER_S) },
              )
            : new ServiceError(500, ERROR_CODES.internal, 'The service failed to answer this request.');
      if (e instanceof StoreUnavailableError) log?.warn({ err: e.message, url: req.url }, 'request failed: the store did not answer');
      else if (!(e instanceof ServiceError)) log?.error({ err: e, url: req.url }, 'request failed');
      status = error.status;
      Object.assign(headers, error.headers);
      // A refused caller (no key, a wrong one, over its limit) keeps no connection open.
      if (status === 401 || status === 429) headers.connection = 'close';
      body = { errors: [error.toApiError()] };
    }
    if (status === 204) {
      // No content: no body and no content headers (RFC 9110 8.6).
      res.writeHead(status, headers);
      res.end();
    } else sendJson(req, res, status, body, headers);
    options.metrics?.request(route, status, (performance.now() - started) / 1000);
    log?.debug({ method: req.method, url: req.url, status, ms: Math.round((performance.now() - started) * 100) / 100 }, 'request');
  };
  return (req, res) => {
    handle(req, res).catch((e: unknown) => log?.error({ err: e, url: req.url }, 'answer failed'));
  };
}

export interface RunningService {
  server: Server;
  /** `http://127.0.0.1:<port>`: the base URL lookups take. */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the service on `host:port` (port 0 picks a free one). */
export async function startStatsServer(options: ServiceOptions & { port?: number; host?: string; limits?: Partial<ServerLimits> }): Promise<RunningService> {
  const limits = { ...DEFAULT_SERVER_LIMITS, ...options.limits };
  const server = createServer(
    {
      keepAlive: true,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Checks the two timeouts above this often (Node's default is every 30 s).
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      // The handler answers a missing Host itself, with the errors envelope.
      requireHostHeader: false,
    },
    createHandler(options, (req) => guard.trust(req.socket)),
  );
  answerParserErrors(server);
  server.on('checkExpectation', answerExpectation);
  server.on('connect', answerConnect);
  // A connection with nothing sent or received this long (a request under way, an answer not read) is
  // closed; one that sends nothing, or half its headers, is answered 408 at the headers timeout.
  server.setTimeout(limits.idleTimeoutMs, (socket) => socket.destroy());
  // At the cap, the oldest connection of no known client makes room for the new one.
  const guard = guardConnections(server, { maxConnections: limits.maxConnections, logger: options.logger });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
