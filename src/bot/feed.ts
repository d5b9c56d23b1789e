// The session feed's poller: looks at followed players within a budget of requests a minute,
// notices when a play session ends (45 minutes without a new match) and posts its summary to each
// server's feed channel, once. One process polls at a time (a lock in the store); a session is
// claimed in the store before it is posted, so that restarts and other processes never repeat it,
// and posted with a nonce of its own, so that Discord makes one message of a post sent twice (a
// retry after an answer that never came). A claim is a lease until the post is made: a process
// that dies mid-post leaves the session to the next look, not lost.
//
// Title B has a sessions endpoint: its sessions are read as the service cuts them. The other titles
// are followed through their career: when its match count grows a session is under way, and 45
// minutes without growth end it; the summary is the difference of the two careers.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

import { DiscordAPIError, Routes, type REST } from 'discord.js';
import type { Logger } from 'pino';
import { z } from 'zod';

import {
  type ChannelPoster,
  type FeedStore,
  type HistoryStore,
  type LinkedAccount,
  type LinkStore,
  type ServerSettingsStore,
  type Verification,
} from '../../commands/index.js';
import { followable } from '../../commands/track.js';
import { FIGURE_ALIASES, FIGURE_INFO, findEndpoint, formatStatValue, type Figure, type TitleSlug } from '../catalog/index.js';
import { sessionCard, withCard, type CardRenderer } from '../cards/index.js';
import { daySnapshotOf, feedPostReply, figure, type Reply } from '../embeds/index.js';
import type { ApiResponse, LookupClient } from '../lookup/client.js';
import type { LookupError } from '../lookup/errors.js';
import { within } from '../lookup/within.js';
import { overviewOf, type Session, type Stat, type Stats, type StatsProfile } from '../lookup/schemas.js';
import { WarningThrottle } from '../lookup/warning-throttle.js';

import { ANSWER_DEADLINE_MS, AnswerDeadlineError, withinDeadline } from './answer-deadline.js';

/** The service's own rule: a session ends after this long without a new match. */
export const SESSION_GAP_MS = 45 * 60_000;
/** How often a player is looked at (feed clock): while playing, lately active (a day), idle. */
export const CHECK_INTERVAL_MS = { playing: 3 * 60_000, recent: 15 * 60_000, idle: 60 * 60_000, missing: 6 * 3_600_000 } as const;
/** A session that ended longer ago than this is not posted any more (a feed switched on late). */
const POST_WINDOW_MS = 6 * 3_600_000;
/** How often the opt-ins are read again from the store (real time). */
const REFRESH_MS = 5_000;
/** Players looked at per tick at most, whatever the budget holds. */
const CHECKS_PER_TICK = 8;
/** A player whose look failed (a state that cannot be read, a post that cannot be made) waits this long. */
const FAILED_LOOK_RETRY_MS = 5 * 60_000;
/** A lookup's deadline: the poller waits on nobody's reply, but must not hold the lock long. */
const LOOKUP_DEADLINE_MS = 4_000;
/** Posts made whose record the store did not take (a blip), kept to record again: far more than a blip leaves. */
const UNRECORDED_MAX = 1_000;

const SnapSchema = z.object({
  at: z.number(),
  matches: z.number(),
  wins: z.number().optional(),
  kills: z.number().optional(),
  deaths: z.number().optional(),
  damage: z.number().optional(),
  rating: z.number().optional(),
});
type Snap = z.infer<typeof SnapSchema>;
const PlayerStateSchema = z.object({
  v: z.literal(1),
  platform: z.string(),
  identifier: z.string(),
  /** Feed clock: when the poller first looked (sessions over by then are not posted). */
  since: z.number(),
  nextAt: z.number(),
  lastActiveAt: z.number().optional(),
  last: SnapSchema.optional(),
  start: SnapSchema.optional(),
  growthAt: z.number().optional(),
  /** Sessions read from the career that ended and still wait for a post that failed for a while. */
  pending: z
    .array(z.object({ key: z.string(), session: z.unknown() }))
    .max(5)
    .default([]),
});
type PlayerState = z.infer<typeof PlayerStateSchema>;

/** The feed's clock: the real one, or (tests, demos) the ISO time written in a file. */
export function feedClock(file: string | undefined): () => number {
  if (!file) return Date.now;
  return () => {
    const t = Date.parse(readFileSync(file, 'utf8').trim());
    if (Number.isNaN(t)) throw new Error(`FEED_CLOCK_FILE (${file}) does not hold an ISO time`);
    return t;
  };
}

