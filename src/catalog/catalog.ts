// The interface of the stats lookup service as data. The service's routes, the client's URLs and the
// bot's options and autocomplete are all derived from this table: nothing else spells a path, a
// platform list or a segment type.

export const PLATFORM_SLUGS = ['pc_store_a', 'pc_store_b', 'pc_store_c', 'console_a', 'console_b'] as const;
export type PlatformSlug = (typeof PLATFORM_SLUGS)[number];

export interface PlatformInfo {
  readonly slug: PlatformSlug;
  /** Numeric id the search results carry as `platformId`. */
  readonly platformId: number;
  readonly name: string;
  /** What a player's identifier looks like on this platform, for help texts. */
  readonly identifier: string;
  readonly example: string;
  /**
   * Besides the identifier itself, a player may be named by a vanity name or the store's community
   * profile URL (`.../profiles/<id>`, `.../id/<vanity>`).
   */
  readonly acceptsVanity: boolean;
  /** The handle is the identifier (`Name#1234`), rather than a display name beside an id. */
  readonly handleIsIdentifier: boolean;
}

export const PLATFORMS: Readonly<Record<PlatformSlug, PlatformInfo>> = {
  pc_store_a: {
    slug: 'pc_store_a',
    platformId: 3,
    name: 'PC Store A',
    identifier: '64-bit account id, community profile URL or vanity name',
    example: '76561198000000001',
    acceptsVanity: true,
    handleIsIdentifier: false,
  },
  pc_store_b: {
    slug: 'pc_store_b',
    platformId: 5,
    name: 'PC Store B',
    identifier: 'PC store id',
    example: 'Wraithling',
    acceptsVanity: false,
    handleIsIdentifier: false,
  },
  pc_store_c: {
    slug: 'pc_store_c',
    platformId: 6,
    name: 'PC Store C',
    identifier: 'handle including the # part',
    example: 'Nova#2231',
    acceptsVanity: false,
    handleIsIdentifier: true,
  },
  console_a: {
    slug: 'console_a',
    platformId: 1,
    name: 'Console A',
    identifier: 'gamertag',
    example: 'Nova',
    acceptsVanity: false,
    handleIsIdentifier: false,
  },
  console_b: {
    slug: 'console_b',
    platformId: 2,
    name: 'Console B',
    identifier: 'console network id',
    example: 'nova_psn',
    acceptsVanity: false,
    handleIsIdentifier: false,
  },
};

export const TITLE_SLUGS = ['title_a', 'title_b', 'title_c', 'title_d'] as const;
export type TitleSlug = (typeof TITLE_SLUGS)[number];

export const ENDPOINT_KINDS = ['profile', 'matches', 'match', 'segments', 'search', 'sessions'] as const;
export type EndpointKind = (typeof ENDPOINT_KINDS)[number];

/** The dimension of a match record a segment type groups by. */
export type SegmentDimension = 'overview' | 'map' | 'mode' | 'playlist' | 'weapon' | 'legend' | 'hero';

export interface SegmentTypeInfo {
  readonly type: string;
  readonly name: string;
  readonly groupBy: SegmentDimension;
}

export const QUEUES = ['ranked', 'social'] as const;
export type Queue = (typeof QUEUES)[number];

export interface QueryOption {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /** Allowed values; `undefined` when any value of `kind` is allowed. */
  readonly values?: readonly string[];
  readonly kind: 'string' | 'integer' | 'platform' | 'cursor';
}

export interface Endpoint {
  readonly title: TitleSlug;
  readonly kind: EndpointKind;
  /** Path template relative to the base URL; `{name}` marks a path parameter. */
  readonly path: string;
  readonly platforms: readonly PlatformSlug[];
  readonly query: readonly QueryOption[];
  readonly payload: 'StatsProfile' | 'MatchResult' | 'StatisticalObject' | 'Segment[]' | 'CollectorSearchResult[]' | 'SessionList';
  readonly description: string;
}

export interface TitleInfo {
  readonly slug: TitleSlug;
  readonly name: string;
  readonly segmentTypes: readonly SegmentTypeInfo[];
  /** Segment types that refuse the `season` filter (data exists for lifetime only). */
  readonly lifetimeOnlySegmentTypes: readonly string[];
}

const seg = (type: string, name: string, groupBy: SegmentDimension): SegmentTypeInfo => ({ type, name, groupBy });

export const TITLES: Readonly<Record<TitleSlug, TitleInfo>> = {
  title_a: {
    slug: 'title_a',
    name: 'Title A',
    segmentTypes: [
      seg('overview', 'Overview', 'overview'),
      seg('playlist', 'Playlists', 'playlist'),
      seg('gamemode', 'Game modes', 'mode'),
      seg('map', 'Maps', 'map'),
      seg('weapon', 'Weapons', 'weapon'),
    ],
    lifetimeOnlySegmentTypes: ['weapon'],
  },
  title_b: {
    slug: 'title_b',
    name: 'Title B',
    segmentTypes: [seg('legend', 'Legends', 'legend')],
    lifetimeOnlySegmentTypes: [],
  },
  title_c: {
    slug: 'title_c',
    name: 'Title C',
    segmentTypes: [seg('hero', 'Heroes', 'hero')],
    lifetimeOnlySegmentTypes: [],
  },
  title_d: {
    slug: 'title_d',
    name: 'Title D',
    segmentTypes: [seg('map', 'Maps', 'map'), seg('weapon', 'Weapons', 'weapon')],
    lifetimeOnlySegmentTypes: [],
  },
};

