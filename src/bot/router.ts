// The single error boundary of the bot: every interaction comes through here. It turns discord.js
// objects into the commands' plain inputs, decides reply vs defer + edit vs follow-up, makes
// user-facing errors ephemeral, logs each interaction, and never lets a failure escape.
import {
  DiscordAPIError,
  MessageFlags,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type CommandInteractionOption,
  type Interaction,
  type InteractionReplyOptions,
  type StringSelectMenuInteraction,
} from 'discord.js';
import type { Logger } from 'pino';

import { StoreUnavailableError, findCommand, goFromView, openFromView, renderView, type Choice, type CommandInput, type Deps, type OptionValue } from '../../commands/index.js';
import { within } from '../lookup/within.js';
import { LIMITS, clip, notice, parseCustomId, type Reply } from '../embeds/index.js';
import { say } from '../locales/index.js';
import type { InteractionKind, InteractionObserver } from './metrics.js';

/**
 * An answer ready within this budget (a cache hit, the embedded service, a quick service) is the
 * direct reply; only slower ones defer. Deferring costs a second REST call, and discord.js holds
 * webhook edits and follow-ups to its global limit of 50 a second: a burst of deferrals queues
 * behind it. 800 ms leaves Discord's 3 s ample room for the reply itself.
 */
export const DIRECT_REPLY_BUDGET_MS = 800;
/** Autocomplete must answer within Discord's 3 s, network included: its whole budget. */
export const AUTOCOMPLETE_BUDGET_MS = 2_000;

/**
 * An interaction read this late (after Discord sent it) can no longer be answered: Discord takes a
 * first answer within 3 s. Skipping it costs nothing the user would see and lets a process that
 * fell behind (a CPU spike, a long pause) catch up instead of answering only expired ones.
 */
export const TOO_LATE_MS = 2_800;

/** Discord's "Unknown interaction" (expired or answered elsewhere) and "already acknowledged". */
const IGNORED_CODES = new Set([10062, 40060]);

/**
 * An edit of a message already sent (ephemeral or not was decided when it was sent). No mentions
 * ever. Its files replace the message's (`attachments: []`), so a page without a card drops the old one.
 */
export function toEdit(reply: Reply) {
  const files = (reply.files ?? []).map((f) => ({ attachment: f.data, name: f.name }));
  return { content: reply.content ?? '', embeds: reply.embeds, components: reply.components, allowedMentions: { parse: [] }, files, attachments: [] };
}

/** The message options of a reply: no mentions ever, ephemeral by flag. */
export function toMessage(reply: Reply): InteractionReplyOptions {
  return { ...toEdit(reply), ...(reply.ephemeral ? { flags: MessageFlags.Ephemeral } : {}) };
}

function leafOptions(options: readonly CommandInteractionOption[], into: Record<string, OptionValue> = {}): Record<string, OptionValue> {
  for (const o of options) {
    if (o.options) leafOptions(o.options, into);
    else if (o.value !== undefined && o.value !== null) into[o.name] = o.value;
  }
  return into;
}

/** What the user typed, as the commands read it. */
export function toInput(interaction: ChatInputCommandInteraction | AutocompleteInteraction): CommandInput {
  return {
    name: interaction.commandName,
    group: interaction.options.getSubcommandGroup(false),
    subcommand: interaction.options.getSubcommand(false),
    options: leafOptions(interaction.options.data),
    userId: interaction.user.id,
    guildId: interaction.guildId,
    locale: interaction.locale,
  };
}

const describe = (input: CommandInput) => [input.name, input.group, input.subcommand].filter(Boolean).join(' ');

/** The kind an interaction is counted under; undefined for those the bot does not answer. */
function kindOf(interaction: Interaction): InteractionKind | undefined {
  if (interaction.isAutocomplete()) return 'autocomplete';
  if (interaction.isChatInputCommand()) return 'command';
  if (interaction.isButton() || interaction.isStringSelectMenu()) return 'component';
  return undefined;
}

