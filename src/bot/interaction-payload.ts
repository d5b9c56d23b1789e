// Discord's interaction payload (the JSON of an INTERACTION_CREATE dispatch on the gateway, or of a
// signed POST to the interactions endpoint) read into what the router takes: what the user did,
// who did it, where and in which language. One reading for both transports, so that a command
// means the same whichever way it came; discord.js' interaction objects are not built at all.
import { PermissionFlagsBits, SnowflakeUtil } from 'discord.js';

import type { CommandInput, OptionValue } from '../../commands/index.js';
import type { Action } from './router.js';

/** The envelope's fields the bot reads, checked (what else Discord sends is left alone). */
export interface RawInteraction {
  id: string;
  application_id: string;
  type: number;
  token?: string | undefined;
  guild_id?: string | undefined;
  /** The member's permissions in the channel, as a decimal bit set (Discord sends them with every guild interaction). */
  member?: { user: { id: string }; permissions?: string | undefined } | undefined;
  user?: { id: string } | undefined;
  locale?: string | undefined;
  /** The server's language (its community setting; `en-US` where none is set), in a server. */
  guild_locale?: string | undefined;
  data?: unknown;
  /** A component's: who ran the interaction that made the message it is on (its `interaction_metadata`). */
  messageOwner?: string | undefined;
}

// Read by hand, not by a schema library: every interaction passes here, and a generic validator
// was a twentieth of the process under load. Absent and null read alike.
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SNOWFLAKE = /^\d{1,20}$/;
const PERMISSIONS = /^\d{1,30}$/;
const isSnowflake = (v: unknown): v is string => typeof v === 'string' && SNOWFLAKE.test(v);
/** `undefined` for absent or null, `false` for a wrong shape, else the value. */
function optional<T>(v: unknown, ok: (v: unknown) => v is T): T | undefined | false {
  if (v === undefined || v === null) return undefined;
  return ok(v) ? v : false;
}
const isString = (v: unknown): v is string => typeof v === 'string';
const isToken = (v: unknown): v is string => typeof v === 'string' && v.length >= 1 && v.length <= 1_000;
const isLocale = (v: unknown): v is string => typeof v === 'string' && v.length <= 20;
const isUser = (v: unknown): v is { id: string } => isObject(v) && isSnowflake(v.id);

/** Discord's interaction types this bot reads. */
export const InteractionTypes = { ping: 1, command: 2, component: 3, autocomplete: 4 } as const;

/** Whether a member's permission bits (Discord's decimal string) include Manage Server. */
const manageServer = (permissions: string | undefined): boolean => permissions !== undefined && (BigInt(permissions) & PermissionFlagsBits.ManageGuild) !== 0n;

/** When Discord made the interaction, from its snowflake id. */
export const createdAt = (id: string): number => SnowflakeUtil.timestampFrom(id);

interface ReadOptions {
  group: string | null;
  subcommand: string | null;
  values: Record<string, OptionValue>;
  focused?: { name: string; value: string; numeric?: boolean };
}

/** The leaf options, with the subcommand group and subcommand they sit under; undefined when malformed. */
function readOptions(options: unknown): ReadOptions | undefined {
  const out: ReadOptions = { group: null, subcommand: null, values: {} };
  const walk = (list: unknown, depth: number): boolean => {
    if (list === undefined || list === null) return true;
    // Discord nests a group, a subcommand, then options: three levels at most.
    if (!Array.isArray(list) || depth > 3) return false;
    for (const o of list as unknown[]) {
      if (!isObject(o) || typeof o.name !== 'string' || typeof o.type !== 'number') return false;
      if (o.type === 2) out.group = o.name;
      if (o.type === 1) out.subcommand = o.name;
      const { value, focused } = o;
      if (focused !== undefined && focused !== null && typeof focused !== 'boolean') return false;
      if (o.options !== undefined && o.options !== null) {
        if (!walk(o.options, depth + 1)) return false;
      } else if (value !== undefined && value !== null) {
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false;
        out.values[o.name] = value;
        // An integer or number option (4, 10) takes choices whose values are numbers.
        if (focused) out.focused = { name: o.name, value: String(value), ...(o.type === 4 || o.type === 10 ? { numeric: true } : {}) };
      }
    }
    return true;
  };
  return walk(options, 0) ? out : undefined;
}

