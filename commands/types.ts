// The contract between the bot and its commands. A command is a plain typed object; its handlers
// take what the user typed (no discord.js objects, so `npm run preview` runs them without Discord)
// and return the reply as data.
import type { RESTPostAPIChatInputApplicationCommandsJSONBody } from 'discord.js';
import type { Logger } from 'pino';

import type { PlatformSlug, Queue, TitleSlug } from '../src/catalog/index.js';
import type { CardRenderer } from '../src/cards/index.js';
import type { DaySnapshot, Period, ProfileSnapshot, Reply } from '../src/embeds/index.js';
import type { LookupClient } from '../src/lookup/client.js';
import type { Stats } from '../src/lookup/schemas.js';
import { en, type TextKey } from '../src/locales/index.js';

export type OptionValue = string | number | boolean;

export interface CommandInput {
  /** `stats`, `link`, `unlink`. */
  name: string;
  /** The subcommand group (`/stats title_c ...`: `title_c`), if any. */
  group: string | null;
  subcommand: string | null;
  options: Readonly<Record<string, OptionValue>>;
  userId: string;
  /** The server the command was used in; none in a direct message. */
  guildId?: string | null | undefined;
  /** The reader's locale (`interaction.locale`, e.g. `de`): numbers are written the way they read them. */
  locale?: string | undefined;
  /** The server's language (`guild_locale`), in a server: what the bot posts for everyone there (the feed) is written in it. */
  guildLocale?: string | undefined;
  /** Whether the member may manage the server (Manage Server), for server settings such as the feed's channel. */
  canManageServer?: boolean | undefined;
}

export interface AutocompleteInput extends CommandInput {
  /** `numeric`: an integer option, whose choices Discord takes as numbers only. */
  focused: { name: string; value: string; numeric?: boolean | undefined };
}

export interface Choice {
  name: string;
  value: string;
}

/** A player account remembered for a Discord user and a title (`/link`). */
export interface LinkedAccount {
  platform: PlatformSlug;
  identifier: string;
  handle: string;
  /** Linked through the member's own Discord connection (`/verify`), not typed by hand. */
  verified?: boolean | undefined;
}

/**
 * A link or view store that failed or did not answer in time. `told` is what the user reads (what
 * did not happen, and what to do), in their language; the router shows it privately and logs
 * `cause` for the operator. The message is the English text.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(
    readonly told: TextKey,
    options?: ErrorOptions,
  ) {
    super(en[told], options);
  }
}

/** Links are kept for good: a failed `set` or `delete` throws `StoreUnavailableError`, never pretends. */
export interface LinkStore {
  get(userId: string, title: TitleSlug): Promise<LinkedAccount | undefined>;
  set(userId: string, title: TitleSlug, account: LinkedAccount): Promise<void>;
  delete(userId: string, title: TitleSlug): Promise<boolean>;
}

/** What a server's managers set with `/settings`; what is not set takes the bot's default. */
export interface ServerSettings {
  /** Matches a member needs to be ranked on `/leaderboard` (BOARD_MIN_MATCHES unless set). */
  boardMinMatches?: number | undefined;
  /** `/leaderboard` ranks verified accounts only. */
  boardVerifiedOnly?: boolean | undefined;
  /** The session feed posts verified accounts' sessions only. */
  feedVerifiedOnly?: boolean | undefined;
}

/** Servers' settings, kept where links are; failures throw `StoreUnavailableError`. */
export interface ServerSettingsStore {
  get(guildId: string): Promise<ServerSettings>;
  set(guildId: string, settings: ServerSettings): Promise<void>;
}

/** A `/verify` under way: the browser that started it (a hash of its cookie), single-use, for 10 minutes. */
export interface VerifyState {
  browser: string;
}

/** A member's Discord grant, sealed (TOKEN_ENCRYPTION_KEY), and what their role connection carried last. */
export interface StoredGrant {
  sealed: string;
  pushed?: Record<string, string> | undefined;
  /** Epoch ms of the last push. */
  pushedAt?: number | undefined;
}

