// The single error boundary of the bot: every interaction comes through here, from the gateway
// (discord.js, `gateway.ts`) or from Discord's HTTP interactions endpoint (`http-interactions.ts`).
// Each transport turns its interaction into the same plain `Incoming` (what the user did, and how
// to answer it); the router decides reply vs defer + edit vs follow-up, makes user-facing errors
// ephemeral, logs each interaction, and never lets a failure escape.
import { DiscordAPIError } from 'discord.js';
import type { Logger } from 'pino';

import {
  StoreUnavailableError,
  findCommand,
  goFromView,
  switchFromView,
  openFromView,
  renderView,
  type AutocompleteInput,
  type Choice,
  type CommandInput,
  type Deps,
} from '../../commands/index.js';
import { WarningThrottle } from '../lookup/warning-throttle.js';
import { within } from '../lookup/within.js';
import { LIMITS, clip, notice, parseCustomId, withoutControls, type Reply } from '../embeds/index.js';
import { say } from '../locales/index.js';
import { AnswerDeadlineError } from './answer-deadline.js';
import { interactionLedger, type InteractionLedger } from './interaction-ledger.js';
import type { InteractionKind, InteractionObserver } from './metrics.js';
import { FULL, Turns } from './turns.js';
import { monotonicMs } from './webhook-answer.js';

/**
 * An answer ready within this budget (a cache hit, the embedded service, a quick service) is the
 * direct reply; only slower ones defer. Deferring costs a second REST call, and discord.js holds
 * webhook edits and follow-ups to its global limit of 50 a second: a burst of deferrals queues
 * behind it. 800 ms leaves Discord's 3 s ample room for the reply itself.
 */
export const DIRECT_REPLY_BUDGET_MS = 800;
/**
 * How long after reading an interaction its answer may wait for a picture card. While the answer
 * can still go out directly, the card gets until just before DIRECT_REPLY_BUDGET_MS: a card never
 * turns a direct answer into a deferred one (the text now beats the picture later). Once deferred
 * (a slow lookup), the card gets what is left of DEFERRED_CARD_BY_MS, and none after it: a card
 * queued behind others under load once added its whole 2 s deadline to answers already a second late.
 */
export const DIRECT_CARD_BY_MS = 700;
export const DEFERRED_CARD_BY_MS = 1_500;

/** How long, `elapsedMs` after the interaction was read, its answer may still wait for a card (0 or less: none). */
export function cardWaitMs(elapsedMs: number): number {
  return (elapsedMs < DIRECT_REPLY_BUDGET_MS ? DIRECT_CARD_BY_MS : DEFERRED_CARD_BY_MS) - elapsedMs;
}

/** Autocomplete must answer within Discord's 3 s, network included: its whole budget. */
export const AUTOCOMPLETE_BUDGET_MS = 2_000;

/**
 * An interaction read this late (after Discord sent it) can no longer be answered: Discord takes a
 * first answer within 3 s. Skipping it costs nothing the user would see and lets a process that
 * fell behind (a CPU spike, a long pause) catch up instead of answering only expired ones.
 */
export const TOO_LATE_MS = 2_800;

/**
 * Commands and presses waiting for their turn (src/bot/turns.ts) at most. At a few commands a
 * millisecond, more than this would be read after Discord's 3 s anyway: past it they are skipped
 * like those read too late.
 */
export const MAX_WAITING = 5_000;

/**
 * Interactions handled at once at most, in either mode. A command waits on lookups and stores within
 * their deadlines, but its answer goes through Discord's REST, which retries and waits out a 429's
 * Retry-After however long: past this, a new interaction is skipped (unanswered, counted and logged
 * like one read too late) rather than held in memory behind the rest. An HTTP worker answers 503.
 */
export const MAX_INFLIGHT = 2_000;

/** Discord's "Unknown interaction" (expired or answered elsewhere) and "already acknowledged". */
const IGNORED_CODES = new Set([10062, 40060]);