/** A post's nonce: the same for every try of one session's post to one server, 25 characters (Discord's most). */
export const postNonce = (postKey: string): string => createHash('sha256').update(postKey).digest('base64url').slice(0, 25);

/**
 * Posts through Discord's REST API (`POST /channels/{id}/messages`), card attached, no mentions.
 * With a nonce the post is enforced once-only, which makes retries safe: discord.js's own (a
 * timeout or a 5xx is sent again) and one more here, a second later, when no answer came at all.
 * A post settles within `deadlineMs`, its tries and rate-limit waits included: discord.js sends
 * again after every 429 (a channel in slowmode answers one for hours), which held `/track`'s answer
 * and the feed's round for as long. A rate limit asking over 10 s fails it at once (restOptions).
 */
export function restPoster(rest: REST, retryAfterMs = 1_000, deadlineMs = ANSWER_DEADLINE_MS): ChannelPoster {
  const send = (channelId: string, reply: Reply, nonce: string | undefined) =>
    withinDeadline(
      'a channel post',
      (signal) =>
        rest.post(Routes.channelMessages(channelId), {
          body: {
            content: reply.content ?? '',
            embeds: reply.embeds,
            components: reply.components,
            allowed_mentions: { parse: [] },
            ...(nonce !== undefined ? { nonce, enforce_nonce: true } : {}),
          },
          files: (reply.files ?? []).map((f) => ({ name: f.name, data: f.data })),
          signal,
        }),
      deadlineMs,
    );
  return {
    async post(channelId, reply, options = {}) {
      for (let tries = 1; ; tries++) {
        try {
          await send(channelId, reply, options.nonce);
          return { ok: true };
        } catch (e) {
          // Discord answered (it refused), or the deadline passed: final. No answer: once more, if a nonce makes that safe.
          const answered = e instanceof DiscordAPIError;
          if (!answered && !(e instanceof AnswerDeadlineError) && options.nonce !== undefined && tries < 2) {
            await sleep(retryAfterMs);
            continue;
          }
          return {
            ok: false,
            code: answered && typeof e.code === 'number' ? e.code : null,
            message: (e as Error).message,
            ...(e instanceof AnswerDeadlineError ? { late: true as const } : {}),
          };
        }
      }
    },
  };
}

/** Requests a minute as a bucket refilled continuously, holding ten seconds' worth (at least one). */
export class Budget {
  private tokens: number;
  private at: number;
  private readonly capacity: number;
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.capacity = Math.max(1, Math.floor(perMinute / 6));
    this.tokens = this.capacity;
    this.at = now();
  }
  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.capacity, this.tokens + ((now - this.at) * this.perMinute) / 60_000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens--;
    return true;
  }
  /** A look the cache answered cost the service nothing. */
  refund(): void {
    this.tokens = Math.min(this.capacity, this.tokens + 1);
  }
}

export interface FeedPollerOptions {
  store: FeedStore;
  links: LinkStore;
  lookup: LookupClient;
  poster: ChannelPoster;
  cards?: CardRenderer | undefined;
  /** Where a followed player's day is kept (their `period` and form) from each career the poller reads; absent, not kept. */
  history?: HistoryStore | undefined;
  /** Verified members' role connections follow the careers the poller reads. */
  verification?: Verification | undefined;
  /** Servers' settings: a server whose feed takes verified accounts only gets no post of another. */
  servers?: ServerSettingsStore | undefined;
  logger: Logger;
  requestsPerMinute: number;
  /** The feed's clock (epoch ms): when sessions end, when players are due. */
  now: () => number;
  tickMs?: number;
  lockTtlMs?: number;
}

interface Followed {
  userId: string;
  title: TitleSlug;
  guilds: Set<string>;
  /** Feed clock; 0: not looked at by this process yet. */
  nextAt: number;
  playing: boolean;
}

interface Finished {
  key: string;
  session: Session;
}

/** What one look found: the player's new state, sessions that ended, whether they play now. */
type Look = { error: LookupError } | { state: PlayerState; finished: Finished[]; playing: boolean; career: StatsProfile | undefined };

