// The gateway transport: discord.js interactions as the router's plain `Incoming`, answered through
// discord.js' own reply, defer, edit and follow-up calls.
import {
  MessageFlags,
  PermissionFlagsBits,
  type AutocompleteInteraction,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type CommandInteractionOption,
  type Interaction,
  type InteractionReplyOptions,
  type StringSelectMenuInteraction,
} from 'discord.js';

import type { CommandInput, OptionValue } from '../../commands/index.js';
import type { Reply } from '../embeds/index.js';
import type { Action, Answer, Incoming } from './router.js';

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
    canManageServer: interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false,
  };
}

type Repliable = ChatInputCommandInteraction | ButtonInteraction | StringSelectMenuInteraction;

function answerOf(interaction: Repliable | AutocompleteInteraction): Answer {
  const repliable = (): Repliable => {
    if (interaction.isAutocomplete()) throw new Error('an autocomplete interaction is answered with choices only');
    return interaction;
  };
  const component = (): ButtonInteraction | StringSelectMenuInteraction => {
    const i = repliable();
    if (i.isChatInputCommand()) throw new Error('only a component interaction updates its message');
    return i;
  };
  return {
    reply: async (reply) => void (await repliable().reply(toMessage(reply))),
    update: async (reply) => void (await component().update(toEdit(reply))),
    defer: async (ephemeral) => void (await repliable().deferReply(ephemeral ? { flags: MessageFlags.Ephemeral } : {})),
    deferUpdate: async () => void (await component().deferUpdate()),
    choices: async (choices) => {
      if (!interaction.isAutocomplete()) throw new Error('only an autocomplete interaction is answered with choices');
      await interaction.respond(choices);
    },
    edit: async (reply) => void (await repliable().editReply(toEdit(reply))),
    followUp: async (reply) => void (await repliable().followUp(toMessage(reply))),
    deleteOriginal: () => repliable().deleteReply(),
    get acknowledged() {
      return !interaction.isAutocomplete() && (interaction.deferred || interaction.replied);
    },
  };
}

/** A discord.js interaction as the router reads it; `undefined` for kinds the bot does not answer. */
export function fromGateway(interaction: Interaction): Incoming | undefined {
  let action: Action;
  let answer: Answer;
  if (interaction.isAutocomplete()) {
    const focused = interaction.options.getFocused(true);
    action = { kind: 'autocomplete', input: { ...toInput(interaction), focused: { name: focused.name, value: String(focused.value) } } };
    answer = answerOf(interaction);
  } else if (interaction.isChatInputCommand()) {
    action = { kind: 'command', input: toInput(interaction) };
    answer = answerOf(interaction);
  } else if (interaction.isButton() || interaction.isStringSelectMenu()) {
    action = { kind: 'component', customId: interaction.customId, values: interaction.isStringSelectMenu() ? interaction.values : undefined, userId: interaction.user.id, locale: interaction.locale };
    answer = answerOf(interaction);
  } else {
    return undefined;
  }
  return { id: interaction.id, type: interaction.type, createdTimestamp: interaction.createdTimestamp, action, answer };
}