/**
 * How an interaction is answered, whatever carried it. The first of `reply`, `update`, `defer`,
 * `deferUpdate` and `choices` is the interaction's one acknowledgement (callback types 4, 7, 5, 6
 * and 8); `edit`, `followUp` and `deleteOriginal` work on the message after it.
 */
/** A choice as Discord takes it: a number for an integer option. */
export type SentChoice = { name: string; value: string | number };

export interface Answer {
  reply(reply: Reply): Promise<void>;
  /** Replaces the message the pressed component is on. */
  update(reply: Reply): Promise<void>;
  defer(ephemeral: boolean): Promise<void>;
  deferUpdate(): Promise<void>;
  choices(choices: SentChoice[]): Promise<void>;
  edit(reply: Reply): Promise<void>;
  followUp(reply: Reply): Promise<void>;
  deleteOriginal(): Promise<void>;
  /** Whether the interaction was acknowledged (then a failure is told by a follow-up). */
  readonly acknowledged: boolean;
  /** Whether a public "thinking…" message stands (a public defer, nothing edited in yet). */
  readonly placeholder: boolean;
  /** Whether a private "thinking…" stands (a private defer, nothing edited in yet): a notice takes its place. */
  readonly thinkingPrivately: boolean;
  /** When the first answer went out on its connection (the host's monotonic clock, ms), where the way tells. */
  readonly writtenAt?: number | undefined;
}

/** How a press was acknowledged before its view was read (a slow view store), if it was. */
type Deferred = 'update' | 'reply' | undefined;

/** What the user did. */
export type Action =
  | { kind: 'command'; input: CommandInput }
  | { kind: 'autocomplete'; input: AutocompleteInput }
  | {
      kind: 'component';
      customId: string;
      /** A select menu's picks; none for a button. */
      values: readonly string[] | undefined;
      userId: string;
      locale: string | undefined;
      /** Who ran the interaction that made the pressed message, when Discord says (see `component`). */
      messageOwnerId?: string | undefined;
    };

/** One interaction as the router reads it, from either transport. */
export interface Incoming {
  id: string;
  /** Discord's interaction type (2 command, 3 component, 4 autocomplete), for the log. */
  type: number;
  /** When Discord made it (from its snowflake id). */
  createdTimestamp: number;
  action: Action;
  answer: Answer;
}

/** What became of an interaction handed to the router. */
export type Handled = 'handled' | 'skipped' | 'replayed';

/** How long the smallest delay seen stands as the clocks' offset before what was seen since replaces it. */
const OFFSET_WINDOW_MS = 60_000;

const describe = (input: CommandInput) => [input.name, input.group, input.subcommand].filter(Boolean).join(' ');

export class Router {
  private closing = false;
  private readonly inflight = new Set<Promise<Handled>>();
  /** Interactions answered, by outcome: for the log and the tests. */
  readonly counts = { commands: 0, autocompletes: 0, components: 0, deferred: 0, failed: 0, tooLate: 0, replayed: 0 };
  /** Commands and presses start one per turn of the event loop; autocompletes do not wait. */
  private readonly turns = new Turns(MAX_WAITING);
  /**
   * The clocks' offset: the smallest delay between Discord's timestamp and reading it, over the
   * last whole window (`ms`), and over the window under way (`next`, which replaces it when it ends).
   */
  private offset = { ms: Infinity, next: Infinity, until: 0 };
  private tooLateReported = 0;
  private readonly replayWarnings = new WarningThrottle();

  /**
   * Controls expire with their view (CONTROLS_TTL_MS): a press after that is answered that they
   * expired. No message is edited to switch them off: such edits share the webhook queue and
   * Discord's 50 a second with real answers, and a burst of them once held answers back 39 s.
   */
  constructor(
    private readonly deps: Deps,
    private readonly logger: Logger,
    /** Told of every interaction's kind, outcome and time (the metrics); optional. */
    private readonly metrics?: InteractionObserver,
    /** The interactions taken already (shared by workers in Redis); this process's memory by default. */
    private readonly ledger: InteractionLedger = interactionLedger(),
  ) {}

