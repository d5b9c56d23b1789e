// Errors the service answers with: a status and one entry of the `errors` envelope. Thrown inside
// the service's handlers and turned into a response at the server's single boundary.
import { clip } from '../catalog/index.js';
import type { ApiError } from '../lookup/schemas.js';

export const ERROR_CODES = {
  notFound: 'CollectorResultStatus::NotFound',
  private: 'CollectorResultStatus::Private',
  /** What the segments endpoint of the real service says for a private player. */
  segmentsPrivate: 'StandardApiV2::Private',
  invalidParameter: 'InvalidParameter',
  matchNotFound: 'MatchNotFound',
  routeNotFound: 'NotFound',
  rateLimited: 'RateLimited',
  unauthorized: 'Unauthorized',
  methodNotAllowed: 'MethodNotAllowed',
  internal: 'Internal',
  /** 408: the request's headers or body did not arrive within the server's limits. */
  requestTimeout: 'RequestTimeout',
  /** 503: the store behind the service did not answer (the real service's word for a source behind it failing). */
  externalError: 'CollectorResultStatus::ExternalError',
  /** 503 from the embedded service while its store is still being loaded. */
  loading: 'ServiceLoading',
} as const;

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly data: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  toApiError(): ApiError {
    return { code: this.code, message: this.message, data: this.data };
  }
}

/** Characters of a value given that an error quotes back (a request may carry kilobytes of it). */
const VALUE_SHOWN = 100;

/** A value given, quoted in an error's message: at most VALUE_SHOWN characters, never half an emoji. */
export const quotedValue = (value: string): string => `"${clip(value, VALUE_SHOWN)}"`;

/** 400 naming the parameter, what was given and, when there is a list, the allowed values. */
export function invalidParameter(parameter: string, message: string, allowed?: readonly (string | number)[], value?: string): ServiceError {
  const data: Record<string, unknown> = { parameter };
  // Cut between characters, not between the two halves of one (a lone half is no text a strict JSON reader takes).
  if (value !== undefined) data.value = clip(value, VALUE_SHOWN);
  if (allowed) data.allowed = allowed;
  const list = allowed ? ` Allowed values: ${allowed.map(String).join(', ')}.` : '';
  return new ServiceError(400, ERROR_CODES.invalidParameter, `Invalid ${parameter}: ${message}.${list}`, data);
}
