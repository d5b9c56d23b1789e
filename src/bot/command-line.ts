// Reads a slash command typed as text ("/stats title_c profile platform:console_a player:Nova"), the
// way Discord would deliver it: group, subcommand and typed options.
import { ApplicationCommandOptionType, type APIApplicationCommandOption } from 'discord.js';

import { findCommand, type CommandInput, type OptionValue } from '../../commands/index.js';

function tokens(line: string): string[] {
  const out: string[] = [];
  const re = /(\S+?:)"((?:[^"\\]|\\.)*)"|(\S+?:)'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[1] !== undefined) out.push(m[1] + (m[2] ?? '').replace(/\\(.)/g, '$1'));
    else if (m[3] !== undefined) out.push(m[3] + (m[4] ?? ''));
    else out.push(m[5] ?? m[6] ?? '');
  }
  return out;
}

export class CommandLineError extends Error {}

const isBranch = (o: APIApplicationCommandOption) =>
  o.type === ApplicationCommandOptionType.Subcommand || o.type === ApplicationCommandOptionType.SubcommandGroup;

const branchWord = (branches: readonly APIApplicationCommandOption[]) =>
  branches.every((o) => o.type === ApplicationCommandOptionType.SubcommandGroup) ? 'group' : 'subcommand';

/**
 * The leaf options a command path (group, subcommand) takes, by name. A path Discord would not take
 * (a name it lacks, or one that stops before its subcommand) is told with what it could be instead.
 */
function leafOptions(
  command: string,
  options: readonly APIApplicationCommandOption[] | undefined,
  path: readonly string[],
): Map<string, APIApplicationCommandOption> {
  let level = options ?? [];
  const walked = [`/${command}`];
  for (const name of path) {
    const branches = level.filter(isBranch);
    const next = branches.find((o) => o.name === name);
    if (!next) {
      const optionsHere = level.filter((o) => !isBranch(o)).map((o) => o.name);
      throw new CommandLineError(
        branches.length > 0
          ? `"${walked.join(' ')}" has no ${branchWord(branches)} "${name}": use ${branches.map((o) => o.name).join(', ')}`
          : `"${walked.join(' ')}" has no subcommand "${name}"${optionsHere.length > 0 ? `: its options, written name:value, are ${optionsHere.join(', ')}` : ''}`,
      );
    }
    walked.push(name);
    level = 'options' in next ? (next.options ?? []) : [];
  }
  const branches = level.filter(isBranch);
  if (branches.length > 0) throw new CommandLineError(`"${walked.join(' ')}" needs a ${branchWord(branches)}: ${branches.map((o) => o.name).join(', ')}`);
  return new Map(level.map((o) => [o.name, o]));
}

/**
 * Parses a typed command; the last option is the focused one for autocomplete. A `complete` command
 * (one to run, not one being typed) must have every option the command requires: Discord sends no
 * command without them, so a handler never meets one missing.
 */
export function parseCommandLine(
  line: string,
  userId: string,
  { complete = true }: { complete?: boolean } = {},
): CommandInput & { last?: { name: string; value: string } } {
  const [head, ...rest] = tokens(line.trim());
  const name = (head ?? '').replace(/^\//, '');
  const command = findCommand(name);
  if (!command) throw new CommandLineError(`unknown command "/${name}" (try /stats, /link, /unlink)`);
  const path: string[] = [];
  const options: Record<string, OptionValue> = {};
  let last: { name: string; value: string } | undefined;
  for (const token of rest) {
    const colon = token.indexOf(':');
    if (colon <= 0) {
      path.push(token);
      continue;
    }
    const key = token.slice(0, colon);
    const raw = token.slice(colon + 1);
    const leaf = leafOptions(name, command.data.options, path);
    const option = leaf.get(key);
    if (!option) {
      const known = [...leaf.keys()];
      throw new CommandLineError(
        `"/${[name, ...path].join(' ')}" has no option "${key}": ${known.length > 0 ? `its options are ${known.join(', ')}` : 'it takes no options'}`,
      );
    }
    const numeric = option.type === ApplicationCommandOptionType.Integer || option.type === ApplicationCommandOptionType.Number;
    if (numeric && !Number.isFinite(Number(raw))) throw new CommandLineError(`option "${key}" takes a number`);
    options[key] = numeric ? Number(raw) : option.type === ApplicationCommandOptionType.Boolean ? raw === 'true' : raw;
    last = { name: key, value: raw };
  }
  // Also without options: "/stats title_c" alone, or a subcommand mistyped, is told here, not by the handler.
  const leaf = leafOptions(name, command.data.options, path);
  const missing = complete ? [...leaf.values()].filter((o) => o.required === true && !(o.name in options)).map((o) => `${o.name}:…`) : [];
  if (missing.length > 0)
    throw new CommandLineError(
      `"/${[name, ...path].join(' ')}" needs ${missing.join(' ')} (Discord sends it with ${missing.length > 1 ? 'these' : 'this'} always)`,
    );
  const [group, subcommand] = path.length >= 2 ? [path[0] ?? null, path[1] ?? null] : [null, path[0] ?? null];
  return { name, group, subcommand, options, userId, ...(last ? { last } : {}) };
}