  /** Handles one interaction; never rejects. An interaction id taken before runs nothing (`replayed`). */
  handle(interaction: Incoming): Promise<Handled> {
    if (this.inflight.size >= MAX_INFLIGHT) {
      this.skip(interaction, `${MAX_INFLIGHT} in flight`);
      return Promise.resolve('skipped');
    }
    const work: Promise<Handled> = this.dispatch(interaction, monotonicMs()).finally(() => this.inflight.delete(work));
    this.inflight.add(work);
    return work;
  }

  /** Stops taking new work (later interactions hear that the bot restarts) and waits for what runs. */
  async drain(timeoutMs: number): Promise<void> {
    this.closing = true;
    await within(Promise.allSettled([...this.inflight]), timeoutMs);
  }

  /** An interaction left unanswered because the bot is behind: counted, and one line at most every 10 s with how many so far. */
  private skip(interaction: Incoming, why: string): void {
    this.counts.tooLate++;
    this.metrics?.interaction(interaction.action.kind, 'too_late', 0);
    if (Date.now() - this.tooLateReported > 10_000) {
      this.tooLateReported = Date.now();
      this.logger.warn(
        { skipped: this.counts.tooLate, why },
        `interactions skipped, read too late to answer (over ${TOO_LATE_MS / 1000} s after Discord sent them, ${MAX_WAITING.toLocaleString('en-US')} waiting or ${MAX_INFLIGHT.toLocaleString('en-US')} in flight): the bot is behind`,
      );
    }
  }

  get busy(): number {
    return this.inflight.size;
  }

  /**
   * How late an interaction is read, from its snowflake's time. The host's clock may differ from
   * Discord's: the smallest delay seen counts as on time. That offset changes only when a window
   * ends, to the smallest delay seen in it: one old interaction (a replay after a quiet minute) is
   * judged against the offset before it, and cannot teach the router that old is on time. A host
   * clock that jumps ahead is learnt by the end of the next window.
   */
  private lateness(interaction: Incoming): number {
    const now = Date.now();
    const seen = now - interaction.createdTimestamp;
    if (now > this.offset.until) {
      if (this.offset.next !== Infinity) this.offset.ms = this.offset.next;
      this.offset.next = Infinity;
      this.offset.until = now + OFFSET_WINDOW_MS;
    }
    this.offset.next = Math.min(this.offset.next, seen);
    return seen - Math.min(this.offset.ms, this.offset.next);
  }

  private async dispatch(interaction: Incoming, readAt: number): Promise<Handled> {
    // Before anything runs or is learnt from it: an id taken already (a copy sent again) runs nothing.
    if (!(await this.ledger.take(interaction.id))) {
      this.counts.replayed++;
      this.metrics?.interaction(interaction.action.kind, 'replayed', 0);
      const alikeLeftOut = this.replayWarnings.take();
      if (alikeLeftOut !== undefined)
        this.logger.warn({ interaction: interaction.id, alikeLeftOut }, 'an interaction taken before came again: nothing was run');
      return 'replayed';
    }
    // Autocomplete is a lookup in memory (or a search with its own budget) and must answer at once;
    // commands and presses wait their turn, so that a burst of them cannot hold it back.
    const turn = interaction.action.kind === 'autocomplete' ? true : await this.turns.take();
    if (turn === FULL || this.lateness(interaction) > TOO_LATE_MS) {
      this.skip(interaction, turn === FULL ? `${MAX_WAITING} waiting` : 'read too late');
      return 'skipped';
    }
    const started = performance.now();
    const log: Record<string, unknown> = { interaction: interaction.id, type: interaction.type };
    const { action, answer } = interaction;
    try {
      switch (action.kind) {
        case 'autocomplete':
          log.command = describe(action.input);
          log.focused = action.input.focused.name;
          // When the frame was read, the answer made and sent, and when it went out on its connection,
          // on the host's monotonic clock (the bench sets them beside the Discord double's timestamps
          // to tell the bot's time from the rest).
          log.readAt = readAt;
          log.choices = await this.autocomplete(action.input, answer, interaction.id, log);
          if (answer.writtenAt !== undefined) log.writtenAt = answer.writtenAt;
          break;
        case 'command':
          log.command = describe(action.input);
          Object.assign(log, await this.command(action.input, answer, started));
          break;
        case 'component':
          log.component = action.customId;
          Object.assign(log, await this.component(action, answer, started));
          break;
      }
      log.ms = Math.round((performance.now() - started) * 10) / 10;
      this.logger.info(log, 'interaction');
      this.observe(action.kind, typeof log.outcome === 'string' ? log.outcome : 'answered', started);
    } catch (e) {
      this.counts.failed++;
      log.ms = Math.round((performance.now() - started) * 10) / 10;
      this.observe(action.kind, await this.fail(interaction, e, log), started);
    }
    return 'handled';
  }

