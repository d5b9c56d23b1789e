// The service's answers are read with the same schemas as the client's, and held to more: where the
// client lets a field of an unexpected shape fall back to its empty value, the service may not.
import { expect } from 'vitest';
import type { z } from 'zod';

import { readPayload } from '../../src/lookup/schemas.js';

/** Parses `input` with `schema`, failing on any field that had to fall back. */
export function strictly<T>(schema: z.ZodType<T>, input: unknown): T {
  const result = readPayload(schema, input);
  if (!result.success) throw result.error;
  expect(result.degraded, 'fields that had to fall back').toEqual([]);
  return result.data;
}
