// The typed lookup client: one method per endpoint of the interface, each returning the
// `ApiResponse<T>` envelope. One path for all of them: single flight -> cache (Keyv) -> HTTP (undici,
// retried) -> zod. It never throws for an upstream failure; failures are `errors` with a kind.
import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';

import { Agent, type Dispatcher } from 'undici';
import type { Logger } from 'pino';
import type { z } from 'zod';

import {
  PLATFORM_SLUGS,
  PLATFORMS,
  TITLES,
  buildPath,
  findEndpoint,
  segmentType as findSegmentType,
  type Endpoint,
  type EndpointKind,
  type PlatformSlug,
  type Queue,
  type TitleSlug,
} from '../catalog/index.js';
import type { LookupCache } from './cache.js';
import { knownJsonLength } from './memory-store.js';
import { PAYLOAD_LISTS, SLICED_ANSWER_CHARS, readInSlices } from './slices.js';
import { WARNING_INTERVAL_MS, WarningThrottle } from './warning-throttle.js';
import { within } from './within.js';
import {
  allowsStale,
  errorFromResponse,
  isOperatorFailure,
  isRetryable,
  lookupError,
  LookupErrorSchema,
  parseRetryAfter,
  statusOfCode,
  type LookupError,
  type LookupErrorKind,
} from './errors.js';
import {
  ErrorBodySchema,
  PAYLOAD_SCHEMAS,
  expiryOf,
  readPayload,
  type MatchResult,
  type SearchResult,
  type Segment,
  type SessionList,
  type StatisticalObject,
  type StatsProfile,
} from './schemas.js';

/**
 * A response body as text, decoded chunk by chunk as it arrives: undici's `text()` joins the
 * chunks and decodes them in one go at the end, a block of the event loop that grows with the
 * answer (a few milliseconds for a busy player's sessions).
 */
async function bodyText(body: AsyncIterable<Uint8Array>, maxBytes: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.byteLength;
    // Leaving the loop destroys the body: the rest is not read.
    if (bytes > maxBytes) throw new AnswerTooLarge(maxBytes);
    text += decoder.decode(chunk, { stream: true });
  }
  return text + decoder.decode();
}

/**
 * Bytes an answer may have: 200 times the largest the demo's busiest players get (a page of 20
 * matches, 39 KB; their map segments 26 KB). A base URL pointing at something else (a file server,
 * a proxy's error page) or a broken service could otherwise fill the bot's heap with one answer (a
 * 120 MB one read whole: 144 MB of heap).
 */
export const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`answer over ${maxBytes} bytes`);
  }
}

/**
 * Where an answer came from. `local`: refused before sending, because the catalog says it cannot
 * succeed or the service asked to wait (`Retry-After`).
 */
export type LookupSource = 'network' | 'cache' | 'stale' | 'local';

export interface LookupMeta {
  source: LookupSource;
  /** When the answer was fetched from the service (epoch ms). */
  fetchedAt: number;
  /** How old the answer is: 0 from the network, the time since it was fetched from cache. */
  ageMs: number;
  /** For a stale answer: the failure that made the cache serve it. */
  staleBecause?: LookupError;
}

/** The envelope of the interface: `{ data }` or `{ errors }`, plus where it came from. */
export type ApiResponse<T> = { data: T; errors?: undefined; meta: LookupMeta } | { data?: undefined; errors: LookupError[]; meta: LookupMeta };

export interface CallOptions {
  /**
   * The caller's whole budget in milliseconds, retries and backoff included. Autocomplete passes
   * something well under Discord's 3 s; a deferred command can wait longer.
   */
  deadlineMs?: number;
}

/** Time to keep each kind of answer fresh when the payload carries no `expiryDate`. */
export const DEFAULT_TTL_MS: Record<EndpointKind | 'not_found' | 'private', number> = {
  search: 60_000,
  profile: 5 * 60_000,
  segments: 5 * 60_000,
  matches: 2 * 60_000,
  // A finished match does not change.
  match: 24 * 3_600_000,
  sessions: 60_000,
  // Brief, so that a flood of lookups for a missing player does not reach the service, yet a new
  // player shows up soon.
  not_found: 30_000,
  // The same for a player who hides their stats; one who has just shown them waits as briefly.
  private: 30_000,
};

/**
 * The longest a 429's `Retry-After` holds back every lookup to the service: one that asks for an
 * hour (or names a date far off) is asked again after this.
 */