  private observe(kind: InteractionKind, outcome: string, started: number): void {
    this.metrics?.interaction(kind, outcome, (performance.now() - started) / 1000);
  }

  /** The deps of one interaction read at `started`: its answer waits for a card only within its budget. */
  private answering(started: number): Deps {
    return { ...this.deps, cardWaitMs: () => cardWaitMs(performance.now() - started) };
  }

  private async command(input: CommandInput, answer: Answer, started: number): Promise<Record<string, unknown>> {
    this.counts.commands++;
    if (this.closing) {
      await answer.reply(notice(say(input.locale, 'bot.restarting')));
      return { outcome: 'closing' };
    }
    const command = findCommand(input.name);
    if (!command) {
      await answer.reply(notice(say(input.locale, 'bot.unknownCommand')));
      return { outcome: 'unknown command' };
    }
    const work = command.execute(input, this.answering(started));
    const quick = await within(work, DIRECT_REPLY_BUDGET_MS);
    if (quick.done) {
      await answer.reply(quick.value);
      return { outcome: quick.value.ephemeral ? 'notice' : 'reply', cache: quick.value.source };
    }
    // Slow: the network. Deferring costs a second REST call, so only this path pays it.
    this.counts.deferred++;
    await answer.defer(false);
    const reply = await work;
    if (reply.ephemeral) {
      // A deferred reply is public; an error belongs to the invoker alone.
      await answer.deleteOriginal();
      await answer.followUp(reply);
    } else {
      await answer.edit(reply);
    }
    return { outcome: 'deferred', cache: reply.source };
  }

  private async autocomplete(input: AutocompleteInput, answer: Answer, id: string, log: Record<string, unknown>): Promise<number> {
    this.counts.autocompletes++;
    const command = findCommand(input.name);
    // What was typed, as the choice of last resort: its value exactly as typed (a clipped one would
    // look up someone else), so only when it fits a choice's value.
    const typed = input.focused.value;
    const echo: Choice[] =
      typed && typed.length <= LIMITS.choiceValue && input.focused.name !== 'platform' && input.focused.name !== 'segment'
        ? [{ name: clip(typed, LIMITS.choiceName), value: typed }]
        : [];
    let choices: Choice[] = echo;
    if (command?.autocomplete && !this.closing) {
      try {
        const result = await within(command.autocomplete(input, this.deps), AUTOCOMPLETE_BUDGET_MS);
        if (result.done) choices = result.value;
      } catch (e) {
        this.logger.warn({ interaction: id, err: (e as Error).message }, 'autocomplete failed; echoing what was typed');
      }
    }
    const seen = new Set<string>();
    // Names shown by the one rule for a player's text (no bidi or control characters); a choice left
    // with no name to show is dropped, since Discord refuses the whole answer for one empty name.
    const clean = choices
      .map((c) => ({ name: clip(withoutControls(c.name || c.value), LIMITS.choiceName), value: c.value }))
      .filter((c) => c.name.length > 0 && c.value.length > 0 && c.value.length <= LIMITS.choiceValue && !seen.has(c.value) && seen.add(c.value))
      .slice(0, LIMITS.choices);
    // An integer option's choices are numbers, or Discord refuses the whole answer: those that are none go.
    const sent: SentChoice[] = input.focused.numeric
      ? clean.flatMap((c) => (/^-?\d{1,15}$/.test(c.value) ? [{ name: c.name, value: Number(c.value) }] : []))
      : clean;
    log.sentAt = monotonicMs();
    await answer.choices(sent);
    return sent.length;
  }

