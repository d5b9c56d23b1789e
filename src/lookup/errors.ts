// What can go wrong with a lookup, as data: every failure is one of these kinds, so that the bot can
// tell "no such player" from "the stats service is down" without parsing messages.
import { z } from 'zod';

import { ErrorBodySchema, GatewayErrorBodySchema } from './schemas.js';

export const LOOKUP_ERROR_KINDS = [
  'not_found',
  'private',
  'invalid_parameter',
  'rate_limited',
  'unauthorized',
  'timeout',
  'unavailable',
  'invalid_response',
] as const;
export type LookupErrorKind = (typeof LOOKUP_ERROR_KINDS)[number];

export const LookupErrorSchema = z.object({
  kind: z.enum(LOOKUP_ERROR_KINDS),
  /** The service's code (`CollectorResultStatus::NotFound`, `InvalidParameter`, ...), when it sent one. */
  code: z.string().nullable(),
  message: z.string(),
  /** HTTP status, or null when no response arrived. */
  status: z.number().int().nullable(),
  data: z.record(z.string(), z.unknown()),
  /** How long the service asked to wait (429 `Retry-After`). */
  retryAfterMs: z.number().nonnegative().optional(),
});
export type LookupError = z.infer<typeof LookupErrorSchema>;

/**
 * Whether another attempt may succeed: 5xx, connection failures and 429, never other 4xx nor a 3xx
 * (a wrong base URL stays wrong); nor a service still loading its data after a start (it asks to
 * come back later than a lookup waits).
 */
export function isRetryable(error: LookupError): boolean {
  if (error.kind === 'rate_limited') return true;
  if (error.kind !== 'unavailable' || error.code === 'ServiceLoading') return false;
  return error.status === null || error.status >= 500 || error.code === EXTERNAL_ERROR;
}

/**
 * Whether the operator, not the user, has this to fix (the service down or slow, the key refused or
 * over its quota, answers that cannot be read); a service still loading its data says so itself.
 */
export function isOperatorFailure(error: LookupError): boolean {
  if (error.code === 'ServiceLoading') return false;
  return ['unauthorized', 'rate_limited', 'timeout', 'unavailable', 'invalid_response'].includes(error.kind);
}

/** Whether a cached answer that has expired is still worth showing instead of this error. */
export function allowsStale(error: LookupError): boolean {
  return error.kind === 'unavailable' || error.kind === 'rate_limited' || error.kind === 'timeout';
}

export function lookupError(kind: LookupErrorKind, message: string, extra: Partial<Omit<LookupError, 'kind' | 'message'>> = {}): LookupError {
  return {
    kind,
    message,
    code: extra.code ?? null,
    status: extra.status ?? null,
    data: extra.data ?? {},
    ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}),
  };
}

/** `Retry-After` as milliseconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The codes a player's hidden stats come with (the second one on segments). */
export const PRIVATE_CODES: readonly string[] = ['CollectorResultStatus::Private', 'StandardApiV2::Private'];
const EXTERNAL_ERROR = 'CollectorResultStatus::ExternalError';
/** Our service's code for a path it has no endpoint at (src/service/errors.ts `routeNotFound`). */
const ROUTE_NOT_FOUND = 'NotFound';

/**
 * The status each known code comes with (docs: response-shapes.md), for an `errors` list sent with
 * HTTP 200; an unknown code is a failure of the service's.
 */
/** Our code for a refusal by what stands in front of the service (see `refusedByFront`). */
export const REQUESTS_REFUSED = 'RequestsRefused';

const CODE_STATUS: Readonly<Record<string, number>> = {
  'CollectorResultStatus::NotFound': 404,
  MatchNotFound: 404,
  [ROUTE_NOT_FOUND]: 404,
  'CollectorResultStatus::Private': 451,
  'StandardApiV2::Private': 451,
  [EXTERNAL_ERROR]: 502,
  InvalidParameter: 400,
  Unauthorized: 401,
  MethodNotAllowed: 405,
  RateLimited: 429,
  RequestTimeout: 408,
  Internal: 500,
  ServiceLoading: 503,
};
export const statusOfCode = (code: string | null): number => (code !== null ? CODE_STATUS[code] : undefined) ?? 500;