/** The interaction's envelope, or undefined when the JSON is not one. */
export function readEnvelope(json: unknown): RawInteraction | undefined {
  if (!isObject(json)) return undefined;
  const { id, application_id: applicationId, type, data } = json;
  if (!isSnowflake(id) || !isSnowflake(applicationId) || !Number.isInteger(type)) return undefined;
  const token = optional(json.token, isToken);
  const guildId = optional(json.guild_id, isSnowflake);
  const user = optional(json.user, isUser);
  const locale = optional(json.locale, isLocale);
  if (token === false || guildId === false || user === false || locale === false) return undefined;
  let member: RawInteraction['member'];
  if (json.member !== undefined && json.member !== null) {
    const m = json.member;
    if (!isObject(m) || !isUser(m.user)) return undefined;
    const permissions = optional(m.permissions, (v): v is string => isString(v) && PERMISSIONS.test(v));
    if (permissions === false) return undefined;
    member = { user: { id: m.user.id }, permissions };
  }
  // The server's language only sets the language of what the bot posts for the server (the feed): one it cannot read is left out, not refused.
  const guildLocale = isLocale(json.guild_locale) ? json.guild_locale : undefined;
  return {
    id,
    application_id: applicationId,
    type: type as number,
    token,
    guild_id: guildId,
    member,
    user: user && { id: user.id },
    locale,
    guild_locale: guildLocale,
    data,
    messageOwner: messageOwnerOf(json.message),
  };
}

/**
 * Who ran the interaction that made a component's message: `interaction_metadata.user` (or the
 * older `interaction.user`). Only a hint (a press is answered before its view is read when the view
 * store is slow), so a message without it, or with it in another shape, reads as unknown, never as
 * a malformed interaction.
 */
function messageOwnerOf(message: unknown): string | undefined {
  if (!isObject(message)) return undefined;
  for (const field of [message.interaction_metadata, message.interaction]) {
    if (isObject(field) && isObject(field.user) && isSnowflake(field.user.id)) return field.user.id;
  }
  return undefined;
}

/** What the user did, or why the payload cannot be read. */
export function actionOf(raw: RawInteraction): Action | string {
  const userId = raw.member?.user.id ?? raw.user?.id;
  if (!userId) return 'no user';
  const data = raw.data;
  if (raw.type === InteractionTypes.command || raw.type === InteractionTypes.autocomplete) {
    if (!isObject(data) || typeof data.name !== 'string' || data.name.length > 32) return 'malformed command data';
    const read = readOptions(data.options);
    if (!read) return 'malformed command data';
    const input: CommandInput = {
      name: data.name,
      group: read.group,
      subcommand: read.subcommand,
      options: read.values,
      userId,
      guildId: raw.guild_id ?? null,
      locale: raw.locale,
      guildLocale: raw.guild_locale,
      canManageServer: manageServer(raw.member?.permissions),
    };
    if (raw.type === InteractionTypes.command) return { kind: 'command', input };
    return { kind: 'autocomplete', input: { ...input, focused: read.focused ?? { name: '', value: '' } } };
  }
  if (raw.type === InteractionTypes.component) {
    if (!isObject(data) || typeof data.custom_id !== 'string' || data.custom_id.length > 100 || typeof data.component_type !== 'number')
      return 'malformed component data';
    const values = optional(data.values, (v): v is string[] => Array.isArray(v) && v.every(isString));
    if (values === false) return 'malformed component data';
    return {
      kind: 'component',
      customId: data.custom_id,
      values: data.component_type === 3 ? values : undefined,
      userId,
      locale: raw.locale,
      messageOwnerId: raw.messageOwner,
    };
  }
  return `interaction type ${raw.type} is not answered by this bot`;
}
