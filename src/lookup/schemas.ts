// One zod schema per payload of the interface. The service validates what it writes with these in
// its tests, and the lookup client validates what it reads: one schema, both sides.
import { z } from 'zod';

import { DISPLAY_TYPES, PLATFORM_SLUGS } from '../catalog/index.js';

const isoDate = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'an ISO date');

export const StatSchema = z.object({
  rank: z.number().int().nullable(),
  percentile: z.number().nullable(),
  displayName: z.string(),
  displayCategory: z.string(),
  category: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  value: z.number().nullable(),
  displayValue: z.string(),
  displayType: z.enum(DISPLAY_TYPES).or(z.string()),
});
export type Stat = z.infer<typeof StatSchema>;

export const StatsSchema = z.record(z.string(), StatSchema);
export type Stats = z.infer<typeof StatsSchema>;

export const SegmentSchema = z.object({
  type: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  metadata: z.looseObject({ name: z.string() }),
  expiryDate: isoDate,
  stats: StatsSchema,
});
export type Segment = z.infer<typeof SegmentSchema>;

export const SegmentListSchema = z.array(SegmentSchema);

export const PlatformInfoSchema = z.object({
  platformSlug: z.string(),
  platformUserId: z.string().nullable(),
  platformUserHandle: z.string(),
  platformUserIdentifier: z.string(),
  avatarUrl: z.string().nullable(),
  additionalParameters: z.record(z.string(), z.unknown()).nullable(),
});

export const UserInfoSchema = z.object({
  userId: z.union([z.string(), z.number()]).nullable(),
  isPremium: z.boolean(),
  isVerified: z.boolean(),
  isInfluencer: z.boolean(),
  isPartner: z.boolean(),
  countryCode: z.string().nullable(),
  customAvatarUrl: z.string().nullable(),
  customHeroUrl: z.string().nullable(),
  socialAccounts: z.array(z.unknown()),
  pageviews: z.number().nullable(),
  isSuspicious: z.boolean().nullable(),
});

export const AvailableSegmentSchema = z.object({
  type: z.string(),
  attributes: z.record(z.string(), z.unknown()),
  metadata: z.looseObject({ name: z.string() }),
});
export type AvailableSegment = z.infer<typeof AvailableSegmentSchema>;

export const StatsProfileSchema = z.object({
  platformInfo: PlatformInfoSchema,
  userInfo: UserInfoSchema,
  metadata: z.record(z.string(), z.unknown()),
  segments: z.array(SegmentSchema).min(1),
  availableSegments: z.array(AvailableSegmentSchema),
  expiryDate: isoDate,
});
export type StatsProfile = z.infer<typeof StatsProfileSchema>;

export const SearchResultSchema = z.object({
  platformId: z.number().int(),
  platformSlug: z.string(),
  platformUserIdentifier: z.string(),
  platformUserId: z.string().nullable(),
  platformUserHandle: z.string(),
  avatarUrl: z.string().nullable(),
  status: z.string().nullable(),
  additionalParameters: z.record(z.string(), z.unknown()).nullable(),
});
export type SearchResult = z.infer<typeof SearchResultSchema>;
export const SearchResultListSchema = z.array(SearchResultSchema);

const valueOf = <T extends z.ZodType>(t: T) => z.object({ value: t });

export const SessionMatchSchema = z.object({
  attributes: z.object({ id: z.string() }),
  metadata: z.looseObject({
    startDate: valueOf(isoDate),
    endDate: valueOf(isoDate),
    duration: valueOf(z.string()),
    character: z.object({ displayValue: z.string().nullable() }),
    result: z.string().nullable(),
  }),
  stats: StatsSchema,
});
export type SessionMatch = z.infer<typeof SessionMatchSchema>;

export const SessionSchema = z.object({
  attributes: z.object({ id: z.string() }),
  metadata: z.looseObject({
    startDate: valueOf(isoDate),
    endDate: valueOf(isoDate),
    duration: valueOf(z.string().regex(/^\d{2,}:\d{2}:\d{2}$/)),
    isActive: z.boolean(),
  }),
  stats: StatsSchema,
  matches: z.array(SessionMatchSchema).min(1),
});
export type Session = z.infer<typeof SessionSchema>;

export const SessionListSchema = z.object({
  items: z.array(SessionSchema),
  expiryDate: isoDate,
});
export type SessionList = z.infer<typeof SessionListSchema>;

export const MatchSummarySchema = z.object({
  attributes: z.object({ id: z.string() }),
  metadata: z.looseObject({
    timestamp: isoDate,
    mapName: z.string().nullable(),
    modeName: z.string().nullable(),
    playlistName: z.string().nullable(),
    queue: z.string().nullable(),
    season: z.number().int().nullable(),
    result: z.string().nullable(),
    duration: z.number(),
  }),
  segments: z.array(z.object({ type: z.literal('overview'), stats: StatsSchema })).min(1),
});
export type MatchSummary = z.infer<typeof MatchSummarySchema>;

export const MatchResultSchema = z.object({
  matches: z.array(MatchSummarySchema),
  metadata: z.object({ next: z.string().nullable() }),
});
export type MatchResult = z.infer<typeof MatchResultSchema>;

const displayValueOf = z.object({ displayValue: z.string().nullable() });

export const MatchChildSchema = z.object({
  type: z.enum(['team', 'player']),
  attributes: z.record(z.string(), z.unknown()),
  metadata: z.looseObject({ name: z.string(), isWinner: z.boolean(), result: z.string().nullable() }),
  stats: StatsSchema,
});
export type MatchChild = z.infer<typeof MatchChildSchema>;

export const StatisticalObjectSchema = z.object({
  attributes: z.object({ id: z.string() }),
  metadata: z.looseObject({
    timestamp: isoDate,
    duration: z.number(),
    map: displayValueOf,
    mode: displayValueOf,
    playlist: displayValueOf,
    queue: z.string().nullable(),
    season: z.number().int().nullable(),
  }),
  children: z.array(MatchChildSchema),
});
export type StatisticalObject = z.infer<typeof StatisticalObjectSchema>;

export const ApiErrorSchema = z.object({
  code: z.string().nullable(),
  message: z.string(),
  data: z.record(z.string(), z.unknown()),
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

export const PlatformSlugSchema = z.enum(PLATFORM_SLUGS);
