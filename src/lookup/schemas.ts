// One zod schema per payload of the interface. The service validates what it writes with these in
// its tests, and the lookup client validates what it reads: one schema, both sides.
//
// Liberal in what they accept: real answers differ by title, year and endpoint, so a schema
// requires only what a reply cannot be shown without (a profile's handle, a match's id, ...); a
// profile with no stats yet is shown as such ("No stats on record yet."). Every other field may be
// missing, `null`, `{}` or carry more: unknown fields are kept, and a field of an unexpected shape
// falls back to its empty value. Each such fallback is noted (`readPayload` returns them, the client
// logs them at debug; the service's tests require none), so that a shape we did not expect is seen
// without costing the user the answer.
import { z } from 'zod';

import { formatStatValue, inUtc, isDisplayType, lacksOffset, parseAnswerDate, parseTimeSpan, readableStatName } from '../catalog/index.js';

/** A field that fell back to its empty value because it had a shape the schema did not expect. */
export interface Degradation {
  field: string;
  issue: string;
}

// The degradations of the parse running now. zod parses synchronously, so one slot is enough.
let noted: Degradation[] | undefined;

function note(field: string, issue: string): void {
  noted?.push({ field, issue });
}

/** `schema`, or `fallback` when the value is missing or of another shape (noted unless missing or null). */
function lax<T extends z.ZodType>(field: string, schema: T, fallback: z.output<T>) {
  return schema.catch((ctx) => {
    if (ctx.input !== undefined && ctx.input !== null) note(field, ctx.error.issues[0]?.message ?? 'unexpected shape');
    return fallback;
  });
}

/** A list whose entries are read one by one: an entry that cannot be read is dropped and noted. */
function laxList<T extends z.ZodType>(field: string, entry: T, plain?: (item: unknown) => z.output<T> | undefined) {
  return z.array(z.unknown()).transform((items) => {
    const read: z.output<T>[] = [];
    items.forEach((item, i) => {
      // An entry in its plain form is read by hand (see plainSessionMatch); the schema decides the rest.
      const quick = plain?.(item);
      if (quick !== undefined) return void read.push(quick);
      const parsed = entry.safeParse(item);
      if (parsed.success) read.push(parsed.data);
      else note(`${field}.${i}`, parsed.error.issues[0]?.message ?? 'unreadable entry');
    });
    return read;
  });
}

/**
 * A list an answer is about (search results, a segment list, a profile's segments, sessions,
 * matches): missing or `null` reads as an empty one, as a real answer may say "none"; anything
 * else that is not a list (`"unavailable"`, `{ message }`) is no answer of this kind, not one of
 * none, which would be shown and cached as "no matches".
 */
const listOrNone = <T extends z.ZodType>(field: string, entry: T) =>
  laxList(field, entry)
    .nullish()
    .transform((list): z.output<T>[] => list ?? []);

/** Same as `laxList`, but a missing or non-list value reads as an empty list. */
const optionalList = <T extends z.ZodType>(field: string, entry: T, plain?: (item: unknown) => z.output<T> | undefined) =>
  lax(field, laxList(field, entry, plain), []);

// Dates without an offset are read as UTC (parseAnswerDate), whatever the process's time zone.
const parseDate = parseAnswerDate;

/** A text parseDate reads: what isoDate takes. */
const isDate = (v: unknown): v is string => typeof v === 'string' && !Number.isNaN(parseDate(v));
/** What a session match read by hand takes as a date: one isoDate keeps as it is. */
const isPlainDate = (v: unknown): v is string => isDate(v) && !lacksOffset(v);
/** A date text, given an offset when it has none, so that whoever parses it later reads UTC too. */
const isoDate = z.string().refine(isDate, 'an ISO date').transform(inUtc);
const text = (field: string) => lax(field, z.string().nullable(), null);
// Some services send numbers as text ("1234", "12.5"); text that is not a plain number still falls back.
const numberText = z
  .string()
  .regex(/^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/)
  .transform(Number)
  .pipe(z.number());
const timeSpanText = z.string().transform(parseTimeSpan).pipe(z.number());
const num = (field: string) => lax(field, z.union([z.number(), numberText]).nullable(), null);
const record = (field: string) => lax(field, z.record(z.string(), z.unknown()), {});