  private async component(pressed: Extract<Action, { kind: 'component' }>, answer: Answer, started: number): Promise<Record<string, unknown>> {
    const deps = this.answering(started);
    this.counts.components++;
    const action = parseCustomId(pressed.customId);
    // A control of another version of the bot (or made up): told, like an expired one, never left unanswered.
    if (!action) {
      await answer.reply(notice(say(pressed.locale, 'bot.expired')));
      return { outcome: 'not ours' };
    }
    // The view is read within the reply budget. A store slower than that has the press acknowledged
    // first, before the view says whose it is: reading it, then saving another's copy, each up to the
    // store's timeout, after a turn's wait, came near Discord's 3 s. Whose message it is, Discord
    // says with the press (who ran the command that made it): the owner's press is deferred as an
    // update of the message, anyone else's as a private reply; a press on a message that does not
    // say goes privately.
    const loading = this.deps.views.load(action.stateId);
    const early = await within(loading, DIRECT_REPLY_BUDGET_MS - (performance.now() - started));
    let deferred: Deferred;
    if (!early.done) {
      this.counts.deferred++;
      const likelyOwner = pressed.messageOwnerId !== undefined && pressed.messageOwnerId === pressed.userId;
      deferred = action.kind !== 'open' && likelyOwner ? 'update' : 'reply';
      if (deferred === 'update') await answer.deferUpdate();
      else await answer.defer(!likelyOwner);
    }
    const view = early.done ? early.value : await loading;
    if (!view || this.closing) {
      await this.tell(answer, notice(say(pressed.locale, view ? 'bot.restarting' : 'bot.expired')), {});
      return { outcome: 'expired' };
    }
    const owner = pressed.userId === view.ownerId;
    const locale = pressed.locale;
    // A menu: `open` answers with what was picked in a message of its own; `switch` turns the
    // owner's message into the pick (anyone else gets it privately).
    if (action.kind === 'open' || action.kind === 'switch') {
      const value = pressed.values?.[0];
      if (!value) {
        // Acknowledged, the message left as it is: Discord would otherwise show the press as failed.
        if (deferred === undefined) await answer.deferUpdate();
        // Deferred as a reply already: its "thinking…" goes, nothing said.
        else if (deferred === 'reply') await answer.deleteOriginal();
        return { outcome: 'nothing picked' };
      }
      if (action.kind === 'open')
        return this.answerComponent(answer, openFromView(view, action.stateId, value, deps, locale), 'reply', !owner, started, deferred);
      return this.answerComponent(answer, switchFromView(view, value, pressed.userId, deps, locale), owner ? 'update' : 'reply', !owner, started, deferred);
    }
    // A way onward replaces the owner's message with the player's other view; anyone else gets it privately.
    if (action.kind === 'go')
      return this.answerComponent(answer, goFromView(view, action.to, pressed.userId, deps, locale), owner ? 'update' : 'reply', !owner, started, deferred);
    if (owner) return this.answerComponent(answer, renderView(view, action.stateId, action.page, deps, locale), 'update', false, started, deferred);
    // Someone else pressed: they get a view of their own instead of taking over the message.
    const own = { ...view, ownerId: pressed.userId };
    const ownId = await this.deps.views.save(own);
    return this.answerComponent(answer, renderView(own, ownId, action.page, deps, locale), 'reply', true, started, deferred);
  }

  /**
   * A notice, told as the interaction stands: the first answer; once acknowledged, a private
   * "thinking…" becomes it, and otherwise (after an update's defer, or a public "thinking…", taken
   * away: it would read as a failure to everyone) it follows for the user alone.
   */
  private async tell(answer: Answer, message: Reply, log: Record<string, unknown>): Promise<void> {
    if (!answer.acknowledged) return answer.reply(message);
    if (answer.thinkingPrivately) return answer.edit(message);
    if (answer.placeholder) await answer.deleteOriginal().catch((e: unknown) => this.untold(log, e, 'could not delete the "thinking…" message'));
    return answer.followUp(message);
  }