export const MAX_RATE_LIMIT_HOLD_MS = 60_000;

/** How long past its freshness an answer may still be served stale, by default. */
export const DEFAULT_STALE_WINDOW_MS = 3_600_000;

/**
 * Connections at most to the stats service (the service itself takes 512 by default). A service that
 * holds some answers a second (a slow profile, a busy upstream) would fill a small pool with them:
 * with 32, a cold start at 500 interactions a second queued quick lookups behind slow ones until
 * they too missed the direct-reply budget and were deferred.
 */
export const LOOKUP_CONNECTIONS = 128;

export interface LookupClientOptions {
  /** The stats service, e.g. `http://127.0.0.1:8787`; a path prefix is kept. */
  baseUrl: string;
  /** Sent as `TRN-Api-Key`; never logged, never part of a cache key or an error. */
  apiKey?: string | undefined;
  /** The undici dispatcher to send with; by default a keep-alive Agent owned by the client. */
  dispatcher?: Dispatcher;
  cache: LookupCache;
  logger?: Logger | undefined;
  /** Timeout of one HTTP attempt. */
  requestTimeoutMs?: number;
  /** Bytes an answer may have (MAX_ANSWER_BYTES); a longer one is not read past it and fails as `invalid_response`. */
  maxAnswerBytes?: number;
  /** Budget of a call that passes no `deadlineMs`. */
  defaultDeadlineMs?: number;
  /** Attempts in all, the first included. */
  maxAttempts?: number;
  /** First backoff step; each retry doubles it (with full jitter), up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long past its freshness an answer is kept to be served stale when the service fails. */
  staleWindowMs?: number;
  /**
   * Another service's literal values for the catalog's neutral title and platform names
   * (`{ title_b: 'apex', pc_store_b: 'origin' }`), used in paths and queries; answers' platform slugs
   * are read back into the neutral names. By default the names are sent as they are.
   */
  pathValues?: Readonly<Partial<Record<TitleSlug | PlatformSlug, string>>>;
  /** Told how each lookup was answered and of each request to the service (metrics); optional. */
  observer?: LookupObserver | undefined;
  /** The clock, injectable for tests. */
  now?: () => number;
  /** The jitter source, injectable for tests. */
  random?: () => number;
}

/**
 * What the client tells an observer (the bot's metrics), from its one cache-aside path. Called
 * synchronously: an observer must be cheap and must not throw.
 */
export interface LookupObserver {
  /** A lookup answered from the cache (`hit`), the service (`miss`), or a stale copy after the service failed (`stale`). */
  cache(result: 'hit' | 'miss' | 'stale'): void;
  /** One request to the service: the endpoint's kind, `ok` or the error kind, and how long it took. */
  upstream(kind: EndpointKind, outcome: 'ok' | LookupErrorKind, seconds: number): void;
}

interface CachedEntry {
  v: 1;
  fetchedAt: number;
  freshUntil: number;
  /** A payload, or a `not_found` or `private` error remembered briefly. */
  payload?: unknown;
  error?: LookupError;
}

interface Request<T> {
  endpoint: Endpoint;
  path: string;
  query: Record<string, string>;
  cacheKey: string;
  schema: z.ZodType<T>;
}

/** Counts the client keeps: what reached the service, what the cache saved. */
export interface LookupStats {
  requests: number;
  cacheHits: number;
  staleServed: number;
  joined: number;
}

/** How long `close` waits for the lookups under way before it cuts them off. */
const CLOSE_WAIT_MS = 1_000;
/** The share of a caller's budget a flight it joins may give up before it would. */
const JOIN_TOLERANCE = 0.1;
const MIN_TTL_MS = 5_000;
const MAX_TTL_MS = 24 * 3_600_000;
/**
 * A failure the operator has to fix (isOperatorFailure) gets each user a notice, and the log a
 * warning at most once a kind in this long, saying how many alike it left out.
 */
export const FAILURE_WARNING_INTERVAL_MS = WARNING_INTERVAL_MS;