/** `expiryDate` of `0001-01-01T00:00:00+00:00`: the service knows no expiry. */
export const NO_EXPIRY_BEFORE = Date.UTC(2000, 0, 1);
/** A usable expiry, or null for a missing one, an unreadable one, or the "none known" sentinel. */
export function expiryOf(value: string | null | undefined): number | null {
  if (typeof value !== 'string') return null;
  const t = parseDate(value);
  return Number.isNaN(t) || t < NO_EXPIRY_BEFORE ? null : t;
}
const expiryDate = lax('expiryDate', isoDate.nullable(), null);

/** A link that may go into an embed: http(s), no spaces or control characters. Anything else reads as null. */
const url = (field: string) =>
  lax(
    field,
    z
      .string()
      .nullable()
      .transform((s) => {
        if (s === null || s === '') return null;
        // No whitespace (which covers controls Discord refuses), and a URL that parses.
        if (/^https?:\/\/\S+$/i.test(s) && !/\p{Cc}/u.test(s) && URL.canParse(s)) return s;
        note(field, 'not an http(s) URL');
        return null;
      }),
    null,
  );

// ---------------------------------------------------------------------------------------------
// Stats

export const StatInput = z.looseObject({
  rank: num('stat.rank'),
  percentile: num('stat.percentile'),
  displayName: text('stat.displayName'),
  displayCategory: text('stat.displayCategory'),
  category: text('stat.category'),
  metadata: record('stat.metadata'),
  value: num('stat.value'),
  displayValue: text('stat.displayValue'),
  displayType: text('stat.displayType'),
});

export interface Stat {
  rank: number | null;
  percentile: number | null;
  displayName: string;
  displayCategory: string | null;
  category: string | null;
  /** Extras, e.g. a ranked rating's tier: `{ rankName, iconUrl }`. */
  metadata: Record<string, unknown>;
  value: number | null;
  /** What a reader sees; filled from `value` when the answer has none. */
  displayValue: string;
  displayType: string;
  [extra: string]: unknown;
}