  /**
   * Answers a press with `work`, at once when it is ready within the reply budget counted from
   * `started` (reading the pressed view, and saving another's own copy, spend it too), else deferred.
   * A press `deferred` already (its view was slow to read) is answered in the deferred answer's
   * place: the message itself after an update's defer when the view is the presser's, else privately.
   */
  private async answerComponent(
    answer: Answer,
    work: Promise<Reply>,
    mode: 'update' | 'reply',
    privately: boolean,
    started: number,
    deferred?: Deferred,
  ): Promise<Record<string, unknown>> {
    if (deferred !== undefined) {
      let reply = await work;
      if (privately) reply = { ...reply, ephemeral: true };
      if (deferred === 'update') {
        if (mode === 'update' && !reply.ephemeral) await answer.edit(reply);
        else await answer.followUp(reply);
      } else if (answer.placeholder && reply.ephemeral) {
        // Deferred publicly for what turned out to be another's view: theirs alone.
        await answer.deleteOriginal();
        await answer.followUp(reply);
      } else await answer.edit(reply);
      return { outcome: mode, private: privately, cache: reply.source, deferredBeforeView: deferred };
    }
    const quick = await within(work, DIRECT_REPLY_BUDGET_MS - (performance.now() - started));
    let reply: Reply;
    if (quick.done) {
      reply = quick.value;
      if (privately) reply = { ...reply, ephemeral: true };
      if (mode === 'update' && !reply.ephemeral) await answer.update(reply);
      else await answer.reply(reply);
    } else {
      this.counts.deferred++;
      if (mode === 'update') await answer.deferUpdate();
      else await answer.defer(privately);
      reply = await work;
      if (privately) reply = { ...reply, ephemeral: true };
      if (mode === 'update' && reply.ephemeral) await answer.followUp(reply);
      else await answer.edit(reply);
    }
    return { outcome: mode, private: privately, cache: reply.source };
  }

  /** Tells the user and the log; returns the outcome counted for it. */
  private async fail(interaction: Incoming, error: unknown, log: Record<string, unknown>): Promise<'gone' | 'store_unavailable' | 'failed'> {
    if (error instanceof DiscordAPIError && typeof error.code === 'number' && IGNORED_CODES.has(error.code)) {
      this.logger.debug({ ...log, code: error.code }, 'interaction gone or already answered');
      return 'gone';
    }
    const store = error instanceof StoreUnavailableError;
    if (store) this.logger.warn({ ...log, err: (error.cause as Error | undefined)?.message ?? error.message }, 'link or view store unavailable');
    else this.logger.error({ ...log, err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) }, 'interaction failed');
    const outcome = store ? 'store_unavailable' : 'failed';
    const { action } = interaction;
    if (action.kind === 'autocomplete') return outcome;
    // Discord's REST did not take an answer in time: telling the user goes the same way, and would
    // hold the interaction (and its place among those in flight) for a deadline or two more.
    if (error instanceof AnswerDeadlineError) return outcome;
    const message = notice(say(action.kind === 'component' ? action.locale : action.input.locale, store ? error.told : 'bot.failed'));
    const { answer } = interaction;
    try {
      await this.tell(answer, message, log);
    } catch (e) {
      this.untold(log, e, 'could not tell the user that the interaction failed');
    }
    return outcome;
  }

  /** A failure to tell the user: quiet when the interaction is gone, a warning otherwise. */
  private untold(log: Record<string, unknown>, error: unknown, what: string): void {
    const code = error instanceof DiscordAPIError ? error.code : undefined;
    if (typeof code === 'number' && IGNORED_CODES.has(code)) this.logger.debug({ ...log, code }, 'interaction gone or already answered');
    else this.logger.warn({ ...log, code: code ?? null, err: error instanceof Error ? error.message : String(error) }, what);
  }
}
