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
 * Whether another attempt may succeed: 5xx, connection failures and 429, never other 4xx; nor a
 * service still loading its data after a start (it asks to come back later than a lookup waits).
 */
export function isRetryable(error: LookupError): boolean {
  return (error.kind === 'unavailable' && error.code !== 'ServiceLoading') || error.kind === 'rate_limited';
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
  return { kind, message, code: extra.code ?? null, status: extra.status ?? null, data: extra.data ?? {}, ...(extra.retryAfterMs !== undefined ? { retryAfterMs: extra.retryAfterMs } : {}) };
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

function kindOf(status: number, code: string | null): LookupErrorKind {
  // 451: the real service's status for a private profile, with or without an errors list.
  if ((code !== null && PRIVATE_CODES.includes(code)) || status === 451) return 'private';
  if (code === 'CollectorResultStatus::ExternalError') return 'unavailable';
  // A 403 without a private code comes from the gateway in front: the key is refused, not the player.
  if (status === 401 || status === 403) return 'unauthorized';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  if (status === 408) return 'timeout';
  return 'invalid_parameter';
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
 * gateway in front of it sends, or anything else (an HTML error page) by its status alone.
 */
export function errorFromResponse(status: number, bodyText: string, retryAfterMs: number | undefined): LookupError {
  let json: unknown;
  try {
    json = JSON.parse(bodyText);
  } catch {
    json = undefined;
  }
  const extra = { status, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  const envelope = ErrorBodySchema.safeParse(json);
  if (envelope.success) {
    const first = envelope.data.errors[0];
    const code = first?.code ?? null;
    return lookupError(kindOf(status, code), first?.message || GENERIC[kindOf(status, code)], { ...extra, code, data: first?.data ?? {} });
  }
  const gateway = GatewayErrorBodySchema.safeParse(json);
  const kind = kindOf(status, null);
  return lookupError(kind, gateway.success ? gateway.data.message : `${GENERIC[kind]} (HTTP ${status})`, extra);
}
