// What each endpoint answers, computed from the store. Transport-free: the server parses and checks
// the request, these functions build the payloads (or throw a ServiceError).
import { createHash } from 'node:crypto';

import { LRUCache } from 'lru-cache';

import {
  LADDERS,
  PLATFORMS,
  RATING_KEYS,
  TITLES,
  formatDuration,
  formatTimeSpan,
  segmentType,
  statInfo,
  type PlatformSlug,
  type TitleSlug,
} from '../catalog/index.js';
import type {
  AvailableSegment,
  MatchChild,
  MatchResult,
  MatchSummary,
  SearchResult,
  Segment,
  Session,
  SessionList,
  StatisticalObject,
  StatsProfile,
} from '../lookup/schemas.js';
import { addMatch, emptyTotals, groupRows, standingOfCounts, toStats, totalsToValues, withTiers, type MatchRow, type Totals } from './aggregate.js';
import { ERROR_CODES, ServiceError, invalidParameter, quotedValue } from './errors.js';
import { SLASH, identifierProblem, matchIdProblem, parseCommunityUrl } from './identifiers.js';
import { cutSessions, isActiveSession } from './sessions.js';
import type { MatchFilter, PlayerRow, PlayerSummary, Store } from './store-api.js';

/** How long a client may keep each payload (its `expiryDate`). */
export const EXPIRY_MS = { profile: 5 * 60_000, segments: 5 * 60_000, sessions: 60_000, sessionsIdle: 5 * 60_000 } as const;
export const MATCHES_PAGE_SIZE = 20;
export const SEARCH_LIMIT = 20;
/** Sessions answered: the newest ones. */
export const SESSIONS_LIMIT = 20;
/**
 * Matches a session lists at most, newest first; its stats and `matchCount` still cover all of them.
 * A player who never stops for 45 minutes has one session of every match they played, and listing
 * them all made an answer of tens of megabytes.
 */
export const SESSION_MATCHES_LIMIT = 50;

export interface LookupContext {
  store: Store;
  /** The clock: injectable so that tests can stand at a session boundary. */
  now: () => number;
}

const MEMO_LIMIT = 512;
/**
 * Heap the memo may hold, each part weighed as 1.5 times its JSON (as the bot's memory cache weighs
 * its answers). Counted by entries alone, 512 players' sessions (about 0.5 MB each for a player of
 * 20 sessions, 2.4 MB for a grinder's) outgrew the embedded service's heap and ended its thread.
 */
export const MEMO_MAX_BYTES = 16 * 2 ** 20;
/** What a part still being computed counts for: its size is known when it is done. */
const PENDING_BYTES = 1_024;

/**
 * Remembers computed payload parts until the next import: a player with 10,000 matches costs a few
 * milliseconds to aggregate once, then nothing. Concurrent requests for the same part share one
 * computation; a failed one is forgotten. At most `MEMO_LIMIT` parts and `maxBytes` of them, the
 * least recently used let go first; a part larger than all of it is not kept.
 */
export class Memo {
  private readonly entries: LRUCache<string, Promise<unknown>>;
  private generation = -1;

  constructor(readonly maxBytes = MEMO_MAX_BYTES) {
    this.entries = new LRUCache<string, Promise<unknown>>({ max: MEMO_LIMIT, maxSize: maxBytes, sizeCalculation: () => PENDING_BYTES });
  }

  /** Parts held now, and their weight. */
  get held(): { parts: number; bytes: number } {
    return { parts: this.entries.size, bytes: this.entries.calculatedSize };
  }