const PROFILE = '/v2/{title}/standard/profile/{platform}/{platformUserIdentifier}';

const searchQuery = (platforms: readonly PlatformSlug[]): QueryOption[] => [
  { name: 'platform', description: 'Platform to search on', required: true, values: platforms, kind: 'platform' },
  { name: 'query', description: 'Identifier or handle (prefix) to look for', required: true, kind: 'string' },
];

function endpoints(title: TitleSlug, spec: Record<string, readonly PlatformSlug[]>): Endpoint[] {
  const base = PROFILE.replace('{title}', title);
  const list: Endpoint[] = [];
  for (const [kind, platforms] of Object.entries(spec)) {
    switch (kind as EndpointKind) {
      case 'profile':
        list.push({ title, kind: 'profile', path: base, platforms, query: [], payload: 'StatsProfile', description: 'Career stats' });
        break;
      case 'segments':
        list.push({
          title,
          kind: 'segments',
          path: `${base}/segments/{segmentType}`,
          platforms,
          query:
            title === 'title_a'
              ? [
                  { name: 'queue', description: 'Queue filter (empty for all)', required: false, values: QUEUES, kind: 'string' },
                  { name: 'season', description: 'Season number (empty for lifetime)', required: false, kind: 'integer' },
                ]
              : [],
          payload: 'Segment[]',
          description: 'Stats per segment',
        });
        break;
      case 'search':
        list.push({
          title,
          kind: 'search',
          path: `/v2/${title}/standard/search`,
          platforms,
          query: searchQuery(platforms),
          payload: 'CollectorSearchResult[]',
          description: 'Find players',
        });
        break;
      case 'matches':
        list.push({
          title,
          kind: 'matches',
          path: `/v2/${title}/standard/matches/{platform}/{platformUserIdentifier}`,
          platforms,
          query: [{ name: 'next', description: 'Cursor of the next page', required: false, kind: 'cursor' }],
          payload: 'MatchResult',
          description: 'Recent matches',
        });
        break;
      case 'match':
        list.push({
          title,
          kind: 'match',
          path: `/v1/${title}/matches/{platform}/direct/{matchId}`,
          platforms,
          query: [],
          payload: 'StatisticalObject',
          description: 'Match report',
        });
        break;
      case 'sessions':
        list.push({
          title,
          kind: 'sessions',
          path: `${base}/sessions`,
          platforms,
          query: [],
          payload: 'SessionList',
          description: 'Play sessions',
        });
        break;
    }
  }
  return list;
}

const A: readonly PlatformSlug[] = ['pc_store_a', 'console_a', 'console_b'];
const B: readonly PlatformSlug[] = ['pc_store_b', 'console_a', 'console_b'];
const B_SEGMENTS: readonly PlatformSlug[] = ['pc_store_c', 'console_b', 'console_a'];
const C: readonly PlatformSlug[] = ['pc_store_c', 'console_b', 'console_a'];
const D: readonly PlatformSlug[] = ['pc_store_a'];

/** Every endpoint of the interface: 15 in all. */
export const ENDPOINTS: readonly Endpoint[] = [
  ...endpoints('title_a', { profile: A, matches: A, match: A, segments: A, search: A }),
  ...endpoints('title_b', { profile: B, segments: B_SEGMENTS, search: B, sessions: B }),
  ...endpoints('title_c', { profile: C, segments: C, search: C }),
  ...endpoints('title_d', { profile: D, segments: D, search: D }),
];

export function isTitle(value: string): value is TitleSlug {
  return (TITLE_SLUGS as readonly string[]).includes(value);
}

export function isPlatform(value: string): value is PlatformSlug {
  return (PLATFORM_SLUGS as readonly string[]).includes(value);
}

/** The endpoint of a title, or undefined when the title does not have it (title_c has no matches). */
export function findEndpoint(title: TitleSlug, kind: EndpointKind): Endpoint | undefined {
  return ENDPOINTS.find((e) => e.title === title && e.kind === kind);
}

export function endpointsOf(title: TitleSlug): Endpoint[] {
  return ENDPOINTS.filter((e) => e.title === title);
}

/** Each title's platforms, derived once from its endpoints: an import asks for them on every line. */
const TITLE_PLATFORMS = new Map(
  TITLE_SLUGS.map((title) => {
    const set = new Set<PlatformSlug>();
    for (const e of endpointsOf(title)) for (const p of e.platforms) set.add(p);
    return [title, PLATFORM_SLUGS.filter((p) => set.has(p))];
  }),
);

/** Every platform a title knows on any of its endpoints (title_b: four). */
export function platformsOfTitle(title: TitleSlug): readonly PlatformSlug[] {
  return TITLE_PLATFORMS.get(title) ?? [];
}

export function segmentType(title: TitleSlug, type: string): SegmentTypeInfo | undefined {
  return TITLES[title].segmentTypes.find((s) => s.type === type);
}

/** Path parameter names of a template, in order. */
export function pathParams(template: string): string[] {
  return [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
}

/**
 * Builds a concrete path from a template. Every parameter is percent-encoded as one path segment,
 * so `#`, `/`, `?` and `%` in an identifier arrive intact.
 */
export function buildPath(template: string, params: Readonly<Record<string, string>>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`missing path parameter ${name}`);
    return encodeURIComponent(value);
  });
}