export class Router {
  private closing = false;
  private readonly inflight = new Set<Promise<void>>();
  /** Interactions answered, by outcome: for the log and the tests. */
  readonly counts = { commands: 0, autocompletes: 0, components: 0, deferred: 0, failed: 0, tooLate: 0 };
  /** The smallest delay seen lately between Discord's timestamp and reading it: the clocks' offset. */
  private offset = { ms: Infinity, until: 0 };
  private tooLateReported = 0;

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
  ) {}

  /** Handles one interaction; never rejects. */
  handle(interaction: Interaction): Promise<void> {
    const work = this.dispatch(interaction).finally(() => this.inflight.delete(work));
    this.inflight.add(work);
    return work;
  }

  /** Stops taking new work (later interactions hear that the bot restarts) and waits for what runs. */
  async drain(timeoutMs: number): Promise<void> {
    this.closing = true;
    await within(Promise.allSettled([...this.inflight]), timeoutMs);
  }

  get busy(): number {
    return this.inflight.size;
  }

  /**
   * How late an interaction is read, from its snowflake's time. The host's clock may differ from
   * Discord's: the smallest delay of the last minute counts as on time.
   */
  private lateness(interaction: Interaction): number {
    const now = Date.now();
    const seen = now - interaction.createdTimestamp;
    if (seen < this.offset.ms || now > this.offset.until) this.offset = { ms: seen, until: now + 60_000 };
    return seen - this.offset.ms;
  }

  private async dispatch(interaction: Interaction): Promise<void> {
    if (this.lateness(interaction) > TOO_LATE_MS) {
      this.counts.tooLate++;
      const kind = kindOf(interaction);
      if (kind) this.metrics?.interaction(kind, 'too_late', 0);
      // One line at most every 10 s: how many were skipped so far.
      if (Date.now() - this.tooLateReported > 10_000) {
        this.tooLateReported = Date.now();
        this.logger.warn({ skipped: this.counts.tooLate }, 'interactions read too late to answer (over 2.8 s after Discord sent them): the bot is behind');
      }
      return;
    }
    const started = performance.now();
    const log: Record<string, unknown> = { interaction: interaction.id, type: interaction.type };
    try {
      if (interaction.isAutocomplete()) {
        log.command = describe(toInput(interaction));
        log.focused = interaction.options.getFocused(true).name;
        log.choices = await this.autocomplete(interaction);
      } else if (interaction.isChatInputCommand()) {
        log.command = describe(toInput(interaction));
        Object.assign(log, await this.command(interaction));
      } else if (interaction.isButton() || interaction.isStringSelectMenu()) {
        log.component = interaction.customId;
        Object.assign(log, await this.component(interaction));
      } else {
        return;
      }
      log.ms = Math.round((performance.now() - started) * 10) / 10;
      this.logger.info(log, 'interaction');
      this.observe(interaction, typeof log.outcome === 'string' ? log.outcome : 'answered', started);
    } catch (e) {
      this.counts.failed++;
      log.ms = Math.round((performance.now() - started) * 10) / 10;
      this.observe(interaction, await this.fail(interaction, e, log), started);
    }
  }

  private observe(interaction: Interaction, outcome: string, started: number): void {
    if (!this.metrics) return;
    const kind = kindOf(interaction);
    if (kind) this.metrics.interaction(kind, outcome, (performance.now() - started) / 1000);
  }

  private async command(interaction: ChatInputCommandInteraction): Promise<Record<string, unknown>> {
    this.counts.commands++;
    if (this.closing) {
      await interaction.reply(toMessage(notice(say(interaction.locale, 'bot.restarting'))));
      return { outcome: 'closing' };
    }
    const input = toInput(interaction);
    const command = findCommand(input.name);
    if (!command) {
      await interaction.reply(toMessage(notice(say(interaction.locale, 'bot.unknownCommand'))));
      return { outcome: 'unknown command' };
    }
    const work = command.execute(input, this.deps);
    const quick = await within(work, DIRECT_REPLY_BUDGET_MS);
    if (quick.done) {
      await interaction.reply(toMessage(quick.value));
      return { outcome: quick.value.ephemeral ? 'notice' : 'reply', cache: quick.value.source };
    }
    // Slow: the network. Deferring costs a second REST call, so only this path pays it.
    this.counts.deferred++;
    await interaction.deferReply();
    const reply = await work;
    if (reply.ephemeral) {
      // A deferred reply is public; an error belongs to the invoker alone.
      await interaction.deleteReply();
      await interaction.followUp(toMessage(reply));
    } else {
      await interaction.editReply(toEdit(reply));
    }
    return { outcome: 'deferred', cache: reply.source };
  }

  private async autocomplete(interaction: AutocompleteInteraction): Promise<number> {
    this.counts.autocompletes++;
    const input = { ...toInput(interaction), focused: { name: interaction.options.getFocused(true).name, value: String(interaction.options.getFocused(true).value) } };
    const command = findCommand(input.name);
    const echo: Choice[] = input.focused.value && input.focused.name !== 'platform' && input.focused.name !== 'segment' ? [{ name: clip(input.focused.value, LIMITS.choiceName), value: clip(input.focused.value, LIMITS.choiceValue) }] : [];
    let choices: Choice[] = echo;
    if (command?.autocomplete && !this.closing) {
      try {
        const result = await within(command.autocomplete(input, this.deps), AUTOCOMPLETE_BUDGET_MS);
        if (result.done) choices = result.value;
      } catch (e) {
        this.logger.warn({ interaction: interaction.id, err: (e as Error).message }, 'autocomplete failed; echoing what was typed');
      }
    }
    const seen = new Set<string>();
    const clean = choices
      .filter((c) => c.value.length > 0 && c.value.length <= LIMITS.choiceValue && !seen.has(c.value) && seen.add(c.value))
      .slice(0, LIMITS.choices)
      .map((c) => ({ name: clip(c.name || c.value, LIMITS.choiceName), value: c.value }));
    await interaction.respond(clean);
    return clean.length;
  }

  private async component(interaction: ButtonInteraction | StringSelectMenuInteraction): Promise<Record<string, unknown>> {
    this.counts.components++;
    const action = parseCustomId(interaction.customId);
    if (!action) return { outcome: 'not ours' };
    const view = await this.deps.views.load(action.stateId);
    if (!view || this.closing) {
      await interaction.reply(toMessage(notice(say(interaction.locale, view ? 'bot.restarting' : 'bot.expired'))));
      return { outcome: 'expired' };
    }
    const owner = interaction.user.id === view.ownerId;
    const locale = interaction.locale;
    if (action.kind === 'open') {
      const value = interaction.isStringSelectMenu() ? interaction.values[0] : undefined;
      if (!value) return { outcome: 'nothing picked' };
      return this.answerComponent(interaction, openFromView(view, action.stateId, value, this.deps, locale), 'reply', !owner);
    }
    // A way onward replaces the owner's message with the player's other view; anyone else gets it privately.
    if (action.kind === 'go') return this.answerComponent(interaction, goFromView(view, action.to, interaction.user.id, this.deps, locale), owner ? 'update' : 'reply', !owner);
    if (owner) return this.answerComponent(interaction, renderView(view, action.stateId, action.page, this.deps, locale), 'update', false);
    // Someone else pressed: they get a view of their own instead of taking over the message.
    const own = { ...view, ownerId: interaction.user.id };
    const ownId = await this.deps.views.save(own);
    return this.answerComponent(interaction, renderView(own, ownId, action.page, this.deps, locale), 'reply', true);
  }

  private async answerComponent(
    interaction: ButtonInteraction | StringSelectMenuInteraction,
    work: Promise<Reply>,
    mode: 'update' | 'reply',
    privately: boolean,
  ): Promise<Record<string, unknown>> {
    const quick = await within(work, DIRECT_REPLY_BUDGET_MS);
    let reply: Reply;
    if (quick.done) {
      reply = quick.value;
      if (privately) reply = { ...reply, ephemeral: true };
      if (mode === 'update' && !reply.ephemeral) await interaction.update(toEdit(reply));
      else await interaction.reply(toMessage(reply));
    } else {
      this.counts.deferred++;
      if (mode === 'update') await interaction.deferUpdate();
      else await interaction.deferReply(privately ? { flags: MessageFlags.Ephemeral } : {});
      reply = await work;
      if (privately) reply = { ...reply, ephemeral: true };
      if (mode === 'update' && reply.ephemeral) await interaction.followUp(toMessage(reply));
      else await interaction.editReply(toEdit(reply));
    }
    return { outcome: mode, private: privately, cache: reply.source };
  }

  /** Tells the user and the log; returns the outcome counted for it. */
  private async fail(interaction: Interaction, error: unknown, log: Record<string, unknown>): Promise<'gone' | 'store_unavailable' | 'failed'> {
    if (error instanceof DiscordAPIError && typeof error.code === 'number' && IGNORED_CODES.has(error.code)) {
      this.logger.debug({ ...log, code: error.code }, 'interaction gone or already answered');
      return 'gone';
    }
    const store = error instanceof StoreUnavailableError;
    if (store) this.logger.warn({ ...log, err: (error.cause as Error | undefined)?.message ?? error.message }, 'link or view store unavailable');
    else this.logger.error({ ...log, err: error instanceof Error ? { message: error.message, stack: error.stack } : String(error) }, 'interaction failed');
    const outcome = store ? 'store_unavailable' : 'failed';
    if (!interaction.isRepliable() || interaction.isAutocomplete()) return outcome;
    const message = toMessage(notice(say(interaction.locale, store ? error.told : 'bot.failed')));
    try {
      if (interaction.deferred || interaction.replied) await interaction.followUp(message);
      else await interaction.reply(message);
    } catch {
      // The interaction is gone: nothing more to tell the user.
    }
    return outcome;
  }
}
