// Every command of the bot: `/stats` (a subcommand group per title), `/link` and `/unlink`.
import { SlashCommandBuilder } from 'discord.js';

import { isTitle } from '../src/catalog/index.js';
import { notice } from '../src/embeds/index.js';
import { link, unlink } from './link.js';
import { titleA } from './title-a.js';
import { titleB } from './title-b.js';
import { titleC } from './title-c.js';
import { titleD } from './title-d.js';
import type { TitleCommand } from './title-command.js';
import type { Command } from './types.js';

const titles: readonly TitleCommand[] = [titleA, titleB, titleC, titleD];
const byTitle = new Map(titles.map((t) => [t.title, t]));

const statsBuilder = new SlashCommandBuilder().setName('stats').setDescription('Player statistics for Title A, B, C and D');
for (const t of titles) statsBuilder.addSubcommandGroup(t.group);

export const stats = {
  data: statsBuilder.toJSON(),
  execute: async (input, deps) => {
    const title = input.group && isTitle(input.group) ? byTitle.get(input.group) : undefined;
    return title ? title.execute(input, deps) : notice('Unknown title. Try `/stats title_c profile`.');
  },
  autocomplete: async (input, deps) => {
    const title = input.group && isTitle(input.group) ? byTitle.get(input.group) : undefined;
    return title ? title.autocomplete(input, deps) : [];
  },
} satisfies Command;

export const commands: readonly Command[] = [stats, link, unlink];

export function findCommand(name: string): Command | undefined {
  return commands.find((c) => c.data.name === name);
}

export type { AutocompleteInput, Choice, Command, CommandInput, Deps, LinkedAccount, LinkStore, OptionValue, View, ViewStore } from './types.js';
export { openFromView, renderView } from './views.js';
export { StoreUnavailableError } from './types.js';