export class LookupClient {
  private readonly base: URL;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  /** Lookups under way by cache key, with the deadline each runs to: one a key at most. */
  private readonly inflight = new Map<string, { flight: Promise<ApiResponse<unknown>>; deadline: number }>();
  /** Until when the service asked to be left alone (429 `Retry-After`, at most MAX_RATE_LIMIT_HOLD_MS ahead). */
  private heldUntil = 0;
  private readonly keyPrefix: string;
  private readonly now: () => number;
  private readonly random: () => number;
  readonly stats: LookupStats = { requests: 0, cacheHits: 0, staleServed: 0, joined: 0 };
  /** By kind of failure (five kinds at most, isOperatorFailure). */
  private readonly warned = new Map<LookupErrorKind, WarningThrottle>();
  /** The base URL's password ('' without one) and the Basic authorization its credentials make. */
  private readonly password: string;
  private readonly authorization: string | undefined;

  constructor(private readonly options: LookupClientOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl.slice(0, -1) : options.baseUrl);
    // A user and password in the base URL (a proxy in front of the service asking for them) go as
    // Basic authorization: undici's origin carries no credentials, and they were dropped unsent.
    const user = decodedOr(this.base.username);
    this.password = decodedOr(this.base.password);
    this.authorization = user || this.password ? `Basic ${Buffer.from(`${user}:${this.password}`).toString('base64')}` : undefined;
    this.ownsDispatcher = options.dispatcher === undefined;
    this.dispatcher = options.dispatcher ?? new Agent({ keepAliveTimeout: 30_000, connections: LOOKUP_CONNECTIONS, pipelining: 1 });
    // Different services must not share entries; the key itself stays out of the cache key.
    this.keyPrefix = createHash('sha256').update(this.base.href).digest('hex').slice(0, 10);
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
  }

  /** Closes the client's own connection pool (an injected dispatcher is the caller's to close). */
  /** Closes its connections: lookups still waiting for an answer a second later are cut off. */
  async close(): Promise<void> {
    if (!this.ownsDispatcher) return;
    if (!(await within(this.dispatcher.close(), CLOSE_WAIT_MS)).done) await this.dispatcher.destroy();
  }

  /** A profile whose answer gives no handle nor identifier is named as it was asked for. */
  async profile(title: TitleSlug, platform: PlatformSlug, identifier: string, options?: CallOptions): Promise<ApiResponse<StatsProfile>> {
    const answer = await this.lookup(title, 'profile', platform, { platformUserIdentifier: identifier }, {}, options);
    const info = answer.data?.platformInfo;
    if (!answer.data || !info || info.platformUserHandle !== '') return answer;
    return { ...answer, data: { ...answer.data, platformInfo: { ...info, platformUserHandle: identifier, platformUserIdentifier: identifier } } };
  }

  /** Segments of one type; title_a also takes `queue` and `season` (none on weapon: lifetime only). */
  segments(
    title: TitleSlug,
    platform: PlatformSlug,
    identifier: string,
    type: string,
    filter: { queue?: Queue | undefined; season?: number | undefined } = {},
    options?: CallOptions,
  ): Promise<ApiResponse<Segment[]>> {
    const query: Record<string, string> = {};
    if (filter.queue !== undefined) query.queue = filter.queue;
    if (filter.season !== undefined) query.season = String(filter.season);
    return this.lookup(title, 'segments', platform, { platformUserIdentifier: identifier, segmentType: type }, query, options);
  }

  search(title: TitleSlug, platform: PlatformSlug, query: string, options?: CallOptions): Promise<ApiResponse<SearchResult[]>> {
    return this.lookup(title, 'search', platform, {}, { platform, query }, options);
  }

  /** title_a's recent matches, 20 a page; pass `metadata.next` of a page to get the next one. */
  matches(title: TitleSlug, platform: PlatformSlug, identifier: string, next?: string, options?: CallOptions): Promise<ApiResponse<MatchResult>> {
    return this.lookup(title, 'matches', platform, { platformUserIdentifier: identifier }, next ? { next } : {}, options);
  }

  match(title: TitleSlug, platform: PlatformSlug, matchId: string, options?: CallOptions): Promise<ApiResponse<StatisticalObject>> {
    return this.lookup(title, 'match', platform, { matchId }, {}, options);
  }

  sessions(title: TitleSlug, platform: PlatformSlug, identifier: string, options?: CallOptions): Promise<ApiResponse<SessionList>> {
    return this.lookup(title, 'sessions', platform, { platformUserIdentifier: identifier }, {}, options);
  }

  private lookup<K extends EndpointKind>(
    title: TitleSlug,
    kind: K,
    platform: PlatformSlug,
    params: Record<string, string>,
    query: Record<string, string>,
    options: CallOptions = {},
  ): Promise<ApiResponse<PayloadOf<K>>> {
    const started = this.now();
    const refused = this.refuseLocally(title, kind, platform, params, query);
    if (refused) return Promise.resolve({ errors: [refused], meta: { source: 'local', fetchedAt: started, ageMs: 0 } });
    const endpoint = findEndpoint(title, kind) as Endpoint;
    const schema = PAYLOAD_SCHEMAS[endpoint.payload] as unknown as z.ZodType<PayloadOf<K>>;
    const path = buildPath(endpoint.path.replace(`/${title}/`, `/${encodeURIComponent(this.literal(title))}/`), {
      platform: this.literal(platform),
      ...params,
    });
    const sent = query.platform === undefined ? query : { ...query, platform: this.literal(platform) };
    const req: Request<PayloadOf<K>> = { endpoint, path, query: sent, schema, cacheKey: this.cacheKey(endpoint, platform, params, query) };
    const deadline = started + (options.deadlineMs ?? this.options.defaultDeadlineMs ?? 10_000);

    // A flight gives up at its starter's deadline: a caller who may wait longer starts its own, which
    // later callers join instead. Within a tenth of its budget it joins: callers with the same budget
    // a few milliseconds apart must not each send the request.
    const joined = this.inflight.get(req.cacheKey);
    if (joined && deadline - joined.deadline <= (deadline - started) * JOIN_TOLERANCE) {
      this.stats.joined++;
      return this.within(joined.flight as Promise<ApiResponse<PayloadOf<K>>>, deadline);
    }
    const flight: Promise<ApiResponse<PayloadOf<K>>> = this.cacheAside(req, deadline).finally(() => {
      if (this.inflight.get(req.cacheKey)?.flight === flight) this.inflight.delete(req.cacheKey);
    });
    this.inflight.set(req.cacheKey, { flight, deadline });
    return this.within(flight, deadline);
  }

  private warnOperator(req: Request<unknown>, error: LookupError): void {
    const logger = this.options.logger;
    if (!logger) return;
    let throttle = this.warned.get(error.kind);
    if (!throttle) this.warned.set(error.kind, (throttle = new WarningThrottle(FAILURE_WARNING_INTERVAL_MS, this.now)));
    const alikeLeftOut = throttle.take();
    if (alikeLeftOut === undefined) return;
    // The error as the client made it: the API key is never part of it (redact()).
    logger.warn(
      {
        kind: error.kind,
        status: error.status ?? null,
        code: error.code ?? null,
        endpoint: `${req.endpoint.title}.${req.endpoint.kind}`,
        message: error.message,
        alikeLeftOut,
      },
      'lookups are failing: users get a notice',
    );
  }

  /** A joined flight may have been started with a longer deadline than this caller has. */
  private async within<T>(flight: Promise<ApiResponse<T>>, deadline: number): Promise<ApiResponse<T>> {
    const result = await within(flight, deadline - this.now());
    return result.done
      ? result.value
      : { errors: [lookupError('timeout', 'The stats service did not answer in time.')], meta: { source: 'network', fetchedAt: this.now(), ageMs: 0 } };
  }

  /** The one cache-aside path of every method. */
  private async cacheAside<T>(req: Request<T>, deadline: number): Promise<ApiResponse<T>> {
    const cached = await this.readCache(req);
    const now = this.now();
    if (cached && now < cached.freshUntil) {
      this.stats.cacheHits++;
      this.options.observer?.cache('hit');
      const meta: LookupMeta = { source: 'cache', fetchedAt: cached.fetchedAt, ageMs: now - cached.fetchedAt };
      return cached.error ? { errors: [cached.error], meta } : { data: cached.payload as T, meta };
    }
    const fetched = this.heldBack<T>() ?? (await this.fetchWithRetries(req, deadline));
    const observer = this.options.observer;
    if ('data' in fetched && fetched.data !== undefined) {
      const freshUntil = this.freshUntil(req.endpoint.kind, fetched.data);
      await this.options.cache.set(
        req.cacheKey,
        { v: 1, fetchedAt: fetched.meta.fetchedAt, freshUntil, payload: fetched.data } satisfies CachedEntry,
        freshUntil - fetched.meta.fetchedAt + (this.options.staleWindowMs ?? DEFAULT_STALE_WINDOW_MS),
      );
      observer?.cache('miss');
      return fetched;
    }
    const error = fetched.errors?.[0];
    if (error && isOperatorFailure(error)) this.warnOperator(req, error);
    if (error?.kind === 'not_found' || error?.kind === 'private') {
      const ttl = DEFAULT_TTL_MS[error.kind];
      await this.options.cache.set(
        req.cacheKey,
        { v: 1, fetchedAt: fetched.meta.fetchedAt, freshUntil: fetched.meta.fetchedAt + ttl, error } satisfies CachedEntry,
        ttl,
      );
    }
    const staleWindow = this.options.staleWindowMs ?? DEFAULT_STALE_WINDOW_MS;
    if (error && allowsStale(error) && cached?.payload !== undefined && this.now() < cached.freshUntil + staleWindow) {
      this.stats.staleServed++;
      observer?.cache('stale');
      return { data: cached.payload as T, meta: { source: 'stale', fetchedAt: cached.fetchedAt, ageMs: this.now() - cached.fetchedAt, staleBecause: error } };
    }
    observer?.cache('miss');
    return fetched;
  }

  /**
   * The answer while a 429's `Retry-After` runs: asking sooner would be refused again and spend the
   * key's quota (the cache still answers, and a stale copy where allowsStale says so).
   */
  private heldBack<T>(): ApiResponse<T> | undefined {
    const now = this.now();
    if (now >= this.heldUntil) return undefined;
    const error = lookupError('rate_limited', 'The stats service asked to wait before it is asked again.', { retryAfterMs: this.heldUntil - now });
    return { errors: [error], meta: { source: 'local', fetchedAt: now, ageMs: 0 } };
  }

  /** Reads and re-validates an entry; one that no longer fits its schema is a miss. */
  private async readCache<T>(req: Request<T>): Promise<CachedEntry | undefined> {
    const raw = (await this.options.cache.get(req.cacheKey)) as Partial<CachedEntry> | undefined;
    if (!raw || raw.v !== 1 || typeof raw.fetchedAt !== 'number' || typeof raw.freshUntil !== 'number') return undefined;
    if (raw.error !== undefined) {
      const error = LookupErrorSchema.safeParse(raw.error);
      return error.success ? { v: 1, fetchedAt: raw.fetchedAt, freshUntil: raw.freshUntil, error: error.data } : undefined;
    }
    // Kept as objects in memory: checked when this process stored them, and read-only to callers.
    if (this.options.cache.keepsObjects) return raw as CachedEntry;
    const payload = req.schema.safeParse(raw.payload);
    if (!payload.success) {
      this.options.logger?.warn({ key: req.cacheKey }, 'cached entry no longer fits its schema; fetching again');
      return undefined;
    }
    return { v: 1, fetchedAt: raw.fetchedAt, freshUntil: raw.freshUntil, payload: payload.data };
  }

  /** Until the payload's `expiryDate` when it has one, else the kind's default; within bounds. */
  private freshUntil(kind: EndpointKind, payload: unknown): number {
    const now = this.now();
    const expiries: number[] = [];
    // An expiry of `0001-01-01T00:00:00+00:00` means none is known: it must not shorten the lifetime.
    const collect = (value: unknown) => {
      const t = value && typeof value === 'object' && 'expiryDate' in value ? expiryOf(value.expiryDate as string | null) : null;
      if (t !== null) expiries.push(t);
    };
    if (Array.isArray(payload)) payload.forEach(collect);
    else collect(payload);
    const ttl = expiries.length > 0 ? Math.min(...expiries) - now : DEFAULT_TTL_MS[kind];
    return now + Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, ttl));
  }

  /**
   * Sends the request, retrying 5xx, connection failures and 429 with jittered exponential backoff
   * (at least what `Retry-After` asks), as long as the wait ends before the deadline.
   */
  private async fetchWithRetries<T>(req: Request<T>, deadline: number): Promise<ApiResponse<T>> {
    const maxAttempts = this.options.maxAttempts ?? 3;
    let result: ApiResponse<T> | undefined;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      result = await this.fetchOnce(req, deadline);
      const error = result.errors?.[0];
      this.options.observer?.upstream(req.endpoint.kind, error?.kind ?? 'ok', (performance.now() - started) / 1000);
      if (!error || !isRetryable(error) || attempt >= maxAttempts) return result;
      const step = Math.min(this.options.maxBackoffMs ?? 2_000, (this.options.backoffMs ?? 100) * 2 ** (attempt - 1));
      const wait = Math.max(this.random() * step, error.retryAfterMs ?? 0);
      if (this.now() + wait >= deadline) return result;
      await sleep(wait);
    }
  }

  private async fetchOnce<T>(req: Request<T>, deadline: number): Promise<ApiResponse<T>> {
    const started = this.now();
    const timeout = Math.min(this.options.requestTimeoutMs ?? 5_000, deadline - started);
    const meta = (): LookupMeta => ({ source: 'network', fetchedAt: this.now(), ageMs: 0 });
    if (timeout <= 0) return { errors: [lookupError('timeout', 'The stats service did not answer in time.')], meta: meta() };
    // The path goes to undici as it is: a URL object would resolve an identifier of `..` as a dot segment.
    const search = new URLSearchParams(req.query).toString();
    const path = this.base.pathname.replace(/\/$/, '') + req.path + (search ? `?${search}` : '');
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'player-stats-bot' };
    if (this.options.apiKey) headers['trn-api-key'] = this.options.apiKey;
    if (this.authorization) headers.authorization = this.authorization;

    this.stats.requests++;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeout);
    let status = 0;
    try {
      const res = await this.dispatcher.request({ origin: this.base.origin, path, method: 'GET', headers, signal: controller.signal });
      status = res.statusCode;
      const text = await bodyText(res.body, this.options.maxAnswerBytes ?? MAX_ANSWER_BYTES);
      const header = (name: string) => {
        const value = res.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      const retryAfterMs = parseRetryAfter(header('retry-after'), this.now());
      this.options.logger?.debug({ endpoint: `${req.endpoint.title}.${req.endpoint.kind}`, status, ms: this.now() - started }, 'lookup');
      if (status < 200 || status >= 300) {
        const error = this.redact(errorFromResponse(status, text, retryAfterMs, header('location')));
        if (error.kind === 'rate_limited' && error.retryAfterMs !== undefined)
          this.heldUntil = Math.max(this.heldUntil, this.now() + Math.min(error.retryAfterMs, MAX_RATE_LIMIT_HOLD_MS));
        return { errors: [error], meta: meta() };
      }
      return await this.parsePayload(req, text, meta());
    } catch (e) {
      if (e instanceof AnswerTooLarge)
        return {
          errors: [
            lookupError('invalid_response', `The stats service sent an answer larger than ${e.maxBytes} bytes.`, { status, data: { maxBytes: e.maxBytes } }),
          ],
          meta: meta(),
        };
      const timedOut = controller.signal.aborted;
      this.options.logger?.debug(
        { endpoint: `${req.endpoint.title}.${req.endpoint.kind}`, status, failure: timedOut ? 'timeout' : (e as Error).message },
        'lookup failed',
      );
      return {
        errors: [
          timedOut
            ? lookupError('timeout', 'The stats service did not answer in time.', { data: { timeoutMs: timeout } })
            : lookupError('unavailable', 'The stats service could not be reached.', { data: { reason: (e as { code?: string }).code ?? 'connection failed' } }),
        ],
        meta: meta(),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  private async parsePayload<T>(req: Request<T>, text: string, meta: LookupMeta): Promise<ApiResponse<T>> {
    // A large answer whose payload is a list (a busy player's sessions) is read a slice at a time,
    // so that the event loop answers others between them (src/lookup/slices.ts).
    const listed = text.length >= SLICED_ANSWER_CHARS ? PAYLOAD_LISTS[req.endpoint.payload] : undefined;
    let parsed = listed ? await readInSlices(text, req.schema, listed) : undefined;
    if (!parsed) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return { errors: [lookupError('invalid_response', 'The stats service sent an answer that is not JSON.', { status: 200 })], meta };
      }
      const body = json as { data?: unknown } | null;
      const data = body && typeof body === 'object' ? body.data : undefined;
      // An errors list without data is a failure, whatever the status said: read by the status its code implies.
      const failed = data === undefined ? ErrorBodySchema.safeParse(json) : undefined;
      if (failed?.success) return { errors: [this.redact(errorFromResponse(statusOfCode(failed.data.errors[0]?.code ?? null), text, undefined))], meta };
      parsed = readPayload(req.schema, data);
    }
    // A field of a shape we did not expect costs that field, not the answer; it is worth knowing of.
    if (parsed.degraded.length > 0)
      this.options.logger?.debug(
        { endpoint: `${req.endpoint.title}.${req.endpoint.kind}`, degraded: parsed.degraded.slice(0, 20) },
        'answer read with fields left out',
      );
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return {
        errors: [
          lookupError('invalid_response', 'The stats service sent an answer that does not fit its schema.', {
            status: 200,
            data: { path: issue?.path.join('.') ?? '', issue: issue?.message ?? '' },
          }),
        ],
        meta,
      };
    }
    const data = this.neutralSlugs(req.endpoint.kind, parsed.data);
    if (typeof data === 'object' && data !== null) knownJsonLength(data, text.length);
    return { data, meta };
  }

  /** The value a deployment's service uses for a neutral title or platform name. */
  private literal(name: TitleSlug | PlatformSlug): string {
    return this.options.pathValues?.[name] ?? name;
  }

  /** Answers name platforms by the service's literal values; the bot speaks of them by the catalog's. */
  private neutralSlugs<T>(kind: EndpointKind, data: T): T {
    const values = this.options.pathValues;
    if (!values || Object.keys(values).length === 0) return data;
    const neutral = (slug: string | null) => PLATFORM_SLUGS.find((p) => values[p] === slug) ?? slug;
    if (kind === 'search') return (data as SearchResult[]).map((r) => ({ ...r, platformSlug: neutral(r.platformSlug) })) as T;
    if (kind === 'profile') {
      const p = data as StatsProfile;
      return { ...p, platformInfo: { ...p.platformInfo, platformSlug: neutral(p.platformInfo.platformSlug) } } as T;
    }
    return data;
  }

  /** What the catalog already knows cannot succeed is refused without spending the service's quota. */
  private refuseLocally(
    title: TitleSlug,
    kind: EndpointKind,
    platform: PlatformSlug,
    params: Record<string, string>,
    query: Record<string, string>,
  ): LookupError | undefined {
    const endpoint = findEndpoint(title, kind);
    const invalid = (parameter: string, message: string, allowed?: readonly string[]) =>
      lookupError('invalid_parameter', message, { data: { parameter, ...(allowed ? { allowed } : {}) } });
    if (!endpoint) return invalid('title', `${TITLES[title].name} has no ${kind} endpoint.`);
    if (!endpoint.platforms.includes(platform))
      return invalid('platform', `${TITLES[title].name} ${kind} is not available on ${PLATFORMS[platform].name}.`, endpoint.platforms);
    const id = params.platformUserIdentifier ?? query.query ?? params.matchId;
    if (id !== undefined && id.trim().length === 0) return invalid(kind === 'search' ? 'query' : 'platformUserIdentifier', 'Type a player name or id.');
    if (params.segmentType !== undefined && !findSegmentType(title, params.segmentType))
      return invalid(
        'segmentType',
        `${TITLES[title].name} has no "${params.segmentType}" segments.`,
        TITLES[title].segmentTypes.map((s) => s.type),
      );
    if (query.season !== undefined && TITLES[title].lifetimeOnlySegmentTypes.includes(params.segmentType ?? ''))
      return invalid('season', `${params.segmentType ?? ''} stats exist for lifetime only.`);
    return undefined;
  }

  private cacheKey(endpoint: Endpoint, platform: PlatformSlug, params: Record<string, string>, query: Record<string, string>): string {
    // Identifiers are case-insensitive at the service: one entry for "Nova" and "nova".
    const parts = [this.keyPrefix, endpoint.title, endpoint.kind, platform];
    for (const [k, v] of Object.entries(params).sort()) parts.push(`${k}=${encodeURIComponent(k === 'matchId' ? v : v.toLowerCase())}`);
    for (const [k, v] of Object.entries(query).sort()) parts.push(`${k}=${encodeURIComponent(k === 'next' ? v : v.toLowerCase())}`);
    return parts.join(':');
  }

  /** Insurance against a gateway that echoes what it was sent: the key and the password never leave the client. */
  private redact(error: LookupError): LookupError {
    let text = JSON.stringify(error);
    for (const secret of [this.options.apiKey, this.password, this.authorization?.slice('Basic '.length)])
      if (secret && secret.length >= 4 && text.includes(secret)) text = text.split(secret).join('[redacted]');
    return text === JSON.stringify(error) ? error : (JSON.parse(text) as LookupError);
  }
}

/** Percent-encoded text decoded, or as it is where it does not decode (the configuration refuses such a URL). */
function decodedOr(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

type PayloadOf<K extends EndpointKind> = {
  profile: StatsProfile;
  segments: Segment[];
  search: SearchResult[];
  matches: MatchResult;
  match: StatisticalObject;
  sessions: SessionList;
}[K];