/** Where verification keeps its states and grants (with the links: SQLite file or Redis). Failures throw `StoreUnavailableError`. */
export interface VerifyStore {
  putState(state: string, record: VerifyState): Promise<void>;
  /** The state's record once: a second take of the same state, or one past its 10 minutes, finds none. */
  takeState(state: string): Promise<VerifyState | undefined>;
  grant(userId: string): Promise<StoredGrant | undefined>;
  setGrant(userId: string, grant: StoredGrant): Promise<void>;
  deleteGrant(userId: string): Promise<boolean>;
}

/** Verified accounts (Discord OAuth2 and Linked Roles); absent when the bot has no web side (PUBLIC_URL). */
export interface Verification {
  /** What a member opens to verify: `${PUBLIC_URL}/verify`. */
  url: string;
  /** After a verified account's /unlink: with no verified link left, the grant is revoked and the role connection cleared. */
  forget(userId: string): Promise<void>;
  /** A member's career seen (their own look, a board, the feed): their role connection follows it where it changed. */
  seen(userId: string, title: TitleSlug, stats: Stats): void;
}

/** What a linked user's own profile kept from their last look, per title ("since your last look"). */
export interface SnapshotStore {
  get(userId: string, title: TitleSlug): Promise<ProfileSnapshot | undefined>;
  set(userId: string, title: TitleSlug, snapshot: ProfileSnapshot): Promise<void>;
}

/**
 * Linked players' careers, a snapshot a day (HISTORY_DAYS of them), by title, platform and
 * identifier. Failures throw `StoreUnavailableError`.
 */
export interface HistoryStore {
  days(title: TitleSlug, platform: PlatformSlug, identifier: string): Promise<DaySnapshot[]>;
  /** Keeps `today` in the player's history (the day's latest look stands for it). */
  record(title: TitleSlug, platform: PlatformSlug, identifier: string, today: DaySnapshot): Promise<void>;
}

/**
 * Who is in which server, recorded when a member links or uses a server command there (the bot has
 * no member intent, so Discord tells it nothing else). Bounded per server.
 */
export interface MemberStore {
  add(guildId: string, userId: string): Promise<void>;
  list(guildId: string): Promise<string[]>;
}

/** A server's session feed: where it posts, whether it is on, and why Discord switched it off. */
export interface GuildFeed {
  channelId: string;
  on: boolean;
  /** Set when a post failed for good (10003 unknown channel, 50001 missing access, 50013 missing permissions). */
  off?: { code: number; at: string } | undefined;
  /** The server's language when the channel was picked (`guild_locale`): the posts are written in it. */
  locale?: string | undefined;
}

/** A member following their own sessions for a title in a server. */
export interface FeedSubscription {
  guildId: string;
  userId: string;
  title: TitleSlug;
}

/**
 * The session feed's lasting state: servers' settings and members' opt-ins (for the commands), and
 * for the poller each player's last look, the sessions already posted and the one-poller lock.
 * Failures throw `StoreUnavailableError`.
 */
export interface FeedStore {
  guild(guildId: string): Promise<GuildFeed | undefined>;
  setGuild(guildId: string, feed: GuildFeed): Promise<void>;
  /** `full` when the server (or the whole bot) follows as many members as it may. */
  join(sub: FeedSubscription): Promise<'joined' | 'already' | 'full'>;
  /** Stops following the member in the server (one title, or all); how many were removed. */
  leave(guildId: string, userId: string, title?: TitleSlug): Promise<number>;
  following(guildId: string, userId: string): Promise<TitleSlug[]>;
  count(guildId: string): Promise<number>;
  all(): Promise<FeedSubscription[]>;
  /** The poller's record of a player (JSON), by `title|platform|identifier`. */
  player(key: string): Promise<unknown>;
  setPlayer(key: string, state: unknown): Promise<void>;
  /**
   * Claims a session's post to a server for a while (`mine`), so that no other process posts it
   * meanwhile; `posting` while another claim holds it (a post under way, or one whose process died:
   * it lapses), `posted` once a post was made.
   */
  claim(postKey: string): Promise<'mine' | 'posting' | 'posted'>;
  /** Marks a claimed session as posted: remembered for POSTED_TTL_MS. */
  posted(postKey: string): Promise<void>;
  /** Takes a claim back when the post did not go out, so that it is tried again. */
  unclaim(postKey: string): Promise<void>;
  /** Takes or keeps the poller's lock for `ttlMs`; false while another owner holds it. */
  lock(owner: string, ttlMs: number): Promise<boolean>;
  unlock(owner: string): Promise<void>;
}

