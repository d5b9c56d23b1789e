// Builders for the INTERACTION_CREATE payloads Discord sends (API v10). They are complete enough
// that discord.js builds its real interaction classes from them; fields it never reads are still
// present so that a bot reading raw payloads sees what Discord would send.
import type {
  APIApplicationCommandAutocompleteInteraction,
  APIChatInputApplicationCommandInteraction,
  APIChatInputApplicationCommandInteractionData,
  APIInteractionGuildMember,
  APIMessage,
  APIMessageComponentInteraction,
  APIMessageComponentInteractionData,
  APIUser,
  ChannelFlags,
  GuildMemberFlags,
  Locale,
  Snowflake,
} from 'discord.js';

import { APPLICATION_ID, DEFAULT_USER, DM_CHANNEL_ID, GUILD_CHANNEL_ID, GUILD_ID, apiUser, botMessage, interactionToken, snowflake } from './ids.js';

/**
 * What `dispatchInteraction` needs to track an interaction. Every builder's result satisfies it; a
 * hand-made payload only has to carry these (plus whatever the bot reads).
 */
export interface APIInteractionLike {
  id: string;
  token: string;
  type: number;
}

export type OptionValue = string | number | boolean;

interface Where {
  /** The invoking user; defaults to a fixed user "ash". */
  user?: { id: Snowflake; username: string };
  /** The guild the interaction comes from; `null` for a DM. Defaults to a fixed guild. */
  guildId?: Snowflake | null;
  /** Defaults to a fixed guild text channel, or a fixed DM channel when `guildId` is null. */
  channelId?: Snowflake;
  locale?: string;
  /** The server's language (its community setting); `en-US`, Discord's default, unless given. */
  guildLocale?: string;
  /** The invoking member's permissions in the channel (a bitfield as a decimal string); none ('0') by default. */
  permissions?: string;
}

export interface CommandInput extends Where {
  command?: string;
  /** The registered command's id; a fresh snowflake otherwise. */
  commandId?: Snowflake;
  group?: string;
  subcommand?: string;
  options?: Record<string, OptionValue>;
}

export interface AutocompleteInput extends CommandInput {
  /** The option the user is typing in; added with an empty string when not in `options`. */
  focused: string;
}

/** Button (2), string select (3), user (5), role (6), mentionable (7), channel (8) select. */
export type ComponentKind = 2 | 3 | 5 | 6 | 7 | 8;

export interface ComponentInput extends Where {
  customId: string;
  /** Defaults to a button, or to a string select when `values` are given. */
  componentType?: ComponentKind;
  /** The selected values of a select menu. */
  values?: string[];
  /** Id of the message the component is on; a fresh snowflake otherwise. */
  messageId?: Snowflake;
  /** Overrides for the message the component is on (content, embeds, components the bot sent). */
  message?: Partial<APIMessage>;
}

// Discord's default upload limit for a server without boosts.
const ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;
// The permissions Discord reports for the app in a plain text channel where it may talk and embed.
const APP_PERMISSIONS = '2248473465835073';
// Flag enums have no member for "none", and Discord sends 0.
const NO_CHANNEL_FLAGS = 0 as ChannelFlags;

type Placement = Pick<
  APIChatInputApplicationCommandInteraction,
  'guild_id' | 'guild' | 'member' | 'user' | 'channel' | 'channel_id' | 'guild_locale' | 'locale' | 'context'
>;

function placement(where: Where): Placement {
  const user = apiUser(where.user ?? DEFAULT_USER);
  const locale = (where.locale ?? 'en-US') as Locale;
  const guildId = where.guildId === undefined ? GUILD_ID : where.guildId;
  if (guildId === null) {
    const channelId = where.channelId ?? DM_CHANNEL_ID;
    return {
      user,
      channel: { id: channelId, type: 1, recipients: [user], last_message_id: null, flags: NO_CHANNEL_FLAGS },
      channel_id: channelId,
      locale,
      context: 1,
    };
  }
  const channelId = where.channelId ?? GUILD_CHANNEL_ID;
  const guildLocale = (where.guildLocale ?? 'en-US') as Locale;
  const member: APIInteractionGuildMember = {
    user,
    nick: null,
    avatar: null,
    banner: null,
    roles: [],
    premium_since: null,
    joined_at: '2024-01-01T00:00:00.000000+00:00',
    deaf: false,
    mute: false,
    flags: 0 as GuildMemberFlags,
    pending: false,
    communication_disabled_until: null,
    permissions: where.permissions ?? '0',
  };
  return {
    guild_id: guildId,
    guild: { id: guildId, locale: guildLocale, features: [] },
    member,
    channel: {
      id: channelId,
      type: 0,
      guild_id: guildId,
      name: 'general',
      position: 0,
      permission_overwrites: [],
      nsfw: false,
      topic: null,
      last_message_id: null,
      rate_limit_per_user: 0,
      parent_id: null,
      flags: NO_CHANNEL_FLAGS,
    },
    channel_id: channelId,
    locale,
    guild_locale: guildLocale,
    context: 0,
  };
}

