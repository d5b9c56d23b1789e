// Stats as answers carry them, made by hand for the tests of replies.
import type { Stat, Stats } from '../../src/lookup/schemas.js';

/** A stat of `value`, its metadata (a tier) as given. */
export const stat = (value: number, metadata: Record<string, unknown> = {}): Stat => ({
  rank: null,
  percentile: null,
  displayName: '',
  displayCategory: null,
  category: null,
  metadata,
  value,
  displayValue: String(value),
  displayType: 'Number',
});

/** A stats map of plain values. */
export const stats = (values: Record<string, number>): Stats => Object.fromEntries(Object.entries(values).map(([k, v]) => [k, stat(v)]));

/** No-break spaces (which hold a figure to its label on a phone) read as spaces. */
export const plain = (lines: readonly string[] | null | undefined) => lines?.map((l) => l.replace(/\u00a0/g, ' '));