  get<T>(store: Store, key: string, compute: () => Promise<T>): Promise<T> {
    if (store.generation !== this.generation) {
      this.entries.clear();
      this.generation = store.generation;
    }
    const known = this.entries.get(key);
    if (known) return known as Promise<T>;
    const value = compute();
    this.entries.set(key, value);
    value.then(
      (done) => {
        // Weighed once done, and put back with its weight (lru-cache keeps the old weight of a value
        // set again as it is); not put back if it alone outweighs the memo.
        if (this.entries.peek(key) !== value) return;
        this.entries.delete(key);
        this.entries.set(key, value, { size: weigh(done) });
      },
      () => {
        if (this.entries.peek(key) === value) this.entries.delete(key);
      },
    );
    return value;
  }
}

const weigh = (part: unknown): number => Math.ceil(1.5 * (JSON.stringify(part)?.length ?? 0)) + PENDING_BYTES;

/** Reads an identifier the way the service does everywhere: checked, then looked up. */
export function checkIdentifier(platform: PlatformSlug, identifier: string, parameter = 'platformUserIdentifier'): void {
  if (PLATFORMS[platform].acceptsVanity && parseCommunityUrl(identifier)) return;
  const problem = identifierProblem(identifier);
  if (!problem) return;
  // An address is told as one, not as "contains a slash": what the service reads of it, or that it reads none here.
  const address = problem === SLASH && ADDRESS.test(identifier.trim());
  const told = !address
    ? `the identifier ${problem}`
    : PLATFORMS[platform].acceptsVanity
      ? 'the address is not a community profile address the service reads (.../profiles/<id> or .../id/<vanity name>, or a page of one)'
      : `the identifier is an address: players on ${PLATFORMS[platform].name} are looked up by name or id`;
  throw invalidParameter(parameter, told, undefined, identifier);
}

/** Text that starts like a web address: a scheme, or a host name followed by a path. */
const ADDRESS = /^(?:https?:\/\/|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\/)/i;

/**
 * Finds a player by identifier; where the platform accepts them (pc_store_a), also by community
 * profile URL or vanity name.
 * Throws 404 `CollectorResultStatus::NotFound`, or 451 with `privateCode` (as the real service does:
 * `CollectorResultStatus::Private`, on segments `StandardApiV2::Private`).
 */
export async function resolvePlayer(
  store: Store,
  title: TitleSlug,
  platform: PlatformSlug,
  identifier: string,
  privateCode: string = ERROR_CODES.private,
): Promise<PlayerRow> {
  checkIdentifier(platform, identifier);
  const player = await findPlayer(store, title, platform, identifier);
  if (!player)
    throw new ServiceError(404, ERROR_CODES.notFound, `No ${TITLES[title].name} player "${identifier}" on ${PLATFORMS[platform].name}.`, {
      title,
      platform,
      platformUserIdentifier: identifier,
    });
  if (player.private)
    throw new ServiceError(451, privateCode, `${player.handle} keeps their ${TITLES[title].name} stats private.`, {
      title,
      platform,
      platformUserIdentifier: player.id,
    });
  return player;
}

