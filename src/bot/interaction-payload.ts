// Discord's interaction payload (the JSON of an INTERACTION_CREATE dispatch on the gateway, or of a
// signed POST to the interactions endpoint) read into what the router takes: what the user did,
// who did it, where and in which language. One reading for both transports, so that a command
// means the same whichever way it came; discord.js' interaction objects are not built at all.
import { z } from 'zod';

import type { CommandInput, OptionValue } from '../../commands/index.js';
import type { Action } from './router.js';

/** Discord's permission bit for Manage Server (1 << 5). */
const MANAGE_GUILD = 1n << 5n;
const DISCORD_EPOCH = 1_420_070_400_000n;

interface RawOption {
  name: string;
  type: number;
  value?: OptionValue | undefined;
  focused?: boolean | undefined;
  options?: RawOption[] | undefined;
}
const OptionSchema: z.ZodType<RawOption> = z.lazy(() =>
  z.object({ name: z.string(), type: z.number(), value: z.union([z.string(), z.number(), z.boolean()]).optional(), focused: z.boolean().optional(), options: z.array(OptionSchema).optional() }),
);
const snowflake = z.string().regex(/^\d{1,20}$/);
const UserSchema = z.object({ id: snowflake });
const InteractionSchema = z.object({
  id: snowflake,
  application_id: snowflake,
  type: z.number().int(),
  token: z.string().min(1).max(1_000).optional(),
  guild_id: snowflake.optional(),
  /** The member's permissions in the channel, as a decimal bit set (Discord sends them with every guild interaction). */
  member: z.object({ user: UserSchema, permissions: z.string().regex(/^\d{1,30}$/).optional() }).optional(),
  user: UserSchema.optional(),
  locale: z.string().max(20).optional(),
  data: z.unknown().optional(),
});
const CommandDataSchema = z.object({ name: z.string().max(32), options: z.array(OptionSchema).optional() });
const ComponentDataSchema = z.object({ custom_id: z.string().max(100), component_type: z.number(), values: z.array(z.string()).optional() });

export type RawInteraction = z.infer<typeof InteractionSchema>;

/** Discord's interaction types this bot reads. */
export const InteractionTypes = { ping: 1, command: 2, component: 3, autocomplete: 4 } as const;

/** Whether a member's permission bits (Discord's decimal string) include Manage Server. */
const manageServer = (permissions: string | undefined): boolean => permissions !== undefined && (BigInt(permissions) & MANAGE_GUILD) !== 0n;

/** When Discord made the interaction, from its snowflake id. */
export const createdAt = (id: string): number => Number((BigInt(id) >> 22n) + DISCORD_EPOCH);

/** The leaf options, with the subcommand group and subcommand they sit under. */
function readOptions(options: readonly RawOption[] | undefined): { group: string | null; subcommand: string | null; values: Record<string, OptionValue>; focused?: { name: string; value: string } } {
  const out: ReturnType<typeof readOptions> = { group: null, subcommand: null, values: {} };
  const walk = (list: readonly RawOption[]) => {
    for (const o of list) {
      if (o.type === 2) out.group = o.name;
      if (o.type === 1) out.subcommand = o.name;
      if (o.options) walk(o.options);
      else if (o.value !== undefined) {
        out.values[o.name] = o.value;
        if (o.focused) out.focused = { name: o.name, value: String(o.value) };
      }
    }
  };
  walk(options ?? []);
  return out;
}

/** The interaction's envelope, or undefined when the JSON is not one. */
export function readEnvelope(json: unknown): RawInteraction | undefined {
  const parsed = InteractionSchema.safeParse(json);
  return parsed.success ? parsed.data : undefined;
}

/** What the user did, or why the payload cannot be read. */
export function actionOf(raw: RawInteraction): Action | string {
  const userId = raw.member?.user.id ?? raw.user?.id;
  if (!userId) return 'no user';
  if (raw.type === InteractionTypes.command || raw.type === InteractionTypes.autocomplete) {
    const data = CommandDataSchema.safeParse(raw.data);
    if (!data.success) return 'malformed command data';
    const read = readOptions(data.data.options);
    const input: CommandInput = { name: data.data.name, group: read.group, subcommand: read.subcommand, options: read.values, userId, guildId: raw.guild_id ?? null, locale: raw.locale, canManageServer: manageServer(raw.member?.permissions) };
    if (raw.type === InteractionTypes.command) return { kind: 'command', input };
    return { kind: 'autocomplete', input: { ...input, focused: read.focused ?? { name: '', value: '' } } };
  }
  if (raw.type === InteractionTypes.component) {
    const data = ComponentDataSchema.safeParse(raw.data);
    if (!data.success) return 'malformed component data';
    return { kind: 'component', customId: data.data.custom_id, values: data.data.component_type === 3 ? data.data.values : undefined, userId, locale: raw.locale };
  }
  return `interaction type ${raw.type} is not answered by this bot`;
}