const stateKey = (userId: string, title: TitleSlug) => `${userId}|${title}`;
const numberOf = (stats: Stats, title: TitleSlug, f: Figure) => {
  const v = figure(stats, title, f)?.value;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

function snapOf(profile: StatsProfile, title: TitleSlug, at: number): Snap | undefined {
  const stats = overviewOf(profile.segments)?.stats ?? {};
  const matches = numberOf(stats, title, 'matchesPlayed');
  if (matches === undefined) return undefined;
  return {
    at,
    matches,
    wins: numberOf(stats, title, 'wins'),
    kills: numberOf(stats, title, 'kills'),
    deaths: numberOf(stats, title, 'deaths'),
    damage: numberOf(stats, title, 'damage'),
    rating: numberOf(stats, title, 'rating'),
  };
}

function stat(name: string, value: number): Stat {
  return {
    rank: null,
    percentile: null,
    displayName: name,
    displayCategory: null,
    category: null,
    metadata: {},
    value,
    displayValue: formatStatValue(value, 'Number'),
    displayType: 'Number',
  };
}

const dated = (ms: number) => ({ value: new Date(ms).toISOString(), displayValue: new Date(ms).toISOString() });

/** A session read from two careers: the sums in between, under the title's own stat names. */
export function sessionFromCareers(title: TitleSlug, start: Snap, end: Snap, startedAt: number): Session {
  const stats: Stats = {};
  for (const f of ['matchesPlayed', 'wins', 'kills', 'deaths', 'damage'] as const) {
    const before = start[f === 'matchesPlayed' ? 'matches' : f];
    const after = end[f === 'matchesPlayed' ? 'matches' : f];
    if (before !== undefined && after !== undefined) stats[FIGURE_ALIASES[title][f][0] ?? f] = stat(FIGURE_INFO[f].label, after - before);
  }
  if (start.rating !== undefined && end.rating !== undefined) stats.rankScoreChange = stat('Rating change', end.rating - start.rating);
  return { metadata: { startDate: dated(startedAt), endDate: null, duration: null, isActive: { value: false, displayValue: 'False' } }, stats, matches: [] };
}

export class FeedPoller {
  private readonly owner = randomBytes(8).toString('hex');
  private readonly budget: Budget;
  private readonly followed = new Map<string, Followed>();
  private refreshedAt = 0;
  private holding = false;
  private pausedUntil = 0;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly warnings = new WarningThrottle();
  /**
   * Posts that went out while the store did not take their record: never posted again by this
   * process, and recorded first thing in each round until the store answers (the claim's lease
   * would otherwise lapse and the next look post the session a second time).
   */
  private readonly unrecorded = new Set<string>();
  /** Requests this process's poller sent (cache hits not counted), for the log and the tests. */
  readonly counts = { looks: 0, requests: 0, posted: 0 };

  constructor(private readonly o: FeedPollerOptions) {
    this.budget = new Budget(o.requestsPerMinute);
  }

  start(): void {
    const tick = () => {
      this.running = this.tick()
        .catch((e: unknown) => this.warn(e, 'session feed: a round failed; trying again every second'))
        .finally(() => {
          if (!this.stopped) this.timer = setTimeout(tick, this.o.tickMs ?? 1_000);
        });
    };
    this.timer = setTimeout(tick, 0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // A round in flight ends at its next lookup's deadline at worst; shutdown does not wait that long.
    if (this.running) await within(this.running, 2_000);
    // Not released, the lock lapses at its TTL: another process takes over that much later.
    if (this.holding)
      await this.o.store
        .unlock(this.owner)
        .catch((e: unknown) => this.o.logger.warn({ err: (e as Error).message }, 'session feed: the poller lock was not released; it lapses on its own'));
  }

  /** One round: keep the lock, read the opt-ins now and then, look at the players due. */
  async tick(): Promise<void> {
    await this.recordPosts();
    if (Date.now() < this.pausedUntil || !(await this.keepLock())) return;
    if (Date.now() - this.refreshedAt > REFRESH_MS) await this.refresh();
    const now = this.o.now();
    const due = [...this.followed.values()].filter((f) => f.nextAt <= now).sort((a, b) => Number(b.playing) - Number(a.playing) || a.nextAt - b.nextAt);
    for (const f of due.slice(0, CHECKS_PER_TICK)) {
      if (this.stopped || Date.now() < this.pausedUntil || !(await this.keepLock())) return;
      let more: boolean;
      try {
        more = await this.look(f);
      } catch (e) {
        // One player's failure must not hold back the players due after them, round after round.
        f.nextAt = this.o.now() + FAILED_LOOK_RETRY_MS;
        this.warn(e, 'session feed: looking at a player failed; they wait 5 minutes', { user: f.userId, title: f.title });
        continue;
      }
      if (!more) return;
    }
  }

  /** Records the posts made whose record failed, oldest first, until the store fails again. */
  private async recordPosts(): Promise<void> {
    for (const postKey of this.unrecorded) {
      try {
        await this.o.store.posted(postKey);
      } catch (e) {
        this.warn(e, 'session feed: a post made is not recorded yet; tried again every round');
        return;
      }
      this.unrecorded.delete(postKey);
    }
  }

  /** One line a minute at most: a store that stays down fails every round. */
  private warn(e: unknown, what: string, extra: Record<string, unknown> = {}): void {
    const alikeLeftOut = this.warnings.take();
    if (alikeLeftOut === undefined) return;
    this.o.logger.warn({ ...extra, alikeLeftOut, err: (e as Error).message, cause: ((e as Error).cause as Error | undefined)?.message }, what);
  }

  private async keepLock(): Promise<boolean> {
    const held = await this.o.store.lock(this.owner, this.o.lockTtlMs ?? 15_000);
    if (held !== this.holding) this.o.logger.info({ owner: this.owner }, held ? 'session feed: this process polls' : 'session feed: another process polls');
    this.holding = held;
    return held;
  }

  private async refresh(): Promise<void> {
    const subs = await this.o.store.all();
    // Only opt-ins in a server whose feed is on are looked at: a server that switched it off, or
    // whose channel refused the bot (removed, no access), kept its members' opt-ins, and they were
    // looked up forever, each round, from a budget the servers that post share. Switched on again,
    // its members are looked at from the next refresh (a look that late starts from their career).
    const on = new Map<string, boolean>();
    for (const guildId of new Set(subs.map((s) => s.guildId))) on.set(guildId, (await this.o.store.guild(guildId))?.on === true);
    const seen = new Set<string>();
    for (const s of subs) {
      if (!on.get(s.guildId)) continue;
      const key = stateKey(s.userId, s.title);
      const f = this.followed.get(key) ?? { userId: s.userId, title: s.title, guilds: new Set<string>(), nextAt: 0, playing: false };
      if (!seen.has(key)) f.guilds.clear();
      f.guilds.add(s.guildId);
      seen.add(key);
      this.followed.set(key, f);
    }
    for (const key of this.followed.keys()) if (!seen.has(key)) this.followed.delete(key);
    this.refreshedAt = Date.now();
  }

  /** Looks at one player; false when the budget is spent for now (the round ends). */
  private async look(f: Followed): Promise<boolean> {
    const now = this.o.now();
    const key = stateKey(f.userId, f.title);
    const account = await this.o.links.get(f.userId, f.title);
    if (!account || !followable(f.title, account.platform)) {
      f.nextAt = now + CHECK_INTERVAL_MS.idle;
      return true;
    }
    const parsed = PlayerStateSchema.safeParse(await this.o.store.player(key));
    let state: PlayerState =
      parsed.success && parsed.data.platform === account.platform && parsed.data.identifier === account.identifier
        ? parsed.data
        : { v: 1, platform: account.platform, identifier: account.identifier, since: now, nextAt: now, pending: [] };
    if (state.nextAt > now) {
      // Looked at lately (by this process before a restart, or by another).
      f.nextAt = state.nextAt;
      f.playing = state.start !== undefined;
      return true;
    }
    if (!this.budget.take()) return false;
    this.counts.looks++;
    const sessions = findEndpoint(f.title, 'sessions')?.platforms.includes(account.platform);
    const outcome = sessions ? await this.lookSessions(f, account, state, now) : await this.lookCareer(f, account, state, now);
    if ('error' in outcome) {
      this.onError(outcome.error, f, now);
      return outcome.error.kind !== 'rate_limited';
    }
    this.failures = 0;
    state = outcome.state;
    const finished = [...(state.pending as Finished[]), ...outcome.finished];
    const retry: Finished[] = [];
    for (const done of finished) if (!(await this.deliver(f, account, done, outcome.career))) retry.push(done);
    state.pending = sessions ? [] : retry.slice(-5);
    const playing = outcome.playing;
    const recent = state.lastActiveAt !== undefined && now - state.lastActiveAt < 24 * 3_600_000;
    state.nextAt = now + (playing ? CHECK_INTERVAL_MS.playing : recent ? CHECK_INTERVAL_MS.recent : CHECK_INTERVAL_MS.idle);
    f.nextAt = state.nextAt;
    f.playing = playing;
    await this.o.store.setPlayer(key, state);
    return true;
  }

  /**
   * A followed player's career read is also their day in the history (one a day, the latest standing
   * for it) and their role connection's values, without holding the poll for either; a stale answer is neither.
   */
  private keepDay(f: Followed, account: LinkedAccount, r: ApiResponse<StatsProfile>, now: number): void {
    if (!r.data || r.meta.source === 'stale') return;
    const stats = overviewOf(r.data.segments)?.stats ?? {};
    this.o.verification?.seen(f.userId, f.title, stats);
    this.o.history
      ?.record(f.title, account.platform, account.identifier, daySnapshotOf(stats, f.title, new Date(now), r.data.metadata.currentSeason))
      .catch((e: unknown) => this.o.logger.warn({ err: (e as Error).message }, 'history store failed: a followed player’s day not kept'));
  }

  private spent(source: string): void {
    if (source === 'cache') this.budget.refund();
    else this.counts.requests++;
  }

  /** Title B: the service's sessions, newest first; those that ended since the player was followed. */
  private async lookSessions(f: Followed, account: LinkedAccount, state: PlayerState, now: number): Promise<Look> {
    const r = await this.o.lookup.sessions(f.title, account.platform, account.identifier, { deadlineMs: LOOKUP_DEADLINE_MS });
    this.spent(r.meta.source);
    if (r.errors) return { error: r.errors[0]! };
    const finished: Finished[] = [];
    let playing = false;
    for (const s of r.data.items.slice(0, 3)) {
      const start = Date.parse(s.metadata.startDate?.value ?? '');
      const lastMatch = s.matches.map((m) => Date.parse(m.metadata.endDate?.value ?? '')).filter((t) => !Number.isNaN(t));
      const end = Date.parse(s.metadata.endDate?.value ?? '') || Math.max(...lastMatch);
      // A clock set in the past (a demo) sees later sessions as not begun yet.
      if (Number.isNaN(start) || !Number.isFinite(end) || start > now) continue;
      state.lastActiveAt = Math.max(state.lastActiveAt ?? 0, Math.min(end, now));
      if (now - end < SESSION_GAP_MS) playing = true;
      else if (end + SESSION_GAP_MS > state.since && now - end - SESSION_GAP_MS < POST_WINDOW_MS)
        finished.push({ key: `s:${s.metadata.startDate?.value ?? start}`, session: s });
    }
    let career: StatsProfile | undefined;
    if (finished.length > 0 && this.budget.take()) {
      const c = await this.o.lookup.profile(f.title, account.platform, account.identifier, { deadlineMs: LOOKUP_DEADLINE_MS });
      this.spent(c.meta.source);
      career = c.data;
      this.keepDay(f, account, c, now);
    }
    return { state, finished, playing, career };
  }

  /** The other titles: the career's match count; growth starts a session, 45 minutes without it end it. */
  private async lookCareer(f: Followed, account: LinkedAccount, state: PlayerState, now: number): Promise<Look> {
    const r = await this.o.lookup.profile(f.title, account.platform, account.identifier, { deadlineMs: LOOKUP_DEADLINE_MS });
    this.spent(r.meta.source);
    if (r.errors) return { error: r.errors[0]! };
    this.keepDay(f, account, r, now);
    const snap = snapOf(r.data, f.title, now);
    const finished: Finished[] = [];
    if (!snap) return { state, finished, playing: false, career: r.data };
    const last = state.last;
    // A look over 6 hours late (the bot was down): the matches since the last one cannot be told as
    // one session, nor dated (a week's were posted as a session that had just ended); the career
    // now is the new starting point, as a session that ended that long ago is not posted.
    const late = now - state.nextAt > POST_WINDOW_MS;
    if (!last || snap.matches < last.matches || (late && (snap.matches > last.matches || state.start))) {
      state = { ...state, last: snap, start: undefined, growthAt: undefined };
    } else if (snap.matches > last.matches) {
      const played = Date.parse(typeof r.data.metadata.lastPlayed === 'string' ? r.data.metadata.lastPlayed : '');
      // The newest match's time when the answer says it and it falls in this look's window; else now.
      const growthAt = !Number.isNaN(played) && played > last.at && played <= now ? played : now;
      state = { ...state, start: state.start ?? { ...last, at: growthAt }, last: snap, growthAt, lastActiveAt: growthAt };
    } else if (state.start && state.growthAt !== undefined && now - state.growthAt >= SESSION_GAP_MS) {
      finished.push({ key: `p:${state.start.matches}-${snap.matches}`, session: sessionFromCareers(f.title, state.start, snap, state.start.at) });
      state = { ...state, last: snap, start: undefined, growthAt: undefined };
    }
    return { state, finished, playing: state.start !== undefined, career: r.data };
  }

  /** Posts a finished session to every server that follows the player; false when a post should be tried again. */
  private async deliver(f: Followed, account: LinkedAccount, done: Finished, career: StatsProfile | undefined): Promise<boolean> {
    let complete = true;
    for (const guildId of f.guilds) {
      const feed = await this.o.store.guild(guildId);
      if (!feed?.on) continue;
      if (!account.verified && (await this.o.servers?.get(guildId))?.feedVerifiedOnly) continue;
      const postKey = `${guildId}|${f.userId}|${f.title}|${account.platform}|${account.identifier}|${done.key}`;
      // Posted already, its record still to be made (recordPosts).
      if (this.unrecorded.has(postKey)) continue;
      const claim = await this.o.store.claim(postKey);
      if (claim === 'posted') continue;
      if (claim === 'posting') {
        // Another process is posting it, or died doing so: looked at again once its lease lapses.
        complete = false;
        continue;
      }
      const reply = await this.render(f, account, done.session, career, feed.locale);
      const posted = await this.o.poster.post(feed.channelId, reply, { nonce: postNonce(postKey) });
      if (posted.ok) {
        this.counts.posted++;
        this.o.logger.info({ guildId, userId: f.userId, title: f.title, session: done.key }, 'session feed: session posted');
        try {
          await this.o.store.posted(postKey);
        } catch (e) {
          // The post stands whatever the store says: what must not happen is a second one.
          this.unrecorded.add(postKey);
          if (this.unrecorded.size > UNRECORDED_MAX) this.unrecorded.delete(this.unrecorded.values().next().value!);
          this.warn(e, 'session feed: a post made is not recorded yet; tried again every round', { guildId, session: done.key });
        }
      } else if (posted.code === 10003 || posted.code === 50001 || posted.code === 50013) {
        await this.o.store.setGuild(guildId, { ...feed, on: false, off: { code: posted.code, at: new Date().toISOString() } });
        this.o.logger.warn(
          { guildId, channelId: feed.channelId, code: posted.code },
          'session feed: Discord refused the channel; the server’s feed is switched off until an admin picks a channel',
        );
      } else {
        await this.o.store.unclaim(postKey);
        complete = false;
        this.o.logger.warn({ guildId, err: posted.message }, 'session feed: post failed; tried again at the next look');
      }
    }
    return complete;
  }

  /** A post in the server's language (`locale`, the feed's), English where it has none. */
  private async render(f: Followed, account: LinkedAccount, session: Session, career: StatsProfile | undefined, locale: string | undefined): Promise<Reply> {
    const reply = feedPostReply(session, {
      title: f.title,
      platform: account.platform,
      player: account.handle,
      userId: f.userId,
      career: career ? overviewOf(career.segments)?.stats : undefined,
      fromProfile: session.matches.length === 0,
      locale,
    });
    return withCard(reply, () => sessionCard([session], f.title, account.platform, account.handle, career, locale), {
      cards: this.o.cards,
      logger: this.o.logger,
    });
  }

  /** The service refuses or fails: wait (429: what it asks, at least 30 s), longer each time; a missing player is looked at rarely. */
  private onError(error: LookupError, f: Followed, now: number): void {
    if (error.kind === 'not_found' || error.kind === 'private' || error.kind === 'invalid_parameter') {
      f.nextAt = now + CHECK_INTERVAL_MS.missing;
      return;
    }
    this.failures++;
    const base = error.kind === 'rate_limited' ? Math.max(30_000, error.retryAfterMs ?? 0) : 15_000;
    const wait = Math.min(10 * 60_000, base * 2 ** Math.min(this.failures - 1, 5));
    this.pausedUntil = Date.now() + wait;
    this.o.logger.warn({ kind: error.kind, waitMs: wait }, 'session feed: the stats service failed; the feed waits');
  }
}