function envelope(where: Where) {
  const guildId = where.guildId === undefined ? GUILD_ID : where.guildId;
  // Who installed the app where it is used: the guild (0), or the user for a DM use of a user install (1).
  const owners = guildId === null ? { '1': (where.user ?? DEFAULT_USER).id } : { '0': guildId };
  return {
    id: snowflake(),
    application_id: APPLICATION_ID,
    token: interactionToken(),
    version: 1 as const,
    app_permissions: APP_PERMISSIONS,
    entitlements: [],
    authorizing_integration_owners: owners,
    attachment_size_limit: ATTACHMENT_SIZE_LIMIT,
    ...placement(where),
  };
}

interface LeafOption {
  name: string;
  type: 3 | 4 | 5 | 10;
  value: OptionValue;
  focused?: true;
}

function leaf(name: string, value: OptionValue, focused: boolean): LeafOption {
  // Discord sends what the user has typed so far as a string in a focused option, whatever its type.
  const type = typeof value === 'string' ? 3 : typeof value === 'boolean' ? 5 : Number.isInteger(value) ? 4 : 10;
  return focused ? { name, type, value, focused: true } : { name, type, value };
}

function commandData(input: CommandInput, focused?: string) {
  if (input.group !== undefined && input.subcommand === undefined) {
    throw new Error('a subcommand group needs a subcommand: Discord never sends a bare group');
  }
  const values = { ...input.options };
  if (focused !== undefined && !(focused in values)) values[focused] = '';
  const leaves = Object.entries(values).map(([name, value]) => leaf(name, value, name === focused));
  let options: unknown[] = leaves;
  if (input.subcommand !== undefined) options = [{ name: input.subcommand, type: 1, options }];
  if (input.group !== undefined) options = [{ name: input.group, type: 2, options }];
  const data: APIChatInputApplicationCommandInteractionData = {
    id: input.commandId ?? snowflake(),
    name: input.command ?? 'stats',
    type: 1,
    options: options as APIChatInputApplicationCommandInteractionData['options'],
  };
  return data;
}

/** A slash command invocation (INTERACTION_CREATE type 2, APPLICATION_COMMAND). */
export function chatInput(input: CommandInput = {}): APIChatInputApplicationCommandInteraction {
  return { ...envelope(input), type: 2, data: commandData(input) };
}

/** What Discord sends while the user types in an autocomplete option (type 4). */
export function autocomplete(input: AutocompleteInput): APIApplicationCommandAutocompleteInteraction {
  const data = commandData(input, input.focused);
  return {
    ...envelope(input),
    type: 4,
    data: { ...data, options: data.options as APIApplicationCommandAutocompleteInteraction['data']['options'] },
  };
}

function componentOnMessage(customId: string, kind: ComponentKind, values: string[]): unknown {
  if (kind === 2) return { type: 2, id: 2, style: 1, label: customId, custom_id: customId };
  if (kind === 3) {
    return { type: 3, id: 2, custom_id: customId, options: values.map((v) => ({ label: v, value: v })), min_values: 1, max_values: 1 };
  }
  return { type: kind, id: 2, custom_id: customId, min_values: 1, max_values: 1 };
}

/** A click on a button or a choice in a select menu on one of the bot's messages (type 3). */
export function component(input: ComponentInput): APIMessageComponentInteraction {
  const values = input.values ?? [];
  const kind: ComponentKind = input.componentType ?? (input.values ? 3 : 2);
  const base = envelope(input);
  const channelId = base.channel_id ?? GUILD_CHANNEL_ID;
  const invoker: APIUser | undefined = base.member?.user ?? base.user;
  const message: APIMessage = {
    ...botMessage({
      id: input.messageId ?? snowflake(Date.now() - 60_000),
      channelId,
      type: 20,
      components: [{ type: 1, id: 1, components: [componentOnMessage(input.customId, kind, values)] }],
    }),
    ...(invoker
      ? {
          interaction_metadata: {
            id: snowflake(Date.now() - 60_000),
            type: 2,
            user: invoker,
            authorizing_integration_owners: base.authorizing_integration_owners,
          },
        }
      : {}),
    ...input.message,
  };
  const data = (
    kind === 2
      ? { custom_id: input.customId, component_type: 2 }
      : kind === 3
        ? { custom_id: input.customId, component_type: 3, values }
        : { custom_id: input.customId, component_type: kind, values, resolved: {} }
  ) as APIMessageComponentInteractionData;
  return { ...base, type: 3, data, message };
}