/** A 404 that names no player: no `errors` list (a gateway's or a web server's page), or our service's route miss. */
const noEndpoint = (status: number, code: string | null, envelope: boolean) => status === 404 && (!envelope || code === ROUTE_NOT_FOUND);

/**
 * A 403 that is neither the service's envelope nor its gateway's `{ message }`: a CDN or a firewall in
 * front of the API refusing this client (an HTML page, Cloudflare's error 1020), not the API key.
 */
const refusedByFront = (status: number, envelope: boolean, gateway: boolean) => status === 403 && !envelope && !gateway;

function kindOf(status: number, code: string | null, envelope: boolean, gateway: boolean): LookupErrorKind {
  // 451: the real service's status for a private profile, with or without an errors list.
  if ((code !== null && PRIVATE_CODES.includes(code)) || status === 451) return 'private';
  if (code === EXTERNAL_ERROR) return 'unavailable';
  if (refusedByFront(status, envelope, gateway)) return 'unavailable';
  // A 401, or a 403 without a private code from the gateway in front: the key is refused, not the player.
  if (status === 401 || status === 403) return 'unauthorized';
  // The base URL or the route is wrong: the operator's to fix, and no reason to remember the player as missing.
  if (noEndpoint(status, code, envelope)) return 'unavailable';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 408) return 'timeout';
  if (status === 400 || status === 422 || code === 'InvalidParameter') return 'invalid_parameter';
  // A redirect (undici does not follow one) or a status the interface does not use: the address is wrong.
  return 'unavailable';
}

const GENERIC: Record<LookupErrorKind, string> = {
  not_found: 'No such player or match.',
  private: 'This player keeps their stats private.',
  invalid_parameter: 'The stats service refused the request.',
  rate_limited: 'The stats service is busy.',
  unauthorized: 'The stats service refused the API key.',
  timeout: 'The stats service did not answer in time.',
  unavailable: 'The stats service is unavailable.',
  invalid_response: 'The stats service sent an answer that could not be read.',
};

/**
 * Reads a non-2xx answer: the `{ errors: [...] }` envelope of the service, or the `{ message }` a
 * gateway in front of it sends, or anything else (an HTML error page) by its status alone. An
 * `errors` list that came with HTTP 200 is read with the status its code implies (statusOfCode).
 */
export function errorFromResponse(status: number, bodyText: string, retryAfterMs: number | undefined, location?: string): LookupError {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const extra = { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const envelope = ErrorBodySchema.safeParse(json);
  const gateway = GatewayErrorBodySchema.safeParse(json);
  const first = envelope.success ? envelope.data.errors[0] : undefined;
  const code = first?.code ?? null;
  const kind = kindOf(status, code, envelope.success, gateway.success);
  const data = { ...(first?.data ?? {}), ...(location !== undefined && status >= 300 && status < 400 ? { location: location.slice(0, 200) } : {}) };
  if (noEndpoint(status, code, envelope.success)) {
    const said = first?.message || (gateway.success ? gateway.data.message : '');
    return lookupError(kind, `No endpoint answered at that address (HTTP 404${said ? `: ${said}` : ''}); check the stats service's base URL.`, {
      ...extra,
      code,
      data,
    });
  }
  // undici follows no redirect: the base URL has moved (http to https, a new host).
  if (status >= 300 && status < 400 && !envelope.success)
    return lookupError(
      kind,
      `The stats service answered with a redirect (HTTP ${status}${location ? ` to ${location.slice(0, 200)}` : ''}); check its base URL.`,
      { ...extra, data },
    );
  if (refusedByFront(status, envelope.success, gateway.success))
    return lookupError(
      kind,
      'The stats service refused this bot’s requests (HTTP 403 from something in front of it, such as a CDN or a firewall, not about the API key): the bot’s address or client may be blocked there.',
      { ...extra, code: REQUESTS_REFUSED, data },
    );
  if (envelope.success) return lookupError(kind, first?.message || GENERIC[kind], { ...extra, code, data });
  return lookupError(kind, gateway.success ? gateway.data.message : `${GENERIC[kind]} (HTTP ${status})`, { ...extra, data });
}