/** Posts a message to a channel by itself (not as an interaction reply). */
export interface ChannelPoster {
  /**
   * `nonce` (at most 25 characters) makes the post once-only at Discord for a few minutes: the same
   * nonce posted again (a retry whose first try reached Discord unanswered) returns the message
   * already made instead of a second one. `late`: Discord did not take it in time (a long rate
   * limit, as a channel in slowmode asks, or no answer until the poster's deadline).
   */
  post(channelId: string, reply: Reply, options?: { nonce?: string }): Promise<{ ok: true } | { ok: false; code: number | null; message: string; late?: true }>;
}

/** A player a reply is about: looked up by `player`, shown as `handle` (a linked account's name) when known. */
interface PlayerView {
  title: TitleSlug;
  platform: PlatformSlug;
  player: string;
  handle?: string | undefined;
  ownerId: string;
  /** The reply without its picture card (`card:false`). */
  textOnly?: boolean | undefined;
}

/** What a reply with controls shows: enough to draw any page of it again, or to go on from it. */
export type View =
  | (PlayerView & { kind: 'profile'; period?: Period | undefined })
  | (PlayerView & { kind: 'segments'; type: string; queue?: Queue | undefined; season?: number | undefined })
  | (PlayerView & { kind: 'matches' })
  | (PlayerView & { kind: 'sessions' })
  | { kind: 'search'; title: TitleSlug; platform: PlatformSlug; query: string; ownerId: string }
  | { kind: 'match'; title: TitleSlug; platform: PlatformSlug; id: string; ownerId: string };
export type ViewKind = View['kind'];

/** Where views are kept between a reply and the clicks on its controls; failures throw `StoreUnavailableError`. */
export interface ViewStore {
  save(view: View): Promise<string>;
  load(id: string): Promise<View | undefined>;
}

export interface Deps {
  lookup: LookupClient;
  links: LinkStore;
  views: ViewStore;
  snapshots: SnapshotStore;
  /** Daily snapshots of linked players' careers (`period`, and the form of titles without a match list); absent, neither. */
  history?: HistoryStore;
  members: MemberStore;
  logger: Logger;
  /** The clock of "since your last look"; tests pass their own. */
  now?: () => Date;
  /** Draws profile, session and compare cards; absent, replies are text only. */
  cards?: CardRenderer;
  /** Per interaction: how long its answer may still wait for a card (see CardDeps). */
  cardWaitMs?: () => number;
  /** The session feed's settings and opt-ins; absent, `/track` says the feed is not available. */
  feed?: FeedStore;
  /** Posts to a server's channel (the feed's check that it may post where it is told to). */
  poster?: ChannelPoster;
  /** Verified accounts; absent, `/link` links by hand only. */
  verification?: Verification;
  /** Servers' settings (`/settings`); absent, every server has the defaults. */
  servers?: ServerSettingsStore;
}

export interface Command {
  data: RESTPostAPIChatInputApplicationCommandsJSONBody;
  execute(input: CommandInput, deps: Deps): Promise<Reply>;
  autocomplete?(input: AutocompleteInput, deps: Deps): Promise<Choice[]>;
}

/** How long a command's lookups may take before the user hears about it (the router defers). */
export const COMMAND_DEADLINE_MS = 8_000;
/** Autocomplete cannot be deferred: its lookups get this much of Discord's 3 seconds. */
export const AUTOCOMPLETE_DEADLINE_MS = 1_200;