type StatFields = z.output<typeof StatInput>;
const STAT_NUMBERS = ['rank', 'percentile', 'value'] as const;
const STAT_TEXTS = ['displayName', 'displayCategory', 'category', 'displayValue', 'displayType'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A stat read without zod when each of its known fields is missing, null or of its type (every
 * stat of a well-formed answer): what StatInput makes of it, at a fraction of the cost (a busy
 * player's sessions carry thousands of stats). It is filled in place (a missing field null, a
 * missing metadata `{}`), not copied: `raw` is what the caller parsed for this read, and a copy of
 * each of a busy player's thousands of stats was most of what reading their sessions left to the
 * garbage collector. Anything else is undefined and untouched, and StatInput reads it and notes
 * what fell back.
 */
export function plainStat(raw: unknown): StatFields | undefined {
  if (!isRecord(raw)) return undefined;
  for (const k of STAT_NUMBERS) {
    const v = raw[k];
    if (v !== undefined && v !== null && !(typeof v === 'number' && Number.isFinite(v))) return undefined;
  }
  for (const k of STAT_TEXTS) {
    const v = raw[k];
    if (v !== undefined && v !== null && typeof v !== 'string') return undefined;
  }
  const metadata = raw.metadata;
  if (metadata !== undefined && metadata !== null && !isRecord(metadata)) return undefined;
  for (const k of STAT_NUMBERS) raw[k] ??= null;
  for (const k of STAT_TEXTS) raw[k] ??= null;
  raw.metadata = metadata ?? {};
  return raw as StatFields;
}

/**
 * A stat needs a value or a display value to be shown; the rest is filled in: a name from its key
 * (`headshotPct` -> "Headshot Pct"), a display value from its value.
 */
function readStat(key: string, raw: unknown): Stat | undefined {
  let s = plainStat(raw);
  if (!s) {
    const parsed = StatInput.safeParse(raw);
    if (!parsed.success) return undefined;
    s = parsed.data;
    // A value of text that is no number (a TimeSpan such as `12.03:04:05`) is what the answer shows.
    const said = isRecord(raw) ? raw.value : undefined;
    if (s.value === null && !s.displayValue && typeof said === 'string' && said.trim() !== '') s.displayValue = said.trim();
  }
  if (s.value === null && (s.displayValue === null || s.displayValue === '')) return undefined;
  // Filled in place: `s` is the stat as parsed for this read (plainStat) or zod's copy of it (a copy
  // of a busy player's thousands of stats was most of what reading their sessions left to the
  // garbage collector).
  const displayType = s.displayType ?? 'Unspecified';
  const stat = s as Stat;
  stat.displayName = s.displayName ?? readableStatName(key);
  stat.displayValue = s.displayValue ?? formatStatValue(s.value, isDisplayType(displayType) ? displayType : 'Unspecified');
  stat.displayType = displayType;
  return stat;
}

/** Stats by key. A stat that cannot be shown is dropped and noted; a missing map is empty. */
export const StatsSchema = lax('stats', z.record(z.string(), z.unknown()).transform(readStats), {});

function readStats(input: Record<string, unknown>): Record<string, Stat> {
  const stats: Record<string, Stat> = {};
  for (const key of Object.keys(input)) {
    const stat = readStat(key, input[key]);
    if (stat) stats[key] = stat;
    else note(`stats.${key}`, 'neither a value nor a display value');
  }
  return stats;
}
export type Stats = Record<string, Stat>;

// ---------------------------------------------------------------------------------------------
// Segments

const SegmentMetadata = lax('segment.metadata', z.looseObject({ name: text('segment.metadata.name') }), { name: null });

export interface Segment {
  /** `overview`, or the segment type asked for (`map`, `legend`, ...). */
  type: string;
  /** What identifies it: `{}` for overview, `{ key }` or `{ id }` for the others, plus filters. */
  attributes: Record<string, unknown>;
  /** `name` is what a reader sees; legends and heroes may carry `imageUrl` and `isActive`. */
  metadata: { name: string; [extra: string]: unknown };
  expiryDate: string | null;
  stats: Stats;
  [extra: string]: unknown;
}

const nameFrom = (attributes: Record<string, unknown>, type: string): string => {
  const id = attributes.key ?? attributes.id;
  if (typeof id === 'string' && id !== '') return readableStatName(id.replace(/^(legend|hero)_/, ''));
  return type === 'overview' ? 'Lifetime' : readableStatName(type);
};

export const SegmentSchema: z.ZodType<Segment> = z
  .looseObject({
    type: lax('segment.type', z.string(), ''),
    attributes: record('segment.attributes'),
    metadata: SegmentMetadata,
    expiryDate,
    stats: StatsSchema,
  })
  .transform((s) => ({ ...s, metadata: { ...s.metadata, name: s.metadata.name ?? nameFrom(s.attributes, s.type) } }));

export const SegmentListSchema = listOrNone('segments', SegmentSchema);

// ---------------------------------------------------------------------------------------------
// Profile

export interface PlatformInfo {
  platformSlug: string | null;
  platformUserId: string | null;
  /**
   * The name to show: the handle, else the identifier; empty when the answer gives neither (the
   * client's `profile` then names the player as they were asked for, not by a bare user id).
   */
  platformUserHandle: string;
  platformUserIdentifier: string | null;
  avatarUrl: string | null;
  additionalParameters: unknown;
  [extra: string]: unknown;
}

/** An id or a cursor: some services send them as numbers. */
const idValue = z.union([z.string(), z.number().transform(String)]);
const id = (field: string) => lax(field, idValue.nullable(), null);
/** An id a payload cannot be shown without (a match's): text or a number, never empty. */
const requiredId = idValue.pipe(z.string().min(1));

const PlatformInfoSchema: z.ZodType<PlatformInfo> = z
  .looseObject({
    platformSlug: text('platformInfo.platformSlug'),
    platformUserId: id('platformInfo.platformUserId'),
    platformUserHandle: text('platformInfo.platformUserHandle'),
    platformUserIdentifier: id('platformInfo.platformUserIdentifier'),
    avatarUrl: url('platformInfo.avatarUrl'),
  })
  .transform((p) => {
    const handle = p.platformUserHandle || p.platformUserIdentifier || '';
    if (!handle) note('platformInfo.platformUserHandle', 'no handle or identifier');
    return { ...p, additionalParameters: p.additionalParameters ?? null, platformUserHandle: handle };
  });

const NO_PLATFORM_INFO: PlatformInfo = {
  platformSlug: null,
  platformUserId: null,
  platformUserHandle: '',
  platformUserIdentifier: null,
  avatarUrl: null,
  additionalParameters: null,
};

export const AvailableSegmentSchema = z.looseObject({
  type: z.string(),
  attributes: record('availableSegments.attributes'),
  metadata: record('availableSegments.metadata'),
});
export type AvailableSegment = z.infer<typeof AvailableSegmentSchema>;

/** The overview of a profile: the segment of type `overview`, else the first. */
export const overviewOf = (segments: readonly Segment[]): Segment | undefined => segments.find((s) => s.type === 'overview') ?? segments[0];

/**
 * A profile needs someone or stats: one without a name (no `platformInfo`, or one naming no one) is
 * shown under the name it was asked for; one without stats says so ("No stats on record yet.").
 * An answer with neither a name, a user id nor stats is not a profile.
 */
export const StatsProfileSchema = z
  .looseObject({
    platformInfo: lax('platformInfo', PlatformInfoSchema, NO_PLATFORM_INFO),
    userInfo: record('userInfo'),
    metadata: record('metadata'),
    segments: listOrNone('segments', SegmentSchema),
    availableSegments: optionalList('availableSegments', AvailableSegmentSchema),
    expiryDate,
  })
  .superRefine((p, ctx) => {
    if (p.platformInfo.platformUserHandle === '' && p.platformInfo.platformUserId === null && p.segments.length === 0) {
      ctx.addIssue({ code: 'custom', message: 'a profile needs a handle, an identifier, a user id or stats', path: ['platformInfo', 'platformUserHandle'] });
    }
  });
export type StatsProfile = z.infer<typeof StatsProfileSchema>;

// ---------------------------------------------------------------------------------------------
// Search

export const SearchResultSchema = z
  .looseObject({
    platformId: num('search.platformId'),
    platformSlug: text('search.platformSlug'),
    platformUserIdentifier: id('search.platformUserIdentifier'),
    platformUserId: id('search.platformUserId'),
    platformUserHandle: text('search.platformUserHandle'),
    avatarUrl: url('search.avatarUrl'),
    status: text('search.status'),
  })
  .transform((r, ctx) => {
    // What a result is opened by, and what it is called: each stands in for the other when missing.
    const identifier = r.platformUserIdentifier || r.platformUserHandle || r.platformUserId;
    if (!identifier) {
      ctx.addIssue({ code: 'custom', message: 'a search result needs an identifier or a handle' });
      return z.NEVER;
    }
    return {
      ...r,
      additionalParameters: r.additionalParameters ?? null,
      platformUserIdentifier: identifier,
      platformUserHandle: r.platformUserHandle || identifier,
    };
  });
export type SearchResult = z.infer<typeof SearchResultSchema>;
export const SearchResultListSchema = listOrNone('results', SearchResultSchema);

// ---------------------------------------------------------------------------------------------
// Sessions (title_b), in the real layout

/** `{ value, displayValue }`, the form session metadata comes in; a bare value is read as the value. */
export interface Valued<T> {
  value: T;
  displayValue: string | null;
  [extra: string]: unknown;
}

function valued<T extends z.ZodType>(field: string, inner: T) {
  const object = z.looseObject({ value: inner, displayValue: text(`${field}.displayValue`) });
  return lax(field, z.union([object, inner.transform((value) => ({ value, displayValue: null }))]).nullable(), null) as unknown as z.ZodType<Valued<
    z.output<T>
  > | null>;
}

const flag = z.union([z.boolean(), z.enum(['True', 'False', 'true', 'false']).transform((s) => s.toLowerCase() === 'true')]);

export const SessionMatchSchema = z
  .looseObject({
    id: id('match.id'),
    attributes: lax('match.attributes', z.record(z.string(), z.unknown()).optional(), undefined),
    metadata: lax(
      'match.metadata',
      z.looseObject({
        startDate: valued('match.startDate', isoDate),
        endDate: valued('match.endDate', isoDate),
        result: valued('match.result', z.string().nullable()),
        // Real answers can give the legend as a number (`5`) with its name in displayValue ("Bloodhound").
        character: valued('match.character', z.union([z.string(), z.number().transform(String)]).nullable()),
      }),
      { startDate: null, endDate: null, result: null, character: null },
    ),
    stats: StatsSchema,
  })
  // Older answers put the id in `attributes`.
  .transform((m) => {
    const older = m.attributes?.id;
    return { ...m, id: m.id ?? (typeof older === 'string' || typeof older === 'number' ? String(older) : null) };
  });
export type SessionMatch = z.infer<typeof SessionMatchSchema>;

const isTextOrNull = (v: unknown) => v === null || typeof v === 'string';
/** A `{ value, displayValue }` field that valued() reads as it is (or as null) without a note. */
const plainValued = (v: unknown, ok: (value: unknown) => boolean) =>
  v === undefined || v === null || (isRecord(v) && ok(v.value) && (v.displayValue === undefined || isTextOrNull(v.displayValue)));
const MATCH_FIELDS = [
  ['startDate', isPlainDate],
  ['endDate', isPlainDate],
  ['result', isTextOrNull],
  ['character', isTextOrNull],
] as const;

/**
 * A session's match read without zod when it is in its plain form (a string id, no `attributes`,
 * metadata fields as `{ value, displayValue }`, stats a map): what SessionMatchSchema makes of it,
 * filled in place like plainStat. A busy player's sessions list a thousand of them, and the schema's
 * copy of each (and of each of its fields) cost the bot's event loop more than parsing the answer
 * did. Anything else is undefined and untouched, for the schema to read and note.
 */
export function plainSessionMatch(raw: unknown): SessionMatch | undefined {
  if (!isRecord(raw)) return undefined;
  const { id, metadata, stats } = raw;
  if (typeof id !== 'string' || raw.attributes !== undefined || !isRecord(metadata) || !isRecord(stats)) return undefined;
  for (const [k, ok] of MATCH_FIELDS) if (!plainValued(metadata[k], ok)) return undefined;
  for (const [k] of MATCH_FIELDS) {
    const v = metadata[k] as Record<string, unknown> | null | undefined;
    if (!v) metadata[k] = null;
    else v.displayValue ??= null;
  }
  raw.stats = readStats(stats);
  return raw as SessionMatch;
}

export const SessionSchema = z.looseObject({
  metadata: lax(
    'session.metadata',
    z.looseObject({
      startDate: valued('session.startDate', isoDate),
      endDate: valued('session.endDate', isoDate),
      /** A .NET TimeSpan, `[d.]HH:MM:SS[.fffffff]`. */
      duration: valued('session.duration', z.string()),
      isActive: valued('session.isActive', flag),
    }),
    { startDate: null, endDate: null, duration: null, isActive: null },
  ),
  stats: StatsSchema,
  matches: optionalList('session.matches', SessionMatchSchema, plainSessionMatch),
});
export type Session = z.infer<typeof SessionSchema>;

export const SessionListSchema = z.looseObject({
  items: listOrNone('items', SessionSchema),
  expiryDate,
});
export type SessionList = z.infer<typeof SessionListSchema>;

// ---------------------------------------------------------------------------------------------
// Matches (title_a)

/** A name given as text or as `{ value, displayValue }`: its display value, else its value when that is text. */
const displayValueOf = (field: string) =>
  lax(
    field,
    z.union([
      z
        .looseObject({ displayValue: text(`${field}.displayValue`) })
        .transform((v) => ({ ...v, displayValue: v.displayValue ?? (typeof v.value === 'string' && v.value !== '' ? v.value : null) })),
      z.string().transform((displayValue) => ({ displayValue })),
    ]),
    { displayValue: null },
  );
/** A name to show, read as the report reads its map. */
const shownText = (field: string) => displayValueOf(field).transform((v) => v.displayValue);

/** When a match was played: an ISO date, or epoch milliseconds (a smaller number is not one: seconds, perhaps). */
const timestamp = (field: string) =>
  lax(
    field,
    z
      .union([
        isoDate,
        z
          .number()
          .min(NO_EXPIRY_BEFORE)
          .max(8.64e15)
          .transform((ms) => new Date(ms).toISOString()),
      ])
      .nullable(),
    null,
  );
/** Seconds a match lasted: a number, or a .NET TimeSpan (`00:25:00`) as the real service gives durations. */
const duration = (field: string) => lax(field, z.union([z.number(), numberText, timeSpanText]).nullable(), null);

export const MatchSummarySchema = z.looseObject({
  attributes: z.looseObject({ id: requiredId }),
  metadata: lax(
    'match.metadata',
    z.looseObject({
      timestamp: timestamp('match.timestamp'),
      mapName: shownText('match.mapName'),
      modeName: shownText('match.modeName'),
      playlistName: shownText('match.playlistName'),
      queue: shownText('match.queue'),
      season: num('match.season'),
      result: shownText('match.result'),
      duration: duration('match.duration'),
    }),
    { timestamp: null, mapName: null, modeName: null, playlistName: null, queue: null, season: null, result: null, duration: null },
  ),
  segments: optionalList('match.segments', z.looseObject({ type: lax('segment.type', z.string(), ''), stats: StatsSchema })),
});
export type MatchSummary = z.infer<typeof MatchSummarySchema>;

export const MatchResultSchema = z.looseObject({
  matches: listOrNone('matches', MatchSummarySchema),
  // An empty cursor is no next page: read as one, it would page the same answer forever.
  metadata: lax('metadata', z.looseObject({ next: id('metadata.next').transform((next) => next || null) }), { next: null }),
});
export type MatchResult = z.infer<typeof MatchResultSchema>;

export const MatchChildSchema = z.looseObject({
  type: z.string(),
  attributes: record('child.attributes'),
  metadata: lax(
    'child.metadata',
    z.looseObject({ name: lax('child.name', z.string(), ''), isWinner: lax('child.isWinner', flag.nullable(), null), result: text('child.result') }),
    { name: '', isWinner: null, result: null },
  ),
  stats: StatsSchema,
});
export type MatchChild = z.infer<typeof MatchChildSchema>;

export const StatisticalObjectSchema = z.looseObject({
  attributes: z.looseObject({ id: requiredId }),
  metadata: lax(
    'report.metadata',
    z.looseObject({
      timestamp: timestamp('report.timestamp'),
      duration: duration('report.duration'),
      map: displayValueOf('report.map'),
      mode: displayValueOf('report.mode'),
      playlist: displayValueOf('report.playlist'),
      queue: text('report.queue'),
      season: num('report.season'),
    }),
    { timestamp: null, duration: null, map: { displayValue: null }, mode: { displayValue: null }, playlist: { displayValue: null }, queue: null, season: null },
  ),
  children: optionalList('children', MatchChildSchema),
});
export type StatisticalObject = z.infer<typeof StatisticalObjectSchema>;

// ---------------------------------------------------------------------------------------------
// Errors and the envelope

/** One entry of `errors`; real answers often leave out `data`. */
export const ApiErrorSchema = z.object({
  code: text('error.code'),
  message: lax('error.message', z.string(), ''),
  data: record('error.data'),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

export const ErrorBodySchema = z.object({ errors: z.array(ApiErrorSchema).min(1) });
/** What a gateway in front of the real service answers: `{ "message": "API rate limit exceeded" }`. */
export const GatewayErrorBodySchema = z.object({ message: z.string() });

/** `{ data: T }` for a given payload schema. */
export const envelopeOf = <T extends z.ZodType>(payload: T) => z.object({ data: payload });

/** The payload schema of each payload type the catalog names. */
export const PAYLOAD_SCHEMAS = {
  StatsProfile: StatsProfileSchema,
  MatchResult: MatchResultSchema,
  StatisticalObject: StatisticalObjectSchema,
  'Segment[]': SegmentListSchema,
  'CollectorSearchResult[]': SearchResultListSchema,
  SessionList: SessionListSchema,
} as const;

export type PayloadResult<T> = { success: true; data: T; degraded: Degradation[] } | { success: false; error: z.ZodError; degraded: Degradation[] };

/** Parses with `schema` and says which fields fell back to their empty value on the way. */
export function readPayload<T>(schema: z.ZodType<T>, input: unknown): PayloadResult<T> {
  const outer = noted;
  noted = [];
  try {
    const parsed = schema.safeParse(input);
    return parsed.success ? { success: true, data: parsed.data, degraded: noted } : { success: false, error: parsed.error, degraded: noted };
  } finally {
    noted = outer;
  }
}