async function findPlayer(store: Store, title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<PlayerRow | undefined> {
  const byId = await store.playerById(title, platform, identifier);
  if (byId || !PLATFORMS[platform].acceptsVanity) return byId;
  const url = parseCommunityUrl(identifier);
  if (url) return 'id' in url ? store.playerById(title, platform, url.id) : store.playerByVanity(title, platform, url.vanity);
  return store.playerByVanity(title, platform, identifier);
}

const iso = (ms: number) => new Date(ms).toISOString();
const dated = (ms: number) => ({ value: iso(ms), displayValue: iso(ms) });
const flagged = (value: boolean) => ({ value, displayValue: value ? 'True' : 'False' });
const RESULT_NAMES: Record<string, string> = { win: 'Win', loss: 'Loss', draw: 'Draw' };

function platformInfo(p: PlayerRow): StatsProfile['platformInfo'] {
  return {
    platformSlug: p.platform,
    platformUserId: p.id,
    platformUserHandle: p.handle,
    platformUserIdentifier: PLATFORMS[p.platform].handleIsIdentifier ? p.handle : p.id,
    avatarUrl: p.avatar_url,
    additionalParameters: null,
  };
}

const USER_INFO: StatsProfile['userInfo'] = {
  userId: null,
  isPremium: false,
  isVerified: false,
  isInfluencer: false,
  isPartner: false,
  countryCode: null,
  customAvatarUrl: null,
  customHeroUrl: null,
  socialAccounts: [],
  pageviews: null,
  isSuspicious: null,
};

async function overviewSegment(ctx: LookupContext, player: PlayerRow, expiry: string): Promise<Segment> {
  const stored = await ctx.store.totalsOf(player);
  // A player with no matches yet still has a career: zero matches, zero wins (a profile needs an overview with stats).
  const values = Object.keys(stored).length > 0 ? stored : totalsToValues(emptyTotals());
  const places = await ctx.store.places(player.title, values);
  // A career's sum of rating changes says nothing the rating does not.
  const { [LADDERS[player.title].changeKey]: _change, ...career } = values;
  const stats = toStats({ ...career, ...(await currentRating(ctx.store, player)) }, (key) => {
    const place = places.get(key);
    return place ? standingOfCounts(place.below, place.atOrBelow, place.population, statInfo(key).higherIsBetter) : null;
  });
  return { type: 'overview', attributes: {}, metadata: { name: 'Lifetime' }, expiryDate: expiry, stats: withTiers(player.title, stats) };
}

/**
 * A player's rating now (their newest ranked match's) and the best of its season: none for a
 * player who never played ranked. Not from the stored totals, which add every stat up.
 */
async function currentRating(store: Store, player: PlayerRow): Promise<Record<string, number>> {
  const ladder = LADDERS[player.title];
  const rows = await store.ratings(player, ladder.key);
  const newest = rows[0];
  if (!newest) return {};
  let peak = newest.rating;
  for (const r of rows) if (r.season === newest.season && r.rating > peak) peak = r.rating;
  return { [ladder.key]: newest.rating, [ladder.peakKey]: peak };
}

function topKey(counts: Map<string, number>): string | null {
  let best: string | null = null;
  let most = 0;
  for (const [k, n] of counts) if (n > most || (n === most && best !== null && k < best)) [best, most] = [k, n];
  return best;
}

async function profileMetadata(store: Store, player: PlayerRow, summary: PlayerSummary): Promise<Record<string, unknown>> {
  const newest = (await store.matchPage(player, 1))[0];
  const metadata: Record<string, unknown> = { lastPlayed: newest ? iso(newest.started_at) : null };
  switch (player.title) {
    case 'title_a':
      metadata.seasons = summary.seasons;
      metadata.currentSeason = summary.seasons.at(-1) ?? null;
      break;
    case 'title_b':
      metadata.activeLegendName = newest?.legend ?? null;
      break;
    case 'title_c':
      metadata.mainHero = topKey(await store.keyCounts(player, 'hero'));
      break;
    case 'title_d':
      metadata.favoriteMap = topKey(await store.keyCounts(player, 'map'));
      break;
  }
  return metadata;
}

/**
 * The segment types this player has data for, as far as the segments endpoint serves their platform
 * (title_b's pc_store_b players have none there). title_a's carry the seasons and queues they have.
 */
function availableSegments(player: PlayerRow, summary: PlayerSummary, servesPlatform: boolean): AvailableSegment[] {
  if (!servesPlatform) return [];
  const list: AvailableSegment[] = [];
  for (const info of TITLES[player.title].segmentTypes) {
    const metadata: AvailableSegment['metadata'] = { name: info.name };
    if (info.groupBy === 'weapon') {
      if (!summary.hasWeapons) continue;
    } else if (info.groupBy !== 'overview') {
      const count = summary.distinct[info.groupBy];
      if (count === 0) continue;
      metadata.count = count;
    }
    if (player.title === 'title_a') {
      metadata.queues = summary.queues;
      metadata.seasons = TITLES.title_a.lifetimeOnlySegmentTypes.includes(info.type) ? [] : summary.seasons;
    }
    list.push({ type: info.type, attributes: {}, metadata });
  }
  return list;
}

export async function profile(
  ctx: LookupContext,
  memo: Memo,
  title: TitleSlug,
  platform: PlatformSlug,
  identifier: string,
  segmentsServePlatform: boolean,
): Promise<StatsProfile> {
  const player = await resolvePlayer(ctx.store, title, platform, identifier);
  const expiryDate = iso(ctx.now() + EXPIRY_MS.profile);
  const cached = await memo.get(ctx.store, `profile|${title}|${platform}|${player.id_norm}`, async () => {
    const summary = await ctx.store.playerSummary(player);
    return {
      metadata: await profileMetadata(ctx.store, player, summary),
      available: availableSegments(player, summary, segmentsServePlatform),
      overview: await overviewSegment(ctx, player, ''),
    };
  });
  return {
    platformInfo: platformInfo(player),
    userInfo: USER_INFO,
    metadata: cached.metadata,
    segments: [{ ...cached.overview, expiryDate }],
    availableSegments: cached.available,
    expiryDate,
  };
}

export async function segments(
  ctx: LookupContext,
  memo: Memo,
  title: TitleSlug,
  platform: PlatformSlug,
  identifier: string,
  type: string,
  filter: MatchFilter,
): Promise<Segment[]> {
  const info = segmentType(title, type);
  if (!info)
    throw invalidParameter(
      'segmentType',
      `unknown segment type ${quotedValue(type)}`,
      TITLES[title].segmentTypes.map((s) => s.type),
      type,
    );
  if (filter.season !== undefined && TITLES[title].lifetimeOnlySegmentTypes.includes(type))
    throw invalidParameter('season', `${type} data exists for lifetime only; leave season empty`, undefined, String(filter.season));
  const player = await resolvePlayer(ctx.store, title, platform, identifier, ERROR_CODES.segmentsPrivate);
  const expiryDate = iso(ctx.now() + EXPIRY_MS.segments);
  const key = `segments|${title}|${platform}|${player.id_norm}|${type}|${filter.queue ?? ''}|${filter.season ?? ''}`;
  const { groups, active } = await memo.get(ctx.store, key, async () => {
    const rows = await ctx.store.aggregateRows(title, platform, player.id_norm, info.groupBy, filter);
    const character = info.groupBy === 'legend' || info.groupBy === 'hero';
    const grouped = [...groupRows(rows, info.groupBy === 'weapon')];
    // A player's lifetime overview exists with no match yet, as in their profile (whose list of
    // segments names it): zeros, not an empty list. A filter no match meets stays empty.
    if (grouped.length === 0 && info.groupBy === 'overview' && filter.queue === undefined && filter.season === undefined) grouped.push(['', emptyTotals()]);
    return {
      groups: grouped
        .map(([name, totals]) => ({ name, values: totalsToValues(totals) }))
        .sort((a, b) => (b.values.matchesPlayed ?? 0) - (a.values.matchesPlayed ?? 0) || a.name.localeCompare(b.name)),
      // The legend or hero in use: the one of the player's newest match.
      active: character ? ((await ctx.store.matchPage(player, 1))[0]?.[info.groupBy] ?? null) : null,
    };
  });
  const filterAttributes: Record<string, unknown> = {};
  if (filter.season !== undefined) filterAttributes.season = filter.season;
  if (filter.queue !== undefined) filterAttributes.queue = filter.queue;
  const legendIds = info.groupBy === 'legend' ? legendIdsOf(groups.map((g) => g.name)) : undefined;
  return groups.map(({ name, values }) => {
    const overview = info.groupBy === 'overview';
    const label = overview ? [filter.season !== undefined ? `Season ${filter.season}` : 'Lifetime', filter.queue].filter(Boolean).join(' · ') : name;
    // title_b's legends are identified by an id, as in the real service; the others by their key.
    const identity = overview ? {} : legendIds ? { id: legendIds.get(name) } : { key: name };
    return {
      type,
      attributes: { ...identity, ...filterAttributes },
      metadata: active === null ? { name: label } : { name: label, isActive: name === active },
      expiryDate,
      stats: withTiers(title, toStats(values)),
    };
  });
}

/**
 * title_b's legend ids, by name: `legend_` and the name folded to `[a-z0-9_]` (`Mad Maggie` is
 * `legend_mad_maggie`). Names that fold alike (`Wraith` and `wraith`, `Mad-Maggie`) each get a
 * part of their name's hash after it, so that no two segments of an answer share an id.
 */
export function legendIdsOf(names: readonly string[]): Map<string, string> {
  const folded = (name: string) => `legend_${name.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`;
  const count = new Map<string, number>();
  for (const name of names) count.set(folded(name), (count.get(folded(name)) ?? 0) + 1);
  return new Map(
    names.map((name) => {
      const id = folded(name);
      return [name, (count.get(id) ?? 0) > 1 ? `${id}_${createHash('sha1').update(name).digest('hex').slice(0, 8)}` : id];
    }),
  );
}

/** Values of one match: the player's own numbers and what derives from them, not career counts. */
function matchValues(totals: Totals): Record<string, number> {
  const values = totalsToValues(totals);
  for (const key of ['matchesPlayed', 'wins', 'losses', 'winRate', 'killsPerMatch', 'damagePerMatch', 'timePlayed']) delete values[key];
  return values;
}

function withoutRatings(values: Record<string, number>): Record<string, number> {
  for (const key of RATING_KEYS) delete values[key];
  return values;
}

function singleMatch(row: Pick<MatchRow, 'result' | 'duration_s' | 'stats'>): Totals {
  const totals = emptyTotals();
  addMatch(totals, row);
  return totals;
}

interface Cursor {
  startedAt: number;
  matchId: string;
}

/** Whose list a cursor pages: eight characters of a hash of the player's key, so that another's cursor is told, not followed. */
const cursorOwner = (p: Pick<PlayerRow, 'title' | 'platform' | 'id_norm'>): string =>
  createHash('sha1').update(`${p.title}\n${p.platform}\n${p.id_norm}`).digest('base64url').slice(0, 8);

export function encodeCursor(c: Cursor, owner: Pick<PlayerRow, 'title' | 'platform' | 'id_norm'>): string {
  return Buffer.from(JSON.stringify([c.startedAt, c.matchId, cursorOwner(owner)])).toString('base64url');
}

/**
 * Reads a cursor back for `owner`'s list. Its match id must be one a match can have (as the dataset
 * checks it): the id reaches the store, and PostgreSQL answers a NUL in text with an error of its
 * own (a 500). A cursor of another player's list is refused (followed, it started this player's
 * list at the other's place, skipping whatever came before). One without an owner (given out
 * before cursors had one) is read as it was then.
 */
export function decodeCursor(text: string, owner: Pick<PlayerRow, 'title' | 'platform' | 'id_norm'>): Cursor {
  let read: unknown[] = [];
  try {
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (Array.isArray(value)) read = value as unknown[];
  } catch {
    // falls through to the error below
  }
  const [startedAt, matchId, whose] = read;
  const shaped =
    (read.length === 2 || (read.length === 3 && typeof whose === 'string')) &&
    Number.isSafeInteger(startedAt) &&
    typeof matchId === 'string' &&
    matchIdProblem(matchId) === null;
  if (!shaped) throw invalidParameter('next', 'not a cursor this service gave out; pass metadata.next of the previous page', undefined, text);
  if (whose !== undefined && whose !== cursorOwner(owner))
    throw invalidParameter('next', "the cursor pages another player's matches; pass metadata.next of this player's previous page", undefined, text);
  return { startedAt: startedAt as number, matchId: matchId };
}

export async function matches(ctx: LookupContext, title: TitleSlug, platform: PlatformSlug, identifier: string, next?: string): Promise<MatchResult> {
  const player = await resolvePlayer(ctx.store, title, platform, identifier);
  const before = next === undefined ? undefined : decodeCursor(next, player);
  const rows = await ctx.store.matchPage(player, MATCHES_PAGE_SIZE + 1, before);
  const page = rows.slice(0, MATCHES_PAGE_SIZE);
  const last = page.at(-1);
  const list: MatchSummary[] = page.map((row) => ({
    attributes: { id: row.match_id },
    metadata: {
      timestamp: iso(row.started_at),
      mapName: row.map,
      modeName: row.mode,
      playlistName: row.playlist,
      queue: row.queue,
      season: row.season,
      result: row.result,
      duration: row.duration_s,
    },
    segments: [{ type: 'overview' as const, stats: withTiers(title, toStats(matchValues(singleMatch(row)))) }],
  }));
  return {
    matches: list,
    metadata: { next: rows.length > MATCHES_PAGE_SIZE && last ? encodeCursor({ startedAt: last.started_at, matchId: last.match_id }, player) : null },
  };
}

export async function matchReport(ctx: LookupContext, title: TitleSlug, platform: PlatformSlug, matchId: string): Promise<StatisticalObject> {
  const found = await ctx.store.match(title, matchId);
  // A match is reachable from the platform it was recorded on and from each of its players' platforms.
  if (!found || (found.match.platform !== platform && !found.players.some((p) => p.platform === platform)))
    throw new ServiceError(404, ERROR_CODES.matchNotFound, `No ${TITLES[title].name} match "${matchId}" on ${PLATFORMS[platform].name}.`, {
      title,
      platform,
      matchId,
    });
  const { match, players } = found;
  const teams = new Map<string, { totals: Totals; won: boolean; result: string | null }>();
  for (const p of players) {
    if (p.team === null) continue;
    let team = teams.get(p.team);
    if (!team) teams.set(p.team, (team = { totals: emptyTotals(), won: false, result: p.result }));
    // A private player's numbers stay out of their team's sums too: the team less the others would tell them.
    if (!p.private) addMatch(team.totals, p);
    if (p.result === 'win') team.won = true;
  }
  // A team that won says so in its result too (a dataset may give its players mixed results: the
  // first one's `loss` beside a trophy read "🏆 Blue · Loss").
  for (const t of teams.values()) if (t.won) t.result = 'win';
  const children: MatchChild[] = [
    ...[...teams].map(([name, t]) => ({
      type: 'team' as const,
      attributes: { id: name },
      metadata: { name, isWinner: t.won, result: t.result },
      // A team has no rating: its players each have theirs.
      stats: toStats(withoutRatings(matchValues(t.totals))),
    })),
    // A private player (451 on their profile) is still listed, since a report says who played, but
    // without stats: their profile, segments, sessions and matches keep those from everyone.
    ...players.map((p) => ({
      type: 'player' as const,
      attributes: { platformSlug: p.platform, platformUserIdentifier: p.player_id ?? p.player, teamId: p.team },
      metadata: { name: p.handle ?? p.player_id ?? p.player, isWinner: p.result === 'win', result: p.result, hero: p.hero, legend: p.legend },
      stats: p.private ? {} : withTiers(title, toStats(matchValues(singleMatch(p)))),
    })),
  ];
  return {
    attributes: { id: match.id },
    metadata: {
      timestamp: iso(match.started_at),
      duration: match.duration_s,
      map: { displayValue: match.map },
      mode: { displayValue: match.mode },
      playlist: { displayValue: match.playlist },
      queue: match.queue,
      season: match.season,
    },
    children,
  };
}

function searchResult(p: PlayerRow): SearchResult {
  return {
    platformId: PLATFORMS[p.platform].platformId,
    platformSlug: p.platform,
    platformUserIdentifier: PLATFORMS[p.platform].handleIsIdentifier ? p.handle : p.id,
    platformUserId: p.id,
    platformUserHandle: p.handle,
    avatarUrl: p.avatar_url,
    status: null,
    additionalParameters: null,
  };
}

/**
 * Exact identifier first (on pc_store_a also a community profile URL or vanity name), then players
 * whose handle starts with the query, case-insensitive. At most SEARCH_LIMIT results.
 */
export async function search(ctx: LookupContext, title: TitleSlug, platform: PlatformSlug, query: string): Promise<SearchResult[]> {
  checkIdentifier(platform, query, 'query');
  const found = new Map<string, PlayerRow>();
  const add = (p: PlayerRow | undefined) => {
    if (p && !found.has(p.id_norm)) found.set(p.id_norm, p);
  };
  add(await findPlayer(ctx.store, title, platform, query));
  if (!(PLATFORMS[platform].acceptsVanity && parseCommunityUrl(query)))
    for (const p of await ctx.store.playersByHandlePrefix(title, platform, query, SEARCH_LIMIT)) add(p);
  return [...found.values()].slice(0, SEARCH_LIMIT).map(searchResult);
}

/**
 * The newest sessions. Cutting them reads every match of the player, so the cut is kept until the
 * next import; only whether the newest one is still going depends on the clock.
 */
export async function sessions(ctx: LookupContext, memo: Memo, title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<SessionList> {
  const player = await resolvePlayer(ctx.store, title, platform, identifier);
  const now = ctx.now();
  const cut = await memo.get(ctx.store, `sessions|${title}|${platform}|${player.id_norm}`, async () => {
    const spans = cutSessions(await ctx.store.timeline(player))
      .slice(-SESSIONS_LIMIT)
      .reverse();
    const oldest = spans.at(-1);
    const rows = new Map<string, MatchRow>();
    if (oldest) for (const row of await ctx.store.matchRowsSince(player, oldest.start)) rows.set(row.match_id, row);
    const items: Session[] = spans.map((span) => {
      const totals = emptyTotals();
      const matchRows = span.matches.map((m) => rows.get(m.match_id)).filter((r): r is MatchRow => r !== undefined);
      for (const row of matchRows) addMatch(totals, row);
      // The real service's layout: `{ value, displayValue }` metadata, .NET TimeSpan durations, the
      // match id at the top, and no `attributes`.
      return {
        metadata: {
          startDate: dated(span.start),
          endDate: dated(span.end),
          duration: { value: formatTimeSpan((span.end - span.start) / 1000), displayValue: formatDuration((span.end - span.start) / 1000) },
          isActive: flagged(false),
          matchCount: matchRows.length,
        },
        stats: withTiers(title, toStats(totalsToValues(totals))),
        matches: matchRows
          .slice(-SESSION_MATCHES_LIMIT)
          .reverse()
          .map((row) => {
            const character = row.legend ?? row.hero;
            return {
              id: row.match_id,
              metadata: {
                startDate: dated(row.started_at),
                endDate: dated(row.started_at + row.duration_s * 1000),
                result: { value: row.result, displayValue: row.result === null ? null : (RESULT_NAMES[row.result] ?? row.result) },
                character: { value: character, displayValue: character },
              },
              stats: withTiers(title, toStats(matchValues(singleMatch(row)))),
            };
          }),
      };
    });
    return { items, newestEnd: spans[0]?.end };
  });
  const newest = cut.items[0];
  const items =
    newest && cut.newestEnd !== undefined && isActiveSession(cut.newestEnd, now)
      ? [{ ...newest, metadata: { ...newest.metadata, isActive: flagged(true) } }, ...cut.items.slice(1)]
      : cut.items;
  const active = items[0]?.metadata.isActive?.value === true;
  return { items, expiryDate: iso(now + (active ? EXPIRY_MS.sessions : EXPIRY_MS.sessionsIdle)) };
}
