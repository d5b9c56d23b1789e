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

/** The leaf options a command path (group, subcommand) takes, by name. */
function leafOptions(options: readonly APIApplicationCommandOption[] | undefined, path: string[]): Map<string, APIApplicationCommandOption> {
  let level = options ?? [];
  for (const name of path) {
    const next = level.find((o) => o.name === name);
    level = next && 'options' in next ? (next.options ?? []) : [];
  }
  return new Map(level.map((o) => [o.name, o]));
}

export class CommandLineError extends Error {}

/** Parses a typed command; the last option is the focused one for autocomplete. */
export function parseCommandLine(line: string, userId: string): CommandInput & { last?: { name: string; value: string } } {
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
    const option = leafOptions(command.data.options, path).get(key);
    if (!option) throw new CommandLineError(`"/${[name, ...path].join(' ')}" has no option "${key}"`);
    const numeric = option.type === ApplicationCommandOptionType.Integer || option.type === ApplicationCommandOptionType.Number;
    if (numeric && !Number.isFinite(Number(raw))) throw new CommandLineError(`option "${key}" takes a number`);
    options[key] = numeric ? Number(raw) : option.type === ApplicationCommandOptionType.Boolean ? raw === 'true' : raw;
    last = { name: key, value: raw };
  }
  const [group, subcommand] = path.length >= 2 ? [path[0] ?? null, path[1] ?? null] : [null, path[0] ?? null];
  return { name, group, subcommand, options, userId, ...(last ? { last } : {}) };
}
